// Rate limits shared by every server process, without a database write per request.
//
// Each process leases units of a window's quota from the database counter in small batches and
// spends them locally. A lease is one atomic UPDATE that never lets the counter pass the limit
// (`count = least(count + n, limit)`, with the grant computed from the same old row), so N
// processes together can never grant more than the limit. The price of batching: units one
// process leased but did not spend before the window ends are not available to the others, so
// near the limit a busy process may be refused a little early — never late. So batching is used
// only where it pays: for limits above 600 per window a lease takes a tenth of what is left (the
// batches shrink as the window fills, which keeps the waste small); for smaller limits — such as
// the tool server's defaults — every lease is one unit, which is exact across processes and costs
// at most `limit` writes per key and window (refusals after the limit cost nothing).
import { sql } from "drizzle-orm";
import { queryRows } from "../db/client.ts";
import type { Db } from "../db/client.ts";
import type { Taken, WindowLimit } from "./fixed-window.ts";

interface LocalLease {
  windowStart: number;
  /** Units leased and not yet spent by this process. */
  available: number;
  /** The database counter after our last lease (what every process together has taken). */
  seen: number;
  /** A lease request in flight, shared by concurrent callers. */
  pending?: Promise<void>;
}

export interface Limiter {
  take(key: string, limit: WindowLimit, now: Date): Promise<Taken>;
}

export const BATCH_ABOVE = 600;

export function leaseSize(limit: number, seen: number): number {
  return limit <= BATCH_ABOVE ? 1 : Math.max(1, Math.floor((limit - seen) / 10));
}

export function createLeasedLimiter(db: Db): Limiter {
  const leases = new Map<string, LocalLease>();

  async function lease(key: string, state: LocalLease, w: WindowLimit) {
    const start = new Date(state.windowStart);
    const end = new Date(state.windowStart + w.windowSeconds * 1000);
    const n = leaseSize(w.limit, state.seen);
    const limit = w.limit;
    const [row] = await queryRows<{ count: number; last_grant: number }>(
      db,
      sql`insert into rate_limit_counters as c (key, window_start, count, last_grant, expires_at)
          values (${key}, ${start.toISOString()}::timestamptz, least(${n}::int, ${limit}::int), least(${n}::int, ${limit}::int), ${end.toISOString()}::timestamptz)
          on conflict (key, window_start) do update
            set count = least(c.count + ${n}::int, ${limit}::int), last_grant = least(c.count + ${n}::int, ${limit}::int) - c.count
          returning count, last_grant`,
    );
    state.available += Number(row!.last_grant);
    state.seen = Number(row!.count);
  }

  return {
    async take(key, w, now) {
      const ms = w.windowSeconds * 1000;
      const windowStart = Math.floor(now.getTime() / ms) * ms;
      let state = leases.get(key);
      if (!state || state.windowStart !== windowStart) {
        state = { windowStart, available: 0, seen: 0 };
        leases.set(key, state);
        if (leases.size > 50_000) for (const [k, v] of leases) if (v.windowStart < windowStart) leases.delete(k);
      }
      while (state.available === 0 && state.seen < w.limit) {
        state.pending ??= lease(key, state, w).finally(() => (state!.pending = undefined));
        await state.pending;
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
  };
}
