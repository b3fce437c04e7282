// Deadlines and periodic work, carried in deps so tests drive them by moving their clock instead
// of waiting. The server uses the real timers below.

export interface Timers {
  /**
   * A signal that aborts `ms` from now with a DOMException named TimeoutError, as
   * AbortSignal.timeout does (src/kit/timeouts.ts recognises both).
   */
  deadline(ms: number): AbortSignal;
  /** Runs `run` every `ms` until cancelled (the discovery scheduler's tick). */
  every(ms: number, run: () => void): { cancel(): void };
}

export const realTimers: Timers = {
  deadline: (ms) => AbortSignal.timeout(ms),
  every(ms, run) {
    const timer = setInterval(run, ms);
    return { cancel: () => clearInterval(timer) };
  },
};
