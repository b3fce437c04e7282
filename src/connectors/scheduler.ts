// Scheduled discovery: every live connector is discovered again once per
// CONNECTOR_DISCOVERY_INTERVAL_SECONDS, so tools added or removed upstream appear. Every server
// process ticks; a connector is claimed with one atomic UPDATE … FOR UPDATE SKIP LOCKED, so with
// several processes on one database each connector still runs once per interval.
import { and, inArray, sql } from "drizzle-orm";
import { connectors } from "../db/schema/index.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import type { Deps } from "../deps.ts";
import { messageOf } from "../errors.ts";
import { live } from "../kit/rows.ts";
import type { ConnectorRow } from "./credentials.ts";
import { discover } from "./discovery.ts";

const BATCH = 10;

export function startDiscoveryScheduler(deps: Deps): { stop(): Promise<void> } {
  const tickMs = Math.max(1000, Math.min(30_000, (deps.config.connectorDiscoveryIntervalSeconds * 1000) / 2));
  let running: Promise<void> | undefined;
  const tick = async () => {
    for (;;) {
      const due = await claimDueConnectors(deps, BATCH);
      for (const row of due) await discover(deps, row);
      if (due.length < BATCH) return;
    }
  };
  // After a failed tick (the database unreachable, most often) the next 1, 3, 7 ticks are skipped,
  // up to 7; the first tick that succeeds resets it (README "Faults and shutdown").
  let failures = 0;
  let skip = 0;
  const timer = deps.timers.every(tickMs, () => {
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
        deps.log.warn("scheduled discovery failed", { error: messageOf(error), database_unavailable: isDatabaseUnavailable(error) });
      })
      .finally(() => (running = undefined));
  });
  return {
    async stop() {
      timer.cancel();
      await running;
    },
  };
}

/** Claims due connectors atomically, so each is refreshed once per interval across processes. */
export async function claimDueConnectors(deps: Deps, limit: number): Promise<ConnectorRow[]> {
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
