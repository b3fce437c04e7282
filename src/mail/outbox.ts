// The durable outbox's delivery loop (contract C9), generic over kinds: mail is the first, webhooks
// (issue #15) register a handler the same way. A row is claimed, delivered by its kind's handler,
// and its outcome recorded:
//
//   claim   one UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED) that marks due rows
//           `sending` with a fresh claim token and a lease (`locked_until`), and commits at once.
//           Concurrent senders (processes on PostgreSQL) skip each other's locked rows and, after
//           commit, see them as `sending`; on PGlite (one connection) statements run one at a
//           time, so the same statement is trivially exclusive. Delivery happens outside any
//           transaction, so a slow SMTP server never holds a lock or PGlite's only connection.
//   record  UPDATE … WHERE id = ? AND claim_token = ?: only the claim's holder records; a sender
//           whose lease expired (and whose row another sender took) cannot overwrite the outcome.
//
// At-least-once: a row recorded as `sent` is never claimed again. A sender killed after the
// receiver accepted the message but before it recorded `sent` leaves the row `sending`; when the
// lease expires it is claimed and delivered again, with the same identity (Message-ID, later
// webhook-id) so the receiver can recognise the duplicate. That window is one delivery's length
// (docs/decisions.md).
import { and, eq, inArray, lte, or, sql, type SQLWrapper } from "drizzle-orm";
import type { Db, Tx } from "../db/client.ts";
import { outbox, type OutboxStatus } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { messageOf } from "../errors.ts";

export type OutboxRow = typeof outbox.$inferSelect;

/** What a handler reports about one delivery attempt. */
export type OutboxOutcome =
  | { kind: "sent" }
  /** A temporary failure: try again after the kind's next backoff, or fail once they are used up. */
  | { kind: "retry"; reason: string }
  /** A permanent failure: never retried. */
  | { kind: "failed"; reason: string }
  /** Not sent on purpose and never will be (e.g. no SMTP configured); visible with its reason. */
  | { kind: "held"; reason: string }
  /** No longer wanted (recipient removed or unsubscribed). */
  | { kind: "cancelled"; reason: string }
  /** Waits, unclaimed, until something releases it (status back to pending). */
  | { kind: "parked"; reason: string };

export interface OutboxHandler {
  /** Seconds to wait after the 1st, 2nd, … failed attempt; when they are used up the row fails. */
  retrySchedule: readonly number[];
  /** Each wait is stretched by a random factor in [1, 1 + jitter), so retries of many rows spread out (webhooks). Default 0. */
  jitter?: number;
  deliver(row: OutboxRow): Promise<OutboxOutcome>;
  /** Runs in the transaction that records a `sent` outcome, so what it writes (a webhook event) commits with it or not at all. */
  onSent?(tx: Db | Tx, row: OutboxRow, now: Date): Promise<void>;
}

export type OutboxHandlers = Readonly<Record<string, OutboxHandler>>;

// ---------- writing rows: always inside the caller's transaction, so a row exists exactly when the change that caused it commits ----------

/** Adds a row due at `runAt`; returns its id (the delivery's stable identity). */
export async function enqueue(db: Db | Tx, row: { orgId: string; kind: string; payload: Record<string, unknown>; runAt: Date; now: Date }): Promise<string> {
  const [inserted] = await db
    .insert(outbox)
    .values({ orgId: row.orgId, kind: row.kind, payload: row.payload, status: "pending", runAt: row.runAt, createdAt: row.now, updatedAt: row.now })
    .returning({ id: outbox.id });
  return inserted!.id;
}

/** Removes a row enqueued in this same transaction that turned out to be unwanted (never claimed). */
export async function dropEnqueued(db: Db | Tx, id: string): Promise<void> {
  await db.delete(outbox).where(and(eq(outbox.id, id), eq(outbox.status, "pending"), eq(outbox.attempts, 0)));
}

/** Parks the pending rows among `ids` (a subquery of outbox ids): no sender claims them until released. */
export async function parkPending(db: Db | Tx, ids: SQLWrapper, reason: string, now: Date): Promise<void> {
  await db.update(outbox).set({ status: "parked", lastError: reason, updatedAt: now }).where(and(eq(outbox.status, "pending"), inArray(outbox.id, ids)));
}

/** Makes the parked rows among `ids` due now. */
export async function releaseParked(db: Db | Tx, ids: SQLWrapper, now: Date): Promise<void> {
  await db.update(outbox).set({ status: "pending", runAt: now, lastError: null, updatedAt: now }).where(and(eq(outbox.status, "parked"), inArray(outbox.id, ids)));
}

/**
 * Cancels the rows among `ids` that no sender holds (pending or parked). A row being sent right
 * now is not touched: its handler checks again before sending.
 */
export async function cancelQueued(db: Db | Tx, ids: SQLWrapper, reason: string, now: Date): Promise<void> {
  await db
    .update(outbox)
    .set({ status: "cancelled", lastError: reason, doneAt: now, updatedAt: now })
    .where(and(inArray(outbox.status, ["pending", "parked"]), inArray(outbox.id, ids)));
}

// ---------- delivering ----------

