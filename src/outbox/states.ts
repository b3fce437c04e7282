// What the outbox tells the rooms whose rows it delivers (webhook deliveries, campaign messages,
// reply emails): a row's delivery state as a view to join with their own rows, and the ids of
// queued rows by what their payload names, for cancelQueued (docs/decisions.md "Storage behind
// each owner": the owner chooses the columns; the reader's list stays one statement).
import { and, eq, gte, inArray, sql } from "drizzle-orm";
import { QueryBuilder } from "drizzle-orm/pg-core";
import type { Conn } from "../db/client.ts";
import { outbox } from "../db/schema/index.ts";

/** A row's delivery state, to join with: `innerJoin(outboxStates, eq(outboxStates.id, mine.outboxId))`. */
export const outboxStates = new QueryBuilder()
  .select({ id: outbox.id, status: outbox.status, runAt: outbox.runAt, lastError: outbox.lastError, attempts: outbox.attempts, doneAt: outbox.doneAt })
  .from(outbox)
  .as("outbox_states");

export type OutboxState = {
  id: string;
  status: typeof outbox.$inferSelect.status;
  runAt: Date;
  lastError: string | null;
  attempts: number;
  doneAt: Date | null;
};

/**
 * The ids of the org's rows of `kind` made since `since` whose payload has `key` among `values`
 * and each of `equal` as written (JSON text): a statement to hand to cancelQueued.
 */
export function rowsByPayload(
  db: Conn,
  p: { orgId: string; kind: string; since: Date; key: string; values: readonly string[]; equal?: Record<string, string> },
) {
  const equal = Object.entries(p.equal ?? {}).map(([k, v]) => sql`${outbox.payload}->>${k}::text = ${v}`);
  return db
    .select({ id: outbox.id })
    .from(outbox)
    .where(
      and(
        eq(outbox.orgId, p.orgId),
        eq(outbox.kind, p.kind),
        gte(outbox.createdAt, p.since),
        ...equal,
        inArray(sql`${outbox.payload}->>${p.key}::text`, [...p.values]),
      ),
    );
}

/** A row's status and lease, locked FOR UPDATE until the caller's transaction ends: a sender's claim or outcome waits for it. */
export async function lockedState(tx: Conn, id: string): Promise<{ status: OutboxState["status"]; lockedUntil: Date | null } | null> {
  const [row] = await tx.select({ status: outbox.status, lockedUntil: outbox.lockedUntil }).from(outbox).where(eq(outbox.id, id)).for("update");
  return row ?? null;
}
