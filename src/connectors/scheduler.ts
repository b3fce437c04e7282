// Scheduled discovery: every live connector is discovered again once per
// CONNECTOR_DISCOVERY_INTERVAL_SECONDS, so tools added or removed upstream appear. It is one of the
// periodic jobs (src/compose.ts `jobs`, docs/architecture.md "Periodic jobs"): every server process
// ticks; a connector is claimed with one atomic UPDATE … FOR UPDATE SKIP LOCKED, so with several
// processes on one database each connector still runs once per interval.
import { and, inArray, sql } from "drizzle-orm";
import type { Config } from "../config.ts";
import { connectors } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { live } from "../kit/rows.ts";
import type { ConnectorRow } from "./credentials.ts";
import { discover } from "./discovery.ts";

const BATCH = 10;

/** How often the discovery job ticks: half the interval, between 1 s and 30 s. */
export function discoveryTickMs(config: Pick<Config, "connectorDiscoveryIntervalSeconds">): number {
  return Math.max(1000, Math.min(30_000, (config.connectorDiscoveryIntervalSeconds * 1000) / 2));
}

/** One tick: discovers every connector that is due, a batch at a time. */
export async function discoverDueConnectors(deps: Deps): Promise<void> {
  for (;;) {
    const due = await claimDueConnectors(deps, BATCH);
    for (const row of due) await discover(deps, row);
    if (due.length < BATCH) return;
  }
}

/** Claims due connectors atomically, so each is refreshed once per interval across processes. */
export async function claimDueConnectors(deps: Pick<Deps, "config" | "db" | "now">, limit: number): Promise<ConnectorRow[]> {
  const now = deps.now();
  const until = new Date(now.getTime() + deps.config.connectorDiscoveryIntervalSeconds * 1000);
  const due = deps.db
    .select({ id: connectors.id })
    .from(connectors)
    .where(and(live(connectors), sql`${connectors.nextDiscoveryAt} <= ${now.toISOString()}::timestamptz`))
    .orderBy(connectors.nextDiscoveryAt)
    .limit(limit)
    .for("update", { skipLocked: true });
  return deps.db.update(connectors).set({ nextDiscoveryAt: until }).where(inArray(connectors.id, due)).returning();
}
