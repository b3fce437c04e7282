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
//   fair    which due rows a claim takes is decided by rank, not age alone: the oldest due row of
//           every (org, lane) first (a lane is what a kind shares slots by: a webhook's endpoint),
//           then every second oldest, and so on, with the rows already in flight (`sending`,
//           lease running, in any process) counted first. Caps on rows in flight per lane and per
//           org leave a slow or dead receiver only its own slots (docs/decisions.md "The outbox").
//   record  UPDATE … WHERE id = ? AND claim_token = ?: only the claim's holder records; a sender
//           whose lease expired (and whose row another sender took) cannot overwrite the outcome.
//
// A pool (createOutboxPool) delivers one set of kinds with its own concurrency: mail and webhooks
// have one each (src/compose.ts createSender), so neither waits for the other. A pool claims only as many
// rows as it has free slots and refills as deliveries end, so a row never waits behind a slow one
// in a batch.
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
import { releaseClaims } from "./release.ts";

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
export async function enqueue(db: Db | Tx, row: { orgId: string; kind: string; lane?: string; payload: Record<string, unknown>; runAt: Date; now: Date }): Promise<string> {
  const [inserted] = await db
    .insert(outbox)
    .values({ orgId: row.orgId, kind: row.kind, lane: row.lane ?? null, payload: row.payload, status: "pending", runAt: row.runAt, createdAt: row.now, updatedAt: row.now })
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

/** How many rows may be in flight at once (counted across processes: `sending` with a running lease). */
export interface ClaimCaps {
  /** Per (org, lane): a webhook endpoint's own slots. Default: no cap beyond the claim's limit. */
  lane?: number;
  /** Per org, over all its lanes. Default: no cap beyond the claim's limit. */
  org?: number;
}

/**
 * Claims up to `limit` due rows of the given kinds for this sender, fairly: ranked by how many
 * rows of the same (org, lane) and then of the same org are in flight or due before them (so the
 * oldest due row of every lane comes before the second oldest of any), oldest first among equal
 * ranks; rows past a cap are left for later.
 *
 * The ranking reads a snapshot; the locking SELECT re-checks each row (FOR UPDATE SKIP LOCKED
 * re-reads a row another sender changed since), so two senders never claim one row. Two senders
 * ranking at the same instant can each see the other's fresh claims as due, so a cap can be
 * exceeded by at most what concurrent claims take in that instant (it is a fairness bound, not a
 * lock).
 */
export async function claimDue(deps: Pick<Deps, "db" | "now">, kinds: string[], limit: number, caps: ClaimCaps = {}): Promise<OutboxRow[]> {
  if (kinds.length === 0 || limit <= 0) return [];
  const now = deps.now();
  const at = sql`${now.toISOString()}::timestamptz`;
  const kindList = sql.join(
    kinds.map((k) => sql`${k}`),
    sql`, `,
  );
  const laneCap = Math.min(caps.lane ?? 1_000_000, 1_000_000);
  const orgCap = Math.min(caps.org ?? 1_000_000, 1_000_000);
  const isDue = or(and(eq(outbox.status, "pending"), lte(outbox.runAt, at)), and(eq(outbox.status, "sending"), lte(outbox.lockedUntil, at)));
  // Window functions cannot sit under FOR UPDATE, so the ranking is a subquery of ids and the
  // locking SELECT around it checks each row again.
  const ranked = sql`
    with busy_lane as (
      select org_id, kind, coalesce(lane, '') as lane, count(*) as n from outbox
      where kind in (${kindList}) and status = 'sending' and locked_until > ${at}
      group by org_id, kind, coalesce(lane, '')
    ), busy_org as (
      select org_id, sum(n) as n from busy_lane group by org_id
    ), due as (
      select o.id, o.org_id, o.run_at, b.n as busy,
        row_number() over (partition by o.org_id, o.kind, coalesce(o.lane, '') order by o.run_at, o.id) as rn
      from outbox o left join busy_lane b on b.org_id = o.org_id and b.kind = o.kind and b.lane = coalesce(o.lane, '')
      where o.kind in (${kindList})
        and ((o.status = 'pending' and o.run_at <= ${at}) or (o.status = 'sending' and o.locked_until <= ${at}))
    ), lanes_capped as (
      select d.id, d.run_at, d.rn + coalesce(d.busy, 0) as lane_rank,
        row_number() over (partition by d.org_id order by d.rn + coalesce(d.busy, 0), d.run_at, d.id) + coalesce(b.n, 0) as org_rank
      from due d left join busy_org b on b.org_id = d.org_id
      where d.rn <= ${limit} and d.rn + coalesce(d.busy, 0) <= ${laneCap}
    )
    select id from lanes_capped where org_rank <= ${orgCap}
    order by org_rank, lane_rank, run_at, id
    limit ${limit}`;
  const chosen = deps.db
    .select({ id: outbox.id })
    .from(outbox)
    .where(and(sql`${outbox.id} in (${ranked})`, isDue))
    .for("update", { skipLocked: true });
  return deps.db
    .update(outbox)
    .set({ status: "sending", attempts: sql`${outbox.attempts} + 1`, claimToken: sql`gen_random_uuid()`, lockedUntil: new Date(now.getTime() + OUTBOX_LEASE_MS), updatedAt: now })
    .where(inArray(outbox.id, chosen))
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

/** Delivers one claimed row: renews the claim, runs the kind's handler, records the outcome. */
export async function deliverClaimed(deps: Pick<Deps, "db" | "now" | "log" | "metrics">, handler: OutboxHandler, row: OutboxRow): Promise<void> {
  if (!(await renewClaim(deps, row))) {
    deps.log.warn("outbox claim lost while waiting in the batch", { outbox_id: row.id, kind: row.kind });
    return;
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
  deps.metrics.outboxAttempt(row.kind, outcome.kind);
  if (!(await recordOutcome(deps, row, handler, outcome))) deps.log.warn("outbox claim lost before recording", { outbox_id: row.id, kind: row.kind, outcome: outcome.kind });
}

export interface OutboxPoolOptions {
  /** Rows delivered at once by this pool in this process. */
  concurrency: number;
  /** Rows in flight per (org, lane) and per org, across processes (ClaimCaps). */
  caps?: ClaimCaps;
  /** Most rows one claim takes (default: the free slots). */
  batch?: number;
}

/**
 * Delivers the outbox rows of `handlers`' kinds with `concurrency` slots. `pump` claims rows for
 * the free slots and starts them; each delivery that ends frees its slot and the pool claims
 * again (once half the slots are free, or none is busy), so due rows keep flowing between the
 * loop's ticks and one slow delivery holds only its own slot.
 */
export interface OutboxPool {
  /** Claims rows for the free slots and starts delivering them; resolves once claimed, not delivered. */
  pump(): Promise<void>;
  /** Resolves when nothing is in flight and no claim is running (refills included). */
  idle(): Promise<void>;
  /** Stops refilling and waits for the deliveries in flight. */
  stop(): Promise<void>;
  readonly inFlight: number;
}

export function createOutboxPool(deps: Pick<Deps, "db" | "now" | "log" | "metrics">, handlers: OutboxHandlers, options: OutboxPoolOptions): OutboxPool {
  const kinds = Object.keys(handlers);
  const concurrency = Math.max(1, options.concurrency);
  const refillAt = Math.max(1, Math.ceil(concurrency / 2));
  let inFlight = 0;
  let claiming: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const waiters: (() => void)[] = [];
  const settle = () => {
    if (inFlight === 0 && !claiming) for (const resolve of waiters.splice(0)) resolve();
  };
  const refill = () => {
    if (!stopped) pump().catch((error) => deps.log.warn("outbox claim failed", { kinds, error: messageOf(error) }));
  };
  const start = (row: OutboxRow) => {
    inFlight++;
    deliverClaimed(deps, handlers[row.kind]!, row)
      .catch((error) => deps.log.warn("outbox delivery could not be recorded", { outbox_id: row.id, kind: row.kind, error: messageOf(error) }))
      .finally(() => {
        inFlight--;
        if (inFlight === 0 || concurrency - inFlight >= refillAt) refill();
        settle();
      });
  };
  const pump = (): Promise<void> => {
    if (claiming) {
      // A claim is running: run another right after it, for the slots freed meanwhile.
      again = true;
      return claiming;
    }
    claiming = (async () => {
      await null; // `claiming` is assigned before this body can end
      try {
        do {
          again = false;
          const free = concurrency - inFlight;
          if (free <= 0) break;
          const rows = await claimDue(deps, kinds, Math.min(free, options.batch ?? free), options.caps);
          // Stopped while claiming: the rows go back at once for another instance (src/outbox/release.ts).
          if (stopped) await releaseClaims(deps, rows);
          else for (const row of rows) start(row);
        } while (again && !stopped);
      } finally {
        claiming = undefined;
        settle();
      }
    })();
    return claiming;
  };
  return {
    pump,
    idle: () => {
      const done = new Promise<void>((resolve) => waiters.push(resolve));
      settle();
      return done;
    },
    async stop() {
      stopped = true;
      const done = new Promise<void>((resolve) => waiters.push(resolve));
      settle();
      await done;
    },
    get inFlight() {
      return inFlight;
    },
  };
}
