// The JSON of a customer as the dashboard API answers it (src/inbox/customer-profiles.ts builds
// it): the summary every ticket and conversation shows, and the full view of /api/customers. The
// routes declare them, so GET /api/openapi.json documents what is sent.
import { t } from "elysia";

const summaryFields = {
  id: t.String({ format: "uuid" }),
  external_id: t.Union([t.String(), t.Null()], {
    description: "The org's id of the customer; null for an unverified visitor (an address left in a chat, a claim of a verified customer's id).",
  }),
  claimed_external_id: t.Optional(t.String({ description: "The user_id an unverified visitor claimed, shown as a claim." })),
  email: t.Union([t.String(), t.Null()], { description: "Lower-cased." }),
  name: t.String({ description: "Empty when unknown." }),
  verified: t.Boolean({ description: "Whether a valid user_token (or the team) vouched for this customer; an address left at hand-off is never verified." }),
};

/** customerSummary: what a ticket, a conversation or a list row shows of its customer. */
export const CustomerSummaryJson = t.Object(summaryFields);

/** customerView: the customer's record. */
export const CustomerJson = t.Object({
  ...summaryFields,
  traits: t.Record(t.String(), t.Unknown(), { description: "Free-form attributes set by the org's backend, the widget or the team." }),
  company_id: t.Union([t.String({ format: "uuid" }), t.Null()], { description: "Our id of the customer's company; null when none." }),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

export const CustomerList = t.Object({
  customers: t.Array(CustomerJson),
  next_cursor: t.Optional(t.String({ description: "Pass as `cursor` for the next page; absent on the last page." })),
});

export const CustomerImportAnswer = t.Object({
  created: t.Integer({ minimum: 0, description: "Customers created; an id held only by an unverified visitor gets a new, verified customer." }),
  updated: t.Integer({ minimum: 0 }),
  customers: t.Array(t.Object({ id: t.String({ format: "uuid" }), external_id: t.Union([t.String(), t.Null()]) }), {
    description: "One per input, in the input's order, with the external_id it was given.",
  }),
});

/** One of a customer's recent events (widget SDK `track`). */
export const CustomerEventJson = t.Object({
  id: t.String({ format: "uuid" }),
  name: t.String(),
  properties: t.Record(t.String(), t.Unknown()),
  conversation_id: t.Union([t.String({ format: "uuid" }), t.Null()], { description: "The chat the event came from, when it came from one." }),
  occurred_at: t.String({ format: "date-time", description: "When the event happened." }),
  received_at: t.String({ format: "date-time" }),
});