/** How long a claim lasts. Longer than any delivery may take (SMTP timeouts add up to ~2 min). */
export const OUTBOX_LEASE_MS = 5 * 60_000;

/** Claims up to `limit` due rows of the given kinds for this sender. */
export async function claimDue(deps: Pick<Deps, "db" | "now">, kinds: string[], limit: number): Promise<OutboxRow[]> {
  if (kinds.length === 0) return [];
  const now = deps.now();
  const at = sql`${now.toISOString()}::timestamptz`;
  const due = deps.db
    .select({ id: outbox.id })
    .from(outbox)
    .where(and(inArray(outbox.kind, kinds), or(and(eq(outbox.status, "pending"), lte(outbox.runAt, at)), and(eq(outbox.status, "sending"), lte(outbox.lockedUntil, at)))))
    .orderBy(outbox.runAt)
    .limit(limit)
    .for("update", { skipLocked: true });
  return deps.db
    .update(outbox)
    .set({ status: "sending", attempts: sql`${outbox.attempts} + 1`, claimToken: sql`gen_random_uuid()`, lockedUntil: new Date(now.getTime() + OUTBOX_LEASE_MS), updatedAt: now })
    .where(inArray(outbox.id, due))
    .returning();
}

/**
 * Renews this sender's claim just before it delivers a row: a row claimed in a batch may have
 * waited behind others past its lease, and another instance may have claimed it since. False when
 * the claim is gone — the row is then not delivered here, so a lease can only run out during one
 * delivery, never while a row waits in a batch.
 */
export async function renewClaim(deps: Pick<Deps, "db" | "now">, row: OutboxRow): Promise<boolean> {
  const now = deps.now();
  const renewed = await deps.db
    .update(outbox)
    .set({ lockedUntil: new Date(now.getTime() + OUTBOX_LEASE_MS), updatedAt: now })
    .where(and(eq(outbox.id, row.id), eq(outbox.status, "sending"), eq(outbox.claimToken, row.claimToken!)))
    .returning({ id: outbox.id });
  return renewed.length === 1;
}

/** Records an attempt's outcome; false when this sender no longer holds the claim. */
export async function recordOutcome(deps: Pick<Deps, "db" | "now">, row: OutboxRow, handler: OutboxHandler, outcome: OutboxOutcome): Promise<boolean> {
  const now = deps.now();
  let set: Partial<typeof outbox.$inferInsert>;
  if (outcome.kind === "retry") {
    const wait = handler.retrySchedule[row.attempts - 1];
    set =
      wait === undefined
        ? { status: "failed", lastError: `gave up after ${row.attempts} attempts: ${outcome.reason}`.slice(0, 1000), doneAt: now }
        : { status: "pending", runAt: new Date(now.getTime() + wait * 1000 * (1 + Math.random() * (handler.jitter ?? 0))), lastError: outcome.reason.slice(0, 1000) };
  } else if (outcome.kind === "sent") set = { status: "sent", lastError: null, doneAt: now };
  else if (outcome.kind === "parked") set = { status: "parked", lastError: outcome.reason.slice(0, 1000) };
  else set = { status: outcome.kind satisfies OutboxStatus, lastError: outcome.reason.slice(0, 1000), doneAt: now };
  const write = async (db: Db | Tx) => {
    const updated = await db
      .update(outbox)
      .set({ ...set, claimToken: null, lockedUntil: null, updatedAt: now })
      .where(and(eq(outbox.id, row.id), eq(outbox.claimToken, row.claimToken!)))
      .returning({ id: outbox.id });
    if (updated.length === 1 && outcome.kind === "sent" && handler.onSent) await handler.onSent(db, row, now);
    return updated.length === 1;
  };
  return outcome.kind === "sent" && handler.onSent ? deps.db.transaction((tx) => write(tx)) : write(deps.db);
}

/**
 * One round: claims up to `batch` due rows and delivers them, `concurrency` at a time. Returns how
 * many rows were claimed (a full batch means there may be more).
 */
export async function deliverDue(deps: Pick<Deps, "db" | "now" | "log">, handlers: OutboxHandlers, options: { batch?: number; concurrency?: number } = {}): Promise<number> {
  const rows = await claimDue(deps, Object.keys(handlers), options.batch ?? 20);
  const queue = [...rows];
  const worker = async () => {
    for (let row = queue.shift(); row; row = queue.shift()) {
      const handler = handlers[row.kind]!;
      if (!(await renewClaim(deps, row))) {
        deps.log.warn("outbox claim lost while waiting in the batch", { outbox_id: row.id, kind: row.kind });
        continue;
      }
      let outcome: OutboxOutcome;
      try {
        outcome = await handler.deliver(row);
      } catch (error) {
        // An unexpected error is treated as temporary; the reason is kept for the dashboard, and
        // the log names only the row (reasons can carry addresses).
        outcome = { kind: "retry", reason: `internal error: ${messageOf(error)}` };
        deps.log.warn("outbox delivery failed unexpectedly", { outbox_id: row.id, kind: row.kind });
      }
      if (!(await recordOutcome(deps, row, handler, outcome))) deps.log.warn("outbox claim lost before recording", { outbox_id: row.id, kind: row.kind, outcome: outcome.kind });
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 4, rows.length) }, worker));
  return rows.length;
}
