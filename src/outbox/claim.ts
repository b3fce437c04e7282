// Claiming due outbox rows and recording what became of them, generic over kinds:
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
//   renew   just before delivering, the claim is renewed by compare-and-set on its token.
//   order   for ordered kinds (mail) a lane is a queue: a row waits until every row of an ordered
//           kind enqueued before it in its lane (`seq`) is finished, so a customer's emails arrive
//           in order — across kinds too, when they share a lane (a ticket's reply, then its rating
//           email: docs/decisions.md "The rating email follows the reply").
//   record  UPDATE … WHERE id = ? AND claim_token = ?: only the claim's holder records; a sender
//           whose lease expired (and whose row another sender took) cannot overwrite the outcome.
//
// The rows and handlers are described in src/outbox/outbox.ts; src/outbox/pool.ts calls these.
import { and, eq, inArray, lte, or, sql } from "drizzle-orm";
import type { Db, Tx } from "../db/client.ts";
import { outbox, type OutboxStatus } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import type { OutboxHandler, OutboxOutcome, OutboxRow } from "./outbox.ts";

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
export async function claimDue(
  deps: Pick<Deps, "db" | "now">,
  kinds: string[],
  limit: number,
  caps: ClaimCaps = {},
  ordered: readonly string[] = [],
): Promise<OutboxRow[]> {
  if (kinds.length === 0 || limit <= 0) return [];
  const now = deps.now();
  const at = sql`${now.toISOString()}::timestamptz`;
  const list = (values: readonly string[]) =>
    sql.join(
      values.map((k) => sql`${k}`),
      sql`, `,
    );
  const kindList = list(kinds);
  // Ordered kinds (OutboxHandler.ordered): a row waits while an earlier row of an ordered kind in
  // its lane is unfinished (the lane is one queue for all of them). Unfinished only ever becomes finished, so a row this ranking lets through stays
  // eligible until the locking SELECT below takes it.
  const inOrder =
    ordered.length === 0
      ? sql``
      : sql`and not (o.kind in (${list(ordered)}) and o.lane is not null and exists (
          select 1 from outbox p
          where p.kind in (${list(ordered)}) and p.lane = o.lane and p.org_id = o.org_id and p.seq < o.seq and p.status in ('pending', 'sending', 'parked')))`;
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
        ${inOrder}
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
    .set({
      status: "sending",
      attempts: sql`${outbox.attempts} + 1`,
      claimToken: sql`gen_random_uuid()`,
      lockedUntil: new Date(now.getTime() + OUTBOX_LEASE_MS),
      updatedAt: now,
    })
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

/** Records an attempt's outcome, with its `record` writes and the kind's `onSent`; false when this sender no longer holds the claim. */
export async function recordOutcome(deps: Pick<Deps, "db" | "now">, row: OutboxRow, handler: OutboxHandler, outcome: OutboxOutcome): Promise<boolean> {
  const now = deps.now();
  let set: Partial<typeof outbox.$inferInsert>;
  if (outcome.kind === "retry") {
    const wait = handler.retrySchedule[row.attempts - 1];
    set =
      wait === undefined
        ? { status: "failed", lastError: `gave up after ${row.attempts} attempts: ${outcome.reason}`.slice(0, 1000), doneAt: now }
        : {
            status: "pending",
            runAt: new Date(now.getTime() + wait * 1000 * (1 + Math.random() * (handler.jitter ?? 0))),
            lastError: outcome.reason.slice(0, 1000),
          };
  } else if (outcome.kind === "sent") set = { status: "sent", lastError: null, doneAt: now };
  else if (outcome.kind === "parked") set = { status: "parked", lastError: outcome.reason.slice(0, 1000) };
  else set = { status: outcome.kind satisfies OutboxStatus, lastError: outcome.reason.slice(0, 1000), doneAt: now };
  const write = async (db: Db | Tx) => {
    const updated = await db
      .update(outbox)
      .set({ ...set, claimToken: null, lockedUntil: null, updatedAt: now })
      .where(and(eq(outbox.id, row.id), eq(outbox.claimToken, row.claimToken!)))
      .returning({ id: outbox.id });
    if (updated.length !== 1) return false;
    await outcome.record?.(db, now);
    if (outcome.kind === "sent") await handler.onSent?.(db, row, now);
    return true;
  };
  return outcome.record || (outcome.kind === "sent" && handler.onSent) ? deps.db.transaction((tx) => write(tx)) : write(deps.db);
}
