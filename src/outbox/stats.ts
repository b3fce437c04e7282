// What the outbox holds now, per kind, for the metrics scrape (svc_outbox_waiting,
// svc_outbox_oldest_due_seconds): rows still to deliver (pending or being sent) and how long the
// oldest due one has waited. One grouped read on the (kind, status, run_at) index. The time goes
// as ISO text with a cast, as everywhere raw SQL takes one: postgres.js refuses a bare Date there
// (ERR_INVALID_ARG_TYPE on PostgreSQL; PGlite accepted it, so only the PostgreSQL run caught it).
import { sql } from "drizzle-orm";
import { queryRows } from "../db/client.ts";
import type { Deps } from "../deps.ts";

export interface OutboxDepthRow {
  kind: string;
  waiting: number;
  oldestDueSeconds: number;
}

export async function outboxDepth(deps: Pick<Deps, "db" | "now">): Promise<OutboxDepthRow[]> {
  const now = deps.now();
  const rows = await queryRows<{ kind: string; waiting: string | number; oldest: Date | string | null }>(
    deps.db,
    sql`select kind, count(*) as waiting, min(run_at) filter (where run_at <= ${now.toISOString()}::timestamptz) as oldest
        from outbox where status in ('pending', 'sending') group by kind`,
  );
  return rows.map((row) => ({
    kind: row.kind,
    waiting: Number(row.waiting),
    oldestDueSeconds: row.oldest === null ? 0 : Math.max(0, (now.getTime() - new Date(row.oldest).getTime()) / 1000),
  }));
}
