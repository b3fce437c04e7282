// The JSON of a chat conversation as the dashboard API answers it (src/conversations/dashboard.ts
// builds it): the conversation, its customer's summary, and on its own page its messages. The
// routes declare them, so GET /api/openapi.json documents what is sent.
import { t } from "elysia";
import { CustomerSummaryJson } from "../inbox/customer-schemas.ts";

const conversationFields = {
  id: t.String({ format: "uuid", description: "Our id of the conversation (never the widget's session id)." }),
  customer_id: t.Union([t.String({ format: "uuid" }), t.Null()]),
  anonymous: t.Boolean({ description: "Whether the session belongs to an anonymous visitor." }),
  agent_id: t.Union([t.String({ format: "uuid" }), t.Null()], { description: "The agent that answers in it now (after a handoff, the target)." }),
  mode: t.String({ description: "chat, voice, video or livehelp." }),
  routed: t.Boolean({ description: "Whether any message went to a team or a person (routing or escalation)." }),
  ticket_id: t.Union([t.String({ format: "uuid" }), t.Null()], { description: "The last ticket the conversation created." }),
  message_count: t.Integer({ minimum: 0 }),
  context: t.Record(t.String(), t.Unknown(), { description: "Session context: key → { label, type?, value }." }),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
  customer: t.Union([CustomerSummaryJson, t.Null()]),
};

export const ConversationList = t.Object({
  conversations: t.Array(t.Object(conversationFields)),
  next_cursor: t.Optional(t.String({ description: "Pass as `cursor` for the next page; absent on the last page." })),
});

/** One message of a conversation (messageView). */
const ConversationMessageJson = t.Object({
  id: t.String({ format: "uuid" }),
  role: t.Union([t.Literal("customer"), t.Literal("agent"), t.Literal("reported")], {
    description: "reported: an earlier turn the client sent in conversation_history, kept apart and never taken as the agent's words.",
  }),
  reported_speaker: t.Optional(t.Union([t.String(), t.Null()], { description: "On a reported turn, who the client said spoke." })),
  text: t.String(),
  images: t.Array(t.String(), { description: "Image URLs or data: URLs attached to a customer message." }),
  actions: t.Array(t.Unknown()),
  sources: t.Array(t.Object({ doc_id: t.String(), title: t.String(), url: t.Union([t.String(), t.Null()]) })),
  confidence: t.Union([t.Number({ minimum: 0, maximum: 1 }), t.Null()]),
  agent_id: t.Union([t.String({ format: "uuid" }), t.Null()]),
  routing: t.Union([t.Object({ action: t.String(), ticket_id: t.Optional(t.String()), team: t.Optional(t.String()) }), t.Null()], {
    description: "Where the answer sent the customer (a team or a person), when it did.",
  }),
  status: t.Union([t.Literal("complete"), t.Literal("failed"), t.Literal("interrupted")]),
  error: t.Union([t.Object({ code: t.String(), message: t.String() }), t.Null()], { description: "Why a failed answer stopped." }),
  mode: t.Union([t.String(), t.Null()]),
  created_at: t.String({ format: "date-time" }),
});

export const ConversationDetailJson = t.Object({
  ...conversationFields,
  messages: t.Array(ConversationMessageJson, { description: "The latest messages, oldest first." }),
});
