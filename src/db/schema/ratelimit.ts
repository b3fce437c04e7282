// Fixed-window counters shared by every server process on one database (src/ratelimit).
import { integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

export const rateLimitCounters = pgTable(
  "rate_limit_counters",
  {
    key: text("key").notNull(),
    windowStart: timestamp("window_start", { withTimezone: true }).notNull(),
    count: integer("count").notNull().default(0),
    /** How many units the last lease took (src/ratelimit/leased.ts reads it back in RETURNING). */
    lastGrant: integer("last_grant").notNull().default(0),
    /** When the row may be deleted: the end of its window. */
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);
