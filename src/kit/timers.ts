// Deadlines for outbound work, carried in deps so tests can fire them by moving their clock
// instead of waiting (issue #9 item 5). The server uses the real timers below.

export interface Timers {
  /**
   * A signal that aborts `ms` from now with a DOMException named TimeoutError, as
   * AbortSignal.timeout does (src/kit/timeouts.ts recognises both).
   */
  deadline(ms: number): AbortSignal;
}

export const realTimers: Timers = { deadline: (ms) => AbortSignal.timeout(ms) };
