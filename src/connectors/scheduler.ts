// Scheduled discovery: every live connector is discovered again once per
// CONNECTOR_DISCOVERY_INTERVAL_SECONDS, so tools added or removed upstream appear. Every server
// process ticks; a connector is claimed with one atomic UPDATE … FOR UPDATE SKIP LOCKED, so with
// several processes on one database each connector still runs once per interval.
import type { Deps } from "../deps.ts";
import { claimDueConnectors, discover } from "./service.ts";
import { messageOf } from "../errors.ts";

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
  const timer = setInterval(() => {
    running ??= tick()
      .catch((error) => deps.log.warn("scheduled discovery failed", { error: messageOf(error) }))
      .finally(() => (running = undefined));
  }, tickMs);
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
