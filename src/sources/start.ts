// Starting a sync outside the scheduler ("sync now", a new source): the source is claimed here and
// synced in the background; the caller answers at once and the source's status shows the rest.
import type { Deps } from "../deps.ts";
import type { SourceRow } from "./model.ts";
import { claimSource, runSync } from "./sync.ts";

export async function startSync(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "knowledge" | "log" | "now" | "timers">,
  orgId: string,
  id: string,
): Promise<SourceRow> {
  const claimed = await claimSource(deps, orgId, id);
  void runSync(deps, claimed).catch((error) => deps.log.error("knowledge source sync failed", { source_id: id, error: (error as Error).message }));
  return claimed;
}
