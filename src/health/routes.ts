// Liveness and readiness. /healthz answers while the process runs; /readyz only when the database
// answers and every embedded migration is applied (a load balancer should route on /readyz).
import { Elysia } from "elysia";
import { pendingMigrationCount } from "../db/migrate.ts";
import type { Deps } from "../deps.ts";

export function healthRoutes(deps: Deps) {
  return new Elysia({ name: "health" })
    .get("/healthz", () => ({ status: "ok" }))
    .get("/readyz", async () => {
      try {
        const pending = await pendingMigrationCount(deps.db);
        if (pending > 0) return Response.json({ status: "migrating", pending_migrations: pending }, { status: 503 });
        return { status: "ready" };
      } catch {
        return Response.json({ status: "database_unavailable" }, { status: 503 });
      }
    });
}
