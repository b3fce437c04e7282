// The JSON of a ticket as GET /api/tickets and GET /api/tickets/{id} answer it (docs/interface.md
// "Tickets"): ticketView's fields, the customer's summary, and the customer's rating when there is
// one (README "CSAT"). The routes declare it, so GET /api/openapi.json documents what is sent.
import { t } from "elysia";

const Customer = t.Object({
  id: t.String({ format: "uuid" }),
  external_id: t.Union([t.String(), t.Null()], {
    description: "The org's id of the customer; null for an unverified visitor (an address left in a chat, a claim of a verified customer's id).",
  }),
  claimed_external_id: t.Optional(t.String({ description: "The user_id an unverified visitor claimed, shown as a claim." })),
  email: t.Union([t.String(), t.Null()]),
  name: t.String(),
  verified: t.Boolean({ description: "Whether a valid user_token (or the team) vouched for this customer; an address left at hand-off is never verified." }),
});

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

export const TicketJson = t.Object({
  id: t.String({ format: "uuid" }),
  number: t.Integer(),
  subject: t.String(),
  status: t.String(),
  priority: t.String(),
  team: t.Union([t.String(), t.Null()]),
  assignee_id: t.Union([t.String(), t.Null()]),
  tags: t.Array(t.String()),
  source: t.String(),
  customer_id: t.Union([t.String(), t.Null()]),
  conversation_id: t.Union([t.String(), t.Null()]),
  verified: t.Boolean(),
  custom_fields: t.Record(t.String(), t.Unknown()),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
  customer: t.Union([Customer, t.Null()]),
  rating: TicketRating,
});

export const TicketList = t.Object({ tickets: t.Array(TicketJson), next_cursor: t.Optional(t.String()) });

export const TicketDetailJson = t.Composite([
  TicketJson,
  t.Object({
    messages: t.Array(t.Record(t.String(), t.Unknown()), { description: "The thread, notes included, oldest first." }),
    history: t.Array(t.Record(t.String(), t.Unknown()), { description: "Every change, oldest first." }),
  }),
]);
