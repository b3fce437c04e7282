// Fixed-window counters in the database, so every server process sharing it sees one count.
// `take` increments atomically and reports whether the caller is still within the limit;
// `refund` gives one back (used by sign-in, which only counts failures).
import { and, eq, lt, sql } from "drizzle-orm";
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

function windowOf(now: Date, windowSeconds: number) {
  const ms = windowSeconds * 1000;
  const start = new Date(Math.floor(now.getTime() / ms) * ms);
  return { start, end: new Date(start.getTime() + ms) };
}

export async function take(db: Db, key: string, w: WindowLimit, now: Date): Promise<Taken> {
  const { start, end } = windowOf(now, w.windowSeconds);
  const [row] = await db
    .insert(rateLimitCounters)
    .values({ key, windowStart: start, count: 1, expiresAt: end })
    .onConflictDoUpdate({
      target: [rateLimitCounters.key, rateLimitCounters.windowStart],
      set: { count: sql`${rateLimitCounters.count} + 1` },
    })
    .returning({ count: rateLimitCounters.count });
  const count = row!.count;
  return {
    allowed: count <= w.limit,
    count,
    limit: w.limit,
    retryAfter: Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000)),
    resetAt: end,
  };
}

export async function refund(db: Db, key: string, w: WindowLimit, now: Date): Promise<void> {
  const { start } = windowOf(now, w.windowSeconds);
  await db
    .update(rateLimitCounters)
    .set({ count: sql`greatest(${rateLimitCounters.count} - 1, 0)` })
    .where(and(eq(rateLimitCounters.key, key), eq(rateLimitCounters.windowStart, start)));
}

export async function deleteExpiredCounters(db: Db, now: Date): Promise<void> {
  await db.delete(rateLimitCounters).where(lt(rateLimitCounters.expiresAt, now));
}
