// Liveness and readiness. /healthz answers while the process runs, whatever the database does;
// /readyz only when the database answers and every embedded migration is applied (a load
// balancer should route on /readyz). The readiness probe is bounded: a database that does not
// answer within READY_PROBE_MS makes it 503 at once rather than leaving the balancer's check
// hanging, so /readyz turns 503 within 2 s of an outage (README "Faults and shutdown").
import { Elysia } from "elysia";
import { pendingMigrationCount } from "../db/migrate.ts";
import type { Deps } from "../deps.ts";

/** Longest a readiness probe waits on the database; under the 2 s README "Faults and shutdown" promises. */
export const READY_PROBE_MS = 1500;

/** The probe's answer: pending migrations, or "unavailable" when the database failed or took longer than the deadline. */
async function probe(deps: Pick<Deps, "db" | "timers">): Promise<number | "unavailable"> {
  const deadline = deps.timers.deadline(READY_PROBE_MS);
  const expired = new Promise<"unavailable">((resolve) => {
    if (deadline.aborted) resolve("unavailable");
    deadline.addEventListener("abort", () => resolve("unavailable"), { once: true });
  });
  const counted = pendingMigrationCount(deps.db).catch(() => "unavailable" as const);
  return Promise.race([counted, expired]);
}

export function healthRoutes(deps: Pick<Deps, "db" | "timers">) {
  return new Elysia({ name: "health" })
    .get("/healthz", () => ({ status: "ok" }))
    .get("/readyz", async () => {
      const pending = await probe(deps);
      if (pending === "unavailable") return Response.json({ status: "database_unavailable" }, { status: 503, headers: { "cache-control": "no-store" } });
      if (pending > 0) return Response.json({ status: "migrating", pending_migrations: pending }, { status: 503 });
      return { status: "ready" };
    });
}
