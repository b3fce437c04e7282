// The durable outbox (docs/decisions.md "The outbox"): work that must leave the service — an
// email, a webhook delivery — is written here as one row, in the same
// transaction as the change that causes it, and a sender loop delivers it. Generic on purpose:
// a row is a `kind` and a JSON `payload`; src/outbox/claim.ts claims, retries and records, and a
// handler per kind does the delivery. Written only by src/outbox/ and the handlers it calls.
import { sql } from "drizzle-orm";
import { bigserial, check, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";

/**
 * pending: waiting for `run_at`; sending: claimed by a sender until `locked_until`; parked: held
 * back until released (a paused campaign); sent: delivered; held: not sent, on purpose, for good
 * (`last_error` says why, e.g. no SMTP configured); failed: gave up (permanent error or attempts
 * exhausted); cancelled: no longer wanted (customer removed or unsubscribed, campaign archived).
 */
export type OutboxStatus = "pending" | "sending" | "parked" | "sent" | "held" | "failed" | "cancelled";

export const outbox = pgTable(
  "outbox",
  {
    /** Also the stable identity of the delivery (the mail Message-ID; a webhook-id later). */
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    /**
     * What the kind shares its delivery slots by within an org (a webhook's endpoint id; a series
     * email's enrolment id): the claim takes the oldest due row of each (org, lane) in turn and caps
     * the rows in flight per lane, so one slow receiver holds only its own slots; for an ordered
     * kind (mail) a lane is also a queue, delivered one row at a time (docs/decisions.md "The outbox").
     */
    lane: text("lane"),
    /** Enqueue order: within an ordered lane, a row waits for every row with a lower `seq`. */
    seq: bigserial("seq", { mode: "number" }).notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    status: text("status").$type<OutboxStatus>().notNull().default("pending"),
    /** When the row is next due (first attempt or retry). */
    runAt: timestamp("run_at", { withTimezone: true }).notNull(),
    /** Attempts started so far (a claim counts as one). */
    attempts: integer("attempts").notNull().default(0),
    /** A claim's fencing token: only the sender holding it may record the outcome. */
    claimToken: uuid("claim_token"),
    /** A claim's lease: after it a crashed sender's row is claimed again (the at-least-once window). */
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    /** Why the last attempt failed, or why the row was held, failed or cancelled. Never customer data. */
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
    /** When it was sent, held, failed or cancelled. */
    doneAt: timestamp("done_at", { withTimezone: true }),
  },
  (t) => [
    index("outbox_due_idx").on(t.status, t.runAt),
    index("outbox_lease_idx").on(t.status, t.lockedUntil),
    index("outbox_kind_due_idx").on(t.kind, t.status, t.runAt),
    index("outbox_org_kind_idx").on(t.orgId, t.kind, t.createdAt),
    index("outbox_lane_order_idx").on(t.kind, t.lane, t.seq),
    check("outbox_status_check", sql`${t.status} in ('pending', 'sending', 'parked', 'sent', 'held', 'failed', 'cancelled')`),
  ],
);
