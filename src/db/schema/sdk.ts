// What the widget SDK stores beside the workspace: the org's allowed browser origins
// and the behavioural events posted to /api/sdk/events. Every row carries org_id; written only by
// src/sdk/.
import { boolean, index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { conversations } from "./conversations.ts";
import { orgs } from "./core.ts";
import { endUsers } from "./workspace.ts";

/**
 * Per-org widget settings. `allowed_origins` empty means any origin may use the org's widget
 * key; otherwise a browser request whose `Origin` is not listed is refused (src/sdk/auth.ts).
 */
export const widgetSettings = pgTable("widget_settings", {
  orgId: uuid("org_id")
    .primaryKey()
    .references(() => orgs.id, { onDelete: "cascade" }),
  /** Serialised origins (`https://shop.example`), lower-case, no path. */
  allowedOrigins: text("allowed_origins").array().notNull(),
  /** Whether the AI keeps answering while a person owns the conversation (README "Live conversation"). */
  aiAnswersDuringHandoff: boolean("ai_answers_during_handoff").notNull().default(false),
  /** Whether a resolved ticket's customer is asked for a rating, and the question asked (README "CSAT"). */
  csatEnabled: boolean("csat_enabled").notNull().default(true),
  csatQuestion: text("csat_question"),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Behavioural events (docs/interface.md 6 "Inbound behavioural tracking events"). `end_user_id` is the customer the
 * request proved or claimed (an unverified claim on a verified customer's id lands on the unverified
 * visitor, never on the customer); `anonymous_id` is the widget's visitor id before identification.
 * `conversation_id` is the chat the event came from: the request's `session_id` resolved to its
 * conversation. The session id itself is never stored — it is a bearer secret that lets its holder
 * continue the chat as the visitor, and the team reading events must not be handed it.
 */
export const customerEvents = pgTable(
  "customer_events",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    endUserId: uuid("end_user_id").references(() => endUsers.id, { onDelete: "cascade" }),
    anonymousId: text("anonymous_id"),
    conversationId: uuid("conversation_id").references(() => conversations.id, { onDelete: "set null" }),
    name: text("name").notNull(),
    properties: jsonb("properties").$type<Record<string, unknown>>().notNull().default({}),
    occurredAt: timestamp("occurred_at", { withTimezone: true }).notNull(),
    receivedAt: timestamp("received_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("customer_events_org_user_idx").on(t.orgId, t.endUserId, t.occurredAt), index("customer_events_org_name_idx").on(t.orgId, t.name)],
);
