// Scheduled syncs: every knowledge source is synced again once per its own interval (default one
// day). Every server process ticks; a due source is claimed with one atomic UPDATE … FOR UPDATE
// SKIP LOCKED that also moves its next sync and takes its lease (src/sources/sync.ts), so with
// several processes on one database each source still syncs once per interval. Like connector
// discovery's scheduler, a failed tick skips the next 1, 3, 7 ticks (README "Faults and shutdown").
import type { Deps } from "../deps.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import { messageOf } from "../errors.ts";
import { claimDueSources, runSync } from "./sync.ts";

/** Sources claimed per tick; each is synced to its end before the next tick claims more. */
const BATCH = 2;

export function startSourceScheduler(deps: Deps): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  // Shutdown stops a running sync: it fails with that reason and removes nothing.
  const stopping = new AbortController();
  let failures = 0;
  let skip = 0;
  const tick = async () => {
    const due = await claimDueSources(deps, BATCH);
    await Promise.all(due.map((row) => runSync(deps, row, stopping.signal)));
  };
  const timer = deps.timers.every(deps.config.knowledgeSyncTickSeconds * 1000, () => {
    if (running) return;
    if (skip > 0) {
      skip--;
      return;
    }
    running = tick()
      .then(() => {
        failures = 0;
      })
      .catch((error) => {
        failures++;
        skip = Math.min(2 ** failures - 1, 7);
        deps.log.warn("scheduled knowledge sync failed", { error: messageOf(error), database_unavailable: isDatabaseUnavailable(error) });
      })
      .finally(() => (running = undefined));
  });
  return {
    async stop() {
      timer.cancel();
      stopping.abort();
      await running;
    },
  };
}
