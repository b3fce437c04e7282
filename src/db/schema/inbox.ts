// The support inbox: tickets, their thread of messages and their history. Every row
// carries org_id; every query filters on it. Written only by src/inbox/ (one owner per table).
import { sql } from "drizzle-orm";
import { bigint, boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { members, orgs } from "./core.ts";
import { endUsers } from "./workspace.ts";

export type TicketStatus = "open" | "pending" | "resolved" | "closed";
export type TicketPriority = "low" | "normal" | "high" | "urgent";
export type TicketSource = "widget" | "api" | "chat" | "mcp" | "email";
export type TicketMessageKind = "customer" | "reply" | "note";
/** Who did something: a dashboard member, an OAuth token (acting for its member), the AI agent, the customer, or the service itself. */
export type TicketActorKind = "member" | "token" | "agent" | "customer" | "system";
/** Why a chat handed a conversation to people (README "Reports"): the customer asked, a routing rule, low confidence, frustration. */
export type HandoffReason = "live_help" | "routing_rule" | "low_confidence" | "frustration";
/** Who a rated ticket was answered by: a person replied on it, or only the AI did. */
export type CsatHandledBy = "person" | "ai";

/**
 * The last ticket number handed out per org. Allocating is one upsert that takes the row lock
 * (`INSERT … ON CONFLICT DO UPDATE … RETURNING`) in the ticket's own transaction, so concurrent
 * creations in one org queue on that row and never get the same number, on PostgreSQL and PGlite alike.
 */
export const ticketCounters = pgTable("ticket_counters", {
  orgId: uuid("org_id")
    .primaryKey()
    .references(() => orgs.id, { onDelete: "cascade" }),
  lastNumber: integer("last_number").notNull(),
});

export const tickets = pgTable(
  "tickets",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    /** Per org, from 1: what the customer and the team call the ticket ("#42"). */
    number: integer("number").notNull(),
    subject: text("subject").notNull(),
    status: text("status").$type<TicketStatus>().notNull().default("open"),
    priority: text("priority").$type<TicketPriority>().notNull().default("normal"),
    team: text("team"),
    assigneeMemberId: uuid("assignee_member_id").references(() => members.id, { onDelete: "set null" }),
    tags: text("tags").array().notNull().default(sql`'{}'::text[]`),
    source: text("source").$type<TicketSource>().notNull(),
    /** The customer's language (ISO 639-1, src/kit/language.ts); null: not known. */
    language: text("language"),
    endUserId: uuid("end_user_id").references(() => endUsers.id, { onDelete: "set null" }),
    /** The conversation it came from (owned by src/conversations/): a plain uuid, no foreign key. */
    conversationId: uuid("conversation_id"),
    /** Whether the customer's identity was verified (identity verification, docs/interface.md 5) when the ticket was opened. */
    verified: boolean("verified").notNull().default(false),
    customFields: jsonb("custom_fields").$type<Record<string, unknown>>().notNull().default({}),
    /** Why the chat opened it (null for a ticket that did not come from a chat hand-off). */
    handoffReason: text("handoff_reason").$type<HandoffReason>(),
    /** The customer's rating (1–5) once asked at resolution, with the optional comment (README "CSAT"). */
    csatScore: integer("csat_score"),
    csatComment: text("csat_comment"),
    csatHandledBy: text("csat_handled_by").$type<CsatHandledBy>(),
    csatAt: timestamp("csat_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("tickets_org_number_idx").on(t.orgId, t.number),
    index("tickets_org_created_idx").on(t.orgId, t.createdAt),
    index("tickets_org_status_idx").on(t.orgId, t.status, t.number),
    index("tickets_org_end_user_idx").on(t.orgId, t.endUserId),
    index("tickets_org_assignee_idx").on(t.orgId, t.assigneeMemberId),
    check("tickets_status_check", sql`${t.status} in ('open', 'pending', 'resolved', 'closed')`),
    check("tickets_priority_check", sql`${t.priority} in ('low', 'normal', 'high', 'urgent')`),
    check("tickets_csat_score_check", sql`${t.csatScore} between 1 and 5`),
  ],
);

/** The thread: customer messages, replies (by a member or an AI agent) and internal notes (never shown to the customer). */
export const ticketMessages = pgTable(
  "ticket_messages",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** Insertion order: the thread's order even when two messages share a timestamp. */
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    ticketId: uuid("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    kind: text("kind").$type<TicketMessageKind>().notNull(),
    body: text("body").notNull(),
    authorKind: text("author_kind").$type<TicketActorKind>().notNull(),
    authorMemberId: uuid("author_member_id").references(() => members.id, { onDelete: "set null" }),
    /** The AI agent that wrote a reply (no foreign key: the message outlives the agent). */
    authorAgentId: uuid("author_agent_id"),
    /** The OAuth client whose token wrote it. */
    authorClientId: text("author_client_id"),
    /** For customer messages: whether the sender's identity was verified. */
    verified: boolean("verified").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** When its email was accepted by our SMTP server (a person's reply): later emails thread only on messages the customer has. */
    emailedAt: timestamp("emailed_at", { withTimezone: true }),
    /**
     * A customer message that arrived by email: its From address as received, and whether it was the
     * address of the customer the message is filed under (false: someone else wrote to a reply
     * address). Null for every other message. A From header proves nothing (README "Email channel").
     */
    emailFrom: text("email_from"),
    fromCustomer: boolean("from_customer"),
  },
  (t) => [index("ticket_messages_ticket_idx").on(t.ticketId, t.seq), check("ticket_messages_kind_check", sql`${t.kind} in ('customer', 'reply', 'note')`)],
);

/** Every change to a ticket: who, what, when, before and after. Append-only. */
export const ticketHistory = pgTable(
  "ticket_history",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** Insertion order (several entries of one change share a timestamp). */
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    ticketId: uuid("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    actorKind: text("actor_kind").$type<TicketActorKind>().notNull(),
    actorMemberId: uuid("actor_member_id").references(() => members.id, { onDelete: "set null" }),
    actorTokenId: text("actor_token_id"),
    actorClientId: text("actor_client_id"),
    actorAgentId: uuid("actor_agent_id"),
    /** A system actor's name (e.g. "scheduler"), or the customer's end-user id. */
    actorName: text("actor_name"),
    /** `created`, `status`, `priority`, `team`, `assignee`, `tags`, `customer_message`, `reply`, `note`. */
    action: text("action").notNull(),
    before: jsonb("before"),
    after: jsonb("after"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("ticket_history_ticket_idx").on(t.ticketId, t.seq)],
);

/**
 * What a ticket's customer (and its team) may be told happened, in commit order per conversation:
 * the rows behind GET /api/sdk/conversations/{session_id}/events. `seq` is the event id a client
 * resumes from (`Last-Event-ID`), so a stream resumes after a restart or on another instance.
 * Writers hold a transaction-scoped advisory lock on the conversation (or, without one, the
 * ticket) from before the insert until commit, so within one conversation a higher `seq` never
 * commits before a lower one and a reader that saw `seq` n has seen every event before it.
 */
export type TicketEventType = "message" | "ticket";
export const ticketEvents = pgTable(
  "ticket_events",
  {
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity().primaryKey(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    ticketId: uuid("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    /** The chat conversation the ticket belongs to (owned by src/conversations/): a plain uuid. */
    conversationId: uuid("conversation_id"),
    type: text("type").$type<TicketEventType>().notNull(),
    /** Whether the customer's own stream carries it (their own chat messages, already shown to them, do not). */
    customerVisible: boolean("customer_visible").notNull(),
    /** The event's JSON as a client receives it (the customer's view: never a note, never an email). */
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    index("ticket_events_conversation_idx").on(t.conversationId, t.seq),
    index("ticket_events_ticket_idx").on(t.ticketId, t.seq),
    check("ticket_events_type_check", sql`${t.type} in ('message', 'ticket')`),
  ],
);

/**
 * The rating link of a resolution email (README "CSAT"): only the token's SHA-256 is kept; a link
 * works until `expires_at`, and once the ticket is rated it shows the rating and changes nothing.
 */
export const ticketCsatTokens = pgTable(
  "ticket_csat_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    ticketId: uuid("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("ticket_csat_tokens_ticket_idx").on(t.ticketId)],
);
