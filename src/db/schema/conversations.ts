// Chat conversations and their transcripts.
// Written only by src/conversations/; every row carries org_id and every query filters on it.
import { boolean, index, integer, jsonb, pgTable, real, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";
import { endUsers } from "./workspace.ts";

/**
 * One chat session. The widget's `session_id` is a 256-bit random token; only its SHA-256 is kept
 * (`session_hash`), like every bearer-like secret, because for an anonymous visitor the token alone
 * lets its holder read and continue the conversation. Tickets and the dashboard use `id`.
 */
export const conversations = pgTable(
  "conversations",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    sessionHash: text("session_hash").notNull().unique(),
    /** The customer the session is bound to; null for an anonymous visitor (see `anonymous`). */
    endUserId: uuid("end_user_id").references(() => endUsers.id, { onDelete: "set null" }),
    /**
     * True while the session belongs to an anonymous visitor. A session bound to a customer stays
     * bound even if that customer row is deleted (end_user_id set null), so nobody can take it over.
     */
    anonymous: boolean("anonymous").notNull(),
    /** The agent that answers in this conversation now (after a handoff, the target). Plain uuid: the transcript outlives the agent. */
    agentId: uuid("agent_id"),
    mode: text("mode").notNull().default("chat"),
    /** The customer's language (ISO 639-1, src/kit/language.ts): detected from their messages, else the widget's locale; null: not known yet. */
    language: text("language"),
    /** Session context: key → `{ label, type?, value }` (docs/interface.md 2.5 `context`), merged per request (the request wins). */
    context: jsonb("context").$type<Record<string, unknown>>().notNull().default({}),
    /** Whether any message of the conversation went to a team or a person (routing or escalation). */
    routed: boolean("routed").notNull().default(false),
    /** The last ticket the conversation created. Plain uuid (INBOX owns tickets). */
    ticketId: uuid("ticket_id"),
    messageCount: integer("message_count").notNull().default(0),
    // What the reports judge a conversation by (docs/decisions.md "Reports: what each figure counts"),
    // kept as each message is written (src/conversations/report-facts.ts) so a report reads one row
    // per conversation rather than every message.
    /** The first substantive AI answer a customer message followed more than 24 h later. */
    quietAnswerAt: timestamp("quiet_answer_at", { withTimezone: true }),
    /** That customer message (the end of the quiet): within 7 days of the answer it takes the resolution back. */
    quietEndedAt: timestamp("quiet_ended_at", { withTimezone: true }),
    /** The first substantive AI answer no customer message has followed yet. */
    openAnswerAt: timestamp("open_answer_at", { withTimezone: true }),
    /** Whether the latest customer or AI message is a customer's greeting (the answer to it is not substantive). */
    lastTurnGreeting: boolean("last_turn_greeting").notNull().default(false),
    /** The customer's latest "Did that help?": true, false, or null when never answered. */
    helpful: boolean("helpful"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (t) => [
    index("conversations_org_created_idx").on(t.orgId, t.createdAt, t.id),
    index("conversations_org_customer_idx").on(t.orgId, t.endUserId),
    index("conversations_org_agent_idx").on(t.orgId, t.agentId),
  ],
);

/**
 * Who wrote a message: the customer, the agent, or `reported` — an earlier turn the client sent in
 * `conversation_history` when the session was new to us. Reported turns are kept apart, with the
 * role the client claimed, and are never shown to a model as something the agent said.
 */
export type ConversationRole = "customer" | "agent" | "reported";
/** An agent reply: complete, failed (the model or a stage failed; `error` says why) or interrupted (the client left). */
export type MessageStatus = "complete" | "failed" | "interrupted";

export interface MessageSource {
  doc_id: string;
  title: string;
  url: string | null;
}

export interface MessageRouting {
  action: string;
  ticket_id?: string;
  /** The team a routing rule or the live-help button sent the ticket to. */
  team?: string;
}

export const conversationMessages = pgTable(
  "conversation_messages",
  {
    /**
     * Time-ordered (UUIDv7, written by src/conversations/): with `created_at` it orders a
     * conversation's messages, including the rows of one multi-row insert, without a sequence.
     */
    id: uuid("id").primaryKey(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    conversationId: uuid("conversation_id")
      .notNull()
      .references(() => conversations.id, { onDelete: "cascade" }),
    role: text("role").$type<ConversationRole>().notNull(),
    /** For `reported` turns: what the client said the speaker was ("customer" or "agent"). */
    reportedSpeaker: text("reported_speaker"),
    text: text("text").notNull(),
    /** Image URLs or `data:` URLs (raster only) attached to a customer message. */
    images: jsonb("images").$type<string[]>().notNull().default([]),
    actions: jsonb("actions").$type<unknown[]>().notNull().default([]),
    sources: jsonb("sources").$type<MessageSource[]>().notNull().default([]),
    confidence: real("confidence"),
    agentId: uuid("agent_id"),
    routing: jsonb("routing").$type<MessageRouting | null>(),
    status: text("status").$type<MessageStatus>().notNull().default("complete"),
    error: jsonb("error").$type<{ code: string; message: string } | null>(),
    mode: text("mode"),
    /** The customer's "Did that help?" on an agent reply: true (yes), false (no), null (not answered). */
    helpful: boolean("helpful"),
    helpfulAt: timestamp("helpful_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("conversation_messages_conversation_idx").on(t.conversationId, t.createdAt, t.id), index("conversation_messages_org_idx").on(t.orgId)],
);
