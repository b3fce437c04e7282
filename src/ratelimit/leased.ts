// The one rate limiter (docs/decisions.md): window counters in the database, shared by every
// server process, without a database write per request where limits are large.
//
// Each process leases units of a window's quota from the database counter and spends them
// locally. A lease is one atomic UPDATE that never lets the counter pass the limit
// (`count = least(count + n, limit)`, with the grant computed from the same old row), so N
// processes together can never grant more than the limit. The price of batching: units one
// process leased but did not spend before the window ends are not available to the others, so
// near the limit a busy process may be refused a little early — never late. So batching is used
// only where it pays: for limits above 600 per window a lease takes a tenth of what is left (the
// batches shrink as the window fills, which keeps the waste small); for smaller limits — the tool
// server's, sign-in's, registration's — every lease is one unit, which is exact across processes
// and costs at most `limit` writes per key and window.
//
// Once a process has seen a counter full it refuses without a query, re-checking the database at
// most once per RECHECK_MS: `refund` (sign-in gives a successful attempt's slot back) may have
// made room, perhaps through another process.
import { and, eq, lt, sql } from "drizzle-orm";
import { queryRows } from "../db/client.ts";
import type { Db } from "../db/client.ts";
import { rateLimitCounters } from "../db/schema/index.ts";

export interface WindowLimit {
  limit: number;
  windowSeconds: number;
}

export interface Taken {
  allowed: boolean;
  count: number;
  limit: number;
  /** Seconds until the window resets (≥ 1). */
  retryAfter: number;
  resetAt: Date;
}

interface LocalLease {
  windowStart: number;
  /** Units leased and not yet spent by this process. */
  available: number;
  /** The database counter after our last lease (what every process together has taken). */
  seen: number;
  /** When this process last asked the database (ms, the caller's clock). */
  checkedAt: number;
  /** A lease request in flight, shared by concurrent callers. */
  pending?: Promise<void>;
}

export interface Limiter {
  take(key: string, limit: WindowLimit, now: Date): Promise<Taken>;
  /** Gives one unit of the current window back (never below zero). */
  refund(key: string, limit: WindowLimit, now: Date): Promise<void>;
}

export const BATCH_ABOVE = 600;
/** How stale a process's "this counter is full" may be. */
export const RECHECK_MS = 1000;

export function leaseSize(limit: number, seen: number): number {
  return limit <= BATCH_ABOVE ? 1 : Math.max(1, Math.floor((limit - seen) / 10));
}

function windowStartOf(now: Date, windowSeconds: number): number {
  const ms = windowSeconds * 1000;
  return Math.floor(now.getTime() / ms) * ms;
}

export function createLeasedLimiter(db: Db): Limiter {
  const leases = new Map<string, LocalLease>();

  async function lease(key: string, state: LocalLease, w: WindowLimit, now: number) {
    const start = new Date(state.windowStart);
    const end = new Date(state.windowStart + w.windowSeconds * 1000);
    const n = leaseSize(w.limit, state.seen);
    const limit = w.limit;
    state.checkedAt = now;
    const [row] = await queryRows<{ count: number; last_grant: number }>(
      db,
      sql`insert into rate_limit_counters as c (key, window_start, count, last_grant, expires_at)
          values (${key}, ${start.toISOString()}::timestamptz, least(${n}::int, ${limit}::int), least(${n}::int, ${limit}::int),
            ${end.toISOString()}::timestamptz)
          on conflict (key, window_start) do update
            set count = least(c.count + ${n}::int, ${limit}::int), last_grant = greatest(least(c.count + ${n}::int, ${limit}::int) - c.count, 0)
          returning count, last_grant`,
    );
    state.available += Number(row!.last_grant);
    state.seen = Number(row!.count);
  }

  return {
    async take(key, w, now) {
      const ms = w.windowSeconds * 1000;
      const windowStart = windowStartOf(now, w.windowSeconds);
      let state = leases.get(key);
      if (!state || state.windowStart !== windowStart) {
        state = { windowStart, available: 0, seen: 0, checkedAt: -Infinity };
        leases.set(key, state);
        if (leases.size > 50_000) for (const [k, v] of leases) if (v.windowStart < windowStart) leases.delete(k);
      }
      const at = now.getTime();
      while (state.available === 0 && (state.seen < w.limit || at - state.checkedAt >= RECHECK_MS)) {
        state.pending ??= lease(key, state, w, at).finally(() => (state!.pending = undefined));
        await state.pending;
        if (state.available === 0 && state.seen >= w.limit) break; // full: asked just now
      }
      const allowed = state.available > 0;
      if (allowed) state.available--;
      const resetAt = new Date(windowStart + ms);
      return {
        allowed,
        // What is left for everyone: the quota not yet leased plus what this process still holds.
        count: allowed ? state.seen - state.available : w.limit + 1,
        limit: w.limit,
        retryAfter: Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000)),
        resetAt,
      };
    },

    async refund(key, w, now) {
      const windowStart = windowStartOf(now, w.windowSeconds);
      await db
        .update(rateLimitCounters)
        .set({ count: sql`greatest(${rateLimitCounters.count} - 1, 0)` })
        .where(and(eq(rateLimitCounters.key, key), eq(rateLimitCounters.windowStart, new Date(windowStart))));
      const state = leases.get(key);
      if (state && state.windowStart === windowStart) state.seen = Math.max(0, state.seen - 1);
    },
  };
}

/** Housekeeping: counters of windows that have ended. */
export async function deleteExpiredCounters(db: Db, now: Date): Promise<void> {
  await db.delete(rateLimitCounters).where(lt(rateLimitCounters.expiresAt, now));
}
