// The email channel of tickets (README "Email channel"): reply addresses, inbound messages kept
// for members to expand (and to store a redelivered message once), each org's support alias, and
// members' notification choices. Every row carries org_id; every query filters on it.
import { sql } from "drizzle-orm";
import { boolean, check, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { members, orgs } from "./core.ts";
import { ticketMessages, tickets } from "./inbox.ts";
import { endUsers } from "./workspace.ts";

/**
 * The `reply+<token>@<inbound domain>` addresses put in Reply-To (docs/interface.md H, VERP-style): one
 * random token per email sent, only its SHA-256 stored; it routes mail back to one ticket and
 * customer until `expires_at`. Written only by src/inbox/.
 */
export const ticketReplyTokens = pgTable(
  "ticket_reply_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    ticketId: uuid("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    endUserId: uuid("end_user_id").references(() => endUsers.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("ticket_reply_tokens_ticket_idx").on(t.ticketId)],
);

export interface InboundAttachment {
  name: string;
  size: number;
  content_type: string;
}

/**
 * Every email that became a customer message: its Message-ID (unique per org, so a redelivered
 * message is stored once), and the full original text, which members may expand (the ticket
 * message holds the reply without its quoted history). Attachments are listed, never stored.
 * Written only by src/mail-in/.
 */
export const ticketInboundEmails = pgTable(
  "ticket_inbound_emails",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    ticketId: uuid("ticket_id").references(() => tickets.id, { onDelete: "cascade" }),
    ticketMessageId: uuid("ticket_message_id").references(() => ticketMessages.id, { onDelete: "cascade" }),
    /** The RFC 5322 Message-ID with its angle brackets, as sent. */
    messageId: text("message_id").notNull(),
    fromAddress: text("from_address").notNull(),
    /** Whether From is the address of the customer the message was filed under (false: someone else wrote to a reply address). */
    fromCustomer: boolean("from_customer").notNull().default(true),
    /** SPF, DKIM and DMARC as checked on receipt: an RFC 8601 Authentication-Results value, and DMARC's result alone. */
    authResults: text("auth_results").notNull().default(""),
    dmarc: text("dmarc").notNull().default("none"),
    /**
     * The ticket this message claimed to answer (In-Reply-To/References) when it was not let in
     * there because its sender was not authenticated (DMARC did not pass): members see the link.
     */
    claimedTicketId: uuid("claimed_ticket_id").references(() => tickets.id, { onDelete: "set null" }),
    subject: text("subject").notNull(),
    original: text("original").notNull(),
    attachments: jsonb("attachments").$type<InboundAttachment[]>().notNull().default([]),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex("ticket_inbound_emails_message_idx").on(t.orgId, t.messageId), index("ticket_inbound_emails_ticket_message_idx").on(t.ticketMessageId)],
);

/** Each org's support alias: `<alias>@<INBOUND_EMAIL_DOMAIN>` opens a ticket. Unique across orgs. Written only by src/mail-in/. */
export const orgMailSettings = pgTable(
  "org_mail_settings",
  {
    orgId: uuid("org_id")
      .primaryKey()
      .references(() => orgs.id, { onDelete: "cascade" }),
    supportAlias: text("support_alias"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (t) => [uniqueIndex("org_mail_settings_alias_idx").on(t.supportAlias)],
);

export type MemberNotifyMode = "full" | "notify_only" | "off";

/** A member's choice of email when a customer writes (default `full` when no row). Written only by src/inbox/. */
export const memberMailNotifications = pgTable(
  "member_mail_notifications",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    memberId: uuid("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    mode: text("mode").$type<MemberNotifyMode>().notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.memberId] }), check("member_mail_notifications_mode_check", sql`${t.mode} in ('full', 'notify_only', 'off')`)],
);

/** When a member was last emailed about a ticket: the throttle of notifications. Written only by src/inbox/. */
export const ticketMemberNotices = pgTable(
  "ticket_member_notices",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    ticketId: uuid("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    memberId: uuid("member_id")
      .notNull()
      .references(() => members.id, { onDelete: "cascade" }),
    lastQueuedAt: timestamp("last_queued_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.ticketId, t.memberId] })],
);
