// Where a request's time goes, for the W3C Server-Timing header (https://www.w3.org/TR/server-timing/):
// each `mark(name)` adds the time since the previous mark to that stage. Only built when
// SERVER_TIMING=1 (the benchmark reads it, bench/load.ts); otherwise callers hold `undefined`.
export interface StageTimer {
  /** Adds the time since the last mark (or since the timer was made) to `stage`. */
  mark(stage: string): void;
  /** `stage;dur=ms, …` in the order the stages were first marked. */
  header(): string;
}

export function createStageTimer(now: () => number = () => performance.now()): StageTimer {
  let last = now();
  const stages = new Map<string, number>();
  return {
    mark(stage) {
      const at = now();
      stages.set(stage, (stages.get(stage) ?? 0) + (at - last));
      last = at;
    },
    header: () => [...stages].map(([stage, ms]) => `${stage};dur=${ms.toFixed(3)}`).join(", "),
  };
}
