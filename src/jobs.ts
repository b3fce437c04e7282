// The one runner of periodic jobs (docs/architecture.md "Periodic jobs"): src/compose.ts lists the
// jobs of a server process and starts them here. Time comes from deps.timers, so tests move it.
import { isDatabaseUnavailable } from "./db/unavailable.ts";
import type { Deps } from "./deps.ts";
import { messageOf } from "./errors.ts";

/** A periodic job: its name, how often it runs, what it does (docs/architecture.md "Periodic jobs"). */
export interface Job {
  name: string;
  everyMs: number;
  run(): Promise<unknown>;
  /** Runs in the outbox loop's pass, in list order, just before the mail pool claims (what it queues goes out in that pass), not on a timer of its own. */
  outboxPass?: true;
}

/** The longest a failing job sits out. */
const MAX_SIT_OUT_MS = 4 * 60_000;

/**
 * Runs each job every `everyMs` on deps.timers until stopped; a tick that finds the job's last run
 * still going is skipped. After a failed run (the database unreachable, most often) the job sits
 * out its next 1, 3, then 7 ticks (never more than 4 minutes); the first run that succeeds resets it.
 */
export function runJobs(deps: Pick<Deps, "timers" | "log">, list: readonly Job[]): { stop(): Promise<void> } {
  const running = new Set<Promise<void>>();
  const timers = list.map((job) => {
    let current: Promise<void> | undefined;
    let failures = 0;
    let skip = 0;
    return deps.timers.every(job.everyMs, () => {
      if (current) return;
      if (skip > 0) {
        skip--;
        return;
      }
      const run: Promise<void> = job
        .run()
        .then(
          () => {
            failures = 0;
          },
          (error) => {
            failures++;
            skip = Math.min(2 ** failures - 1, 7, Math.floor(MAX_SIT_OUT_MS / job.everyMs));
            deps.log.warn("periodic job failed", { job: job.name, error: messageOf(error), database_unavailable: isDatabaseUnavailable(error) });
          },
        )
        .finally(() => {
          running.delete(run);
          current = undefined;
        });
      current = run;
      running.add(run);
    });
  });
  return {
    async stop() {
      for (const timer of timers) timer.cancel();
      await Promise.all(running);
    },
  };
}
