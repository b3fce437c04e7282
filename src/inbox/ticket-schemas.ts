// The JSON of a ticket as the dashboard API answers it (docs/interface.md "Tickets"): ticketView's
// fields; in lists and on its own page also the customer's summary and rating (README "CSAT"); on
// its own page its thread and history. The routes declare them, so GET /api/openapi.json
// documents what is sent.
import { t } from "elysia";
import { CustomerSummaryJson } from "./customer-schemas.ts";

export const TicketRating = t.Union(
  [
    t.Object({
      score: t.Integer({ minimum: 1, maximum: 5 }),
      comment: t.Union([t.String(), t.Null()]),
      rated_at: t.String({ format: "date-time" }),
    }),
    t.Null(),
  ],
  { description: 'The customer\'s rating after resolution (README "CSAT"); null until they rate.' },
);

const viewFields = {
  id: t.String({ format: "uuid" }),
  number: t.Integer({ description: "The org's ticket number (#42), by order of creation." }),
  subject: t.String(),
  status: t.String(),
  priority: t.String(),
  team: t.Union([t.String(), t.Null()]),
  assignee_id: t.Union([t.String(), t.Null()], { description: "The member the ticket is assigned to; null when unassigned." }),
  tags: t.Array(t.String()),
  source: t.String({ description: "Where the ticket came from: widget, chat, email, api or mcp." }),
  customer_id: t.Union([t.String(), t.Null()]),
  conversation_id: t.Union([t.String(), t.Null()], { description: "The chat that opened the ticket, when one did." }),
  language: t.Union([t.String(), t.Null()], {
    description: "The customer's language (ISO 639-1): the conversation's for a ticket a chat opened; null when not known (README \"Languages\").",
  }),
  verified: t.Boolean({ description: "Whether the customer's identity was verified when the ticket was opened." }),
  custom_fields: t.Record(t.String(), t.Unknown()),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
};

/** ticketView alone: a customer's tickets on their page. */
export const TicketViewJson = t.Object(viewFields);

/** A ticket as GET /api/tickets lists it. */
export const TicketJson = t.Object({ ...viewFields, customer: t.Union([CustomerSummaryJson, t.Null()]), rating: TicketRating });

export const TicketList = t.Object({ tickets: t.Array(TicketJson), next_cursor: t.Optional(t.String()) });

/** One message of a ticket's thread (messageView). */
export const TicketMessageJson = t.Object({
  id: t.String({ format: "uuid" }),
  kind: t.Union([t.Literal("customer"), t.Literal("reply"), t.Literal("note")], { description: "A note is internal, never shown to the customer." }),
  body: t.String(),
  author: t.Object(
    {
      kind: t.Union([t.Literal("member"), t.Literal("token"), t.Literal("agent"), t.Literal("customer"), t.Literal("system")]),
      member_id: t.Optional(t.String({ description: "The member who wrote it." })),
      agent_id: t.Optional(t.String({ description: "The AI agent that wrote it." })),
      client_id: t.Optional(t.String({ description: "The OAuth client whose token wrote it." })),
      customer_id: t.Optional(t.String({ description: "The ticket's customer, on a customer message." })),
    },
    { description: "Who wrote it; only the ids that apply are present." },
  ),
  verified: t.Union([t.Boolean(), t.Null()], {
    description: "On a customer message, whether it came from a verified identity; null on replies and notes.",
  }),
  email_from: t.Union([t.String(), t.Null()], {
    description:
      "On a customer message that arrived by email: its From address as received (anyone may write to a ticket's reply address, " +
      "and a From header proves nothing). Null on every other message.",
  }),
  from_customer: t.Union([t.Boolean(), t.Null()], {
    description:
      "On a message that arrived by email: whether From is the address of the ticket's customer (false: " +
      "someone else wrote to the reply address; true is still no proof — `verified` stays false). Null on every other message.",
  }),
  created_at: t.String({ format: "date-time" }),
  original: t.Optional(
    t.Object(
      { language: t.String(), body: t.String() },
      { description: "On a reply sent translated (translate: true): what the member wrote, in their language; `body` is what the customer received." },
    ),
  ),
});

export const TicketDetailJson = t.Object({
  ...TicketJson.properties,
  messages: t.Array(TicketMessageJson, { description: "The thread, notes included, oldest first." }),
  history: t.Array(t.Record(t.String(), t.Unknown()), { description: "Every change, oldest first." }),
});
