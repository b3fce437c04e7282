// The durable outbox (docs/decisions.md "The outbox"): work that must reach another system — a
// mail, a webhook — written as a row in the same transaction as the change that causes it, then
// delivered by a handler for its `kind`. Mail is the first kind; webhooks plug in the same way
// (src/compose.ts gives each kind's handler to the sender). This module holds what the kinds
// share — the row, the outcome a handler reports, the handler — and the writes a feature makes in
// its own transaction: enqueue, drop, park, release, cancel. Claiming and recording an attempt are
// in src/outbox/claim.ts, the delivery pools in src/outbox/pool.ts, the loop in src/outbox/loop.ts.
//
// At-least-once: a row recorded as `sent` is never claimed again. A sender killed after the
// receiver accepted the message but before it recorded `sent` leaves the row `sending`; when the
// lease expires it is claimed and delivered again, with the same identity (Message-ID, webhook-id)
// so the receiver can recognise the duplicate. That window is one delivery's length
// (docs/decisions.md). A sender that is alive but cannot reach the database when the delivery ends
// keeps the outcome and records it once it can, within its lease (src/outbox/pool.ts).
import { and, eq, inArray, lte, or, type SQLWrapper } from "drizzle-orm";
import type { Db, Tx } from "../db/client.ts";
import { outbox } from "../db/schema/index.ts";

export type OutboxRow = typeof outbox.$inferSelect;

/**
 * What a handler reports about one delivery attempt. `record` holds the writes that belong with
 * the outcome (a webhook's attempt log): made in the transaction that records it, only while this
 * sender holds the claim, and retried with it while the database is away (src/outbox/pool.ts) —
 * so a handler writes nothing between the receiver's answer and the outcome.
 */
export type OutboxOutcome = OutboxResult & { record?: (tx: Db | Tx, now: Date) => Promise<void> };

type OutboxResult =
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
  /**
   * Each lane is a queue: a row is not claimed while a row of its lane enqueued before it is still
   * unfinished (pending, sending or parked), so the receiver gets them in order and the next only
   * after the previous was accepted (or given up). The queue is shared by every ordered kind of the
   * pool that uses the lane (a ticket's reply and rating emails). Rows without a lane are not
   * ordered. Default false.
   */
  ordered?: boolean;
  /** Each wait is stretched by a random factor in [1, 1 + jitter), so retries of many rows spread out (webhooks). Default 0. */
  jitter?: number;
  deliver(row: OutboxRow): Promise<OutboxOutcome>;
  /** Runs in the transaction that records a `sent` outcome, so what it writes (a webhook event) commits with it or not at all. */
  onSent?(tx: Db | Tx, row: OutboxRow, now: Date): Promise<void>;
}

export type OutboxHandlers = Readonly<Record<string, OutboxHandler>>;

// ---------- writing rows: always inside the caller's transaction, so a row exists exactly when the change that caused it commits ----------

/** Adds a row due at `runAt`; returns its id (the delivery's stable identity). */
export async function enqueue(
  db: Db | Tx,
  row: { orgId: string; kind: string; lane?: string; payload: Record<string, unknown>; runAt: Date; now: Date },
): Promise<string> {
  const [inserted] = await db
    .insert(outbox)
    .values({
      orgId: row.orgId,
      kind: row.kind,
      lane: row.lane ?? null,
      payload: row.payload,
      status: "pending",
      runAt: row.runAt,
      createdAt: row.now,
      updatedAt: row.now,
    })
    .returning({ id: outbox.id });
  return inserted!.id;
}

/** Removes a row enqueued in this same transaction that turned out to be unwanted (never claimed). */
export async function dropEnqueued(db: Db | Tx, id: string): Promise<void> {
  await db.delete(outbox).where(and(eq(outbox.id, id), eq(outbox.status, "pending"), eq(outbox.attempts, 0)));
}

/** Parks the pending rows among `ids` (a subquery of outbox ids): no sender claims them until released. */
export async function parkPending(db: Db | Tx, ids: SQLWrapper, reason: string, now: Date): Promise<void> {
  await db
    .update(outbox)
    .set({ status: "parked", lastError: reason, updatedAt: now })
    .where(and(eq(outbox.status, "pending"), inArray(outbox.id, ids)));
}

/** Replaces a row's payload (a kind that carried a secret for the delivery drops it once delivered). */
export async function replacePayload(db: Db | Tx, id: string, payload: Record<string, unknown>, now: Date): Promise<void> {
  await db.update(outbox).set({ payload, updatedAt: now }).where(eq(outbox.id, id));
}

/** Makes the parked rows among `ids` due now. */
/** Makes a waiting row (pending, parked, or `sending` under a lease that ran out) due now, keeping its attempts: a retry brought forward. */
export async function dueNow(db: Db | Tx, id: string, now: Date): Promise<void> {
  const waiting = or(inArray(outbox.status, ["pending", "parked"]), and(eq(outbox.status, "sending"), lte(outbox.lockedUntil, now)));
  await db
    .update(outbox)
    .set({ status: "pending", runAt: now, claimToken: null, lockedUntil: null, updatedAt: now })
    .where(and(eq(outbox.id, id), waiting));
}

export async function releaseParked(db: Db | Tx, ids: SQLWrapper, now: Date): Promise<void> {
  await db
    .update(outbox)
    .set({ status: "pending", runAt: now, lastError: null, updatedAt: now })
    .where(and(eq(outbox.status, "parked"), inArray(outbox.id, ids)));
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
