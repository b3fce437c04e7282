// Scheduled syncs: every knowledge source is synced again once per its own interval (default one
// day). Every server process ticks — one entry of the periodic jobs in src/compose.ts
// (docs/architecture.md "Periodic jobs") — and a due source is claimed with one atomic UPDATE …
// FOR UPDATE SKIP LOCKED that also moves its next sync and takes its lease (src/sources/sync.ts),
// so with several processes on one database each source still syncs once per interval.
import type { Config } from "../config.ts";
import type { Deps } from "../deps.ts";
import { claimDueSources, runSync } from "./sync.ts";

/** Sources claimed per tick; each is synced to its end before the next tick claims more. */
const BATCH = 2;

/** How often a process looks for due sources (KNOWLEDGE_SYNC_TICK_SECONDS). */
export function sourceSyncTickMs(config: Pick<Config, "knowledgeSyncTickSeconds">): number {
  return config.knowledgeSyncTickSeconds * 1000;
}

/** Claims the sources that are due and syncs them; `stopping` (shutdown) fails a running sync, which then removes nothing. */
export async function syncDueSources(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "knowledge" | "log" | "now" | "timers">,
  stopping: AbortSignal,
): Promise<void> {
  const due = await claimDueSources(deps, BATCH);
  await Promise.all(due.map((row) => runSync(deps, row, stopping)));
}
