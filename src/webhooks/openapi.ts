// The webhook payloads in the served OpenAPI document (OpenAPI 3.1 `webhooks`): one operation per
// event type, the POST we send, with its versioned body and the Standard Webhooks headers. Version 1
// of each `data` schema; fields may be added within a version (receivers ignore unknown ones).
import { t, type TSchema } from "elysia";
import { EVENT_TYPES, PAYLOAD_VERSION, TEST_EVENT_TYPE } from "./events.ts";

const Time = t.String({ format: "date-time" });
const Nullable = (s: TSchema) => t.Union([s, t.Null()]);
const Ticket = t.Object(
  {
    id: t.String({ format: "uuid" }),
    number: t.Integer(),
    subject: t.String(),
    status: t.String({ description: "open | pending | resolved | closed" }),
    priority: t.String({ description: "low | normal | high | urgent" }),
    team: Nullable(t.String()),
    assignee_id: Nullable(t.String({ format: "uuid" })),
    tags: t.Array(t.String()),
    source: t.String({ description: "widget | api | chat | mcp" }),
    customer_id: Nullable(t.String({ format: "uuid" })),
    conversation_id: Nullable(t.String({ format: "uuid" })),
    verified: t.Boolean(),
    custom_fields: t.Record(t.String(), t.Unknown()),
    created_at: Time,
    updated_at: Time,
  },
  { additionalProperties: true },
);
const Message = t.Object({
  id: t.String({ format: "uuid" }),
  kind: t.Union([t.Literal("customer"), t.Literal("reply")]),
  body: t.String(),
  author: t.Record(t.String(), t.String()),
  verified: Nullable(t.Boolean()),
  email_from: Nullable(t.String({ description: "A customer message that arrived by email: its From address as received (proves nothing). Null otherwise." })),
  from_customer: Nullable(
    t.Boolean({ description: "A message that arrived by email: whether From is the ticket customer's address (false: someone else wrote). Null otherwise." }),
  ),
  created_at: Time,
});

const DATA: Record<string, TSchema> = {
  "ticket.created": Ticket,
  "ticket.updated": t.Composite([Ticket, t.Object({ changed: t.Array(t.String({ description: "status | priority | team | assignee | tags" })) })]),
  "ticket.message.created": t.Object({
    ticket_id: t.String({ format: "uuid" }),
    ticket_number: t.Integer(),
    status: t.String(),
    message: Message,
    updated_at: Time,
  }),
  "conversation.routed": t.Object({
    conversation_id: t.String({ format: "uuid" }),
    reason: t.Union([t.Literal("live_help"), t.Literal("routing_rule")]),
    to: t.Union([t.Literal("person"), t.Literal("team")]),
    team: Nullable(t.String()),
    ticket: Ticket,
    updated_at: Time,
  }),
  "conversation.escalated": t.Object({
    conversation_id: t.String({ format: "uuid" }),
    reason: t.Union([t.Literal("low_confidence"), t.Literal("frustration")]),
    ticket: Ticket,
    updated_at: Time,
  }),
  "conversation.rated": t.Object({
    conversation_id: Nullable(t.String({ format: "uuid" })),
    ticket_id: t.String({ format: "uuid" }),
    ticket_number: t.Integer(),
    score: t.Integer({ minimum: 1, maximum: 5 }),
    comment: Nullable(t.String()),
    handled_by: t.Union([t.Literal("person"), t.Literal("ai")]),
    updated_at: Time,
  }),
  "customer.identified": t.Object({
    id: t.String({ format: "uuid" }),
    external_id: t.Optional(t.String()),
    email: t.Optional(t.String()),
    name: t.String(),
    traits: t.Record(t.String(), t.Unknown()),
    company_id: t.Optional(t.String({ format: "uuid" })),
    verified: t.Boolean(),
    updated_at: Time,
  }),
  "campaign.message.sent": t.Object({
    message_id: t.String({ format: "uuid" }),
    campaign_id: t.String({ format: "uuid" }),
    customer_id: t.String({ format: "uuid" }),
    step_id: t.String(),
    subject: t.String(),
    sent_at: Time,
    updated_at: Time,
  }),
  "connector.status_changed": t.Object({
    id: t.String({ format: "uuid" }),
    name: t.String(),
    slug: t.String(),
    status: t.String({ description: "pending | connected | error" }),
    previous_status: t.String(),
    last_error: Nullable(t.String()),
    updated_at: Time,
  }),
  "campaign.unsubscribed": t.Object({
    customer_id: t.String({ format: "uuid" }),
    message_id: Nullable(t.String({ format: "uuid" })),
    unsubscribed_at: Time,
    updated_at: Time,
  }),
  [TEST_EVENT_TYPE]: t.Object({ endpoint_id: t.String({ format: "uuid" }), message: t.String(), updated_at: Time }),
};

const HEADERS = {
  "webhook-id": { description: "msg_…: the same on every retry and replay of this event to this endpoint (idempotency key).", schema: { type: "string" } },
  "webhook-timestamp": { description: "Unix seconds of this attempt.", schema: { type: "string" } },
  "webhook-signature": {
    description: "v1,<base64 HMAC-SHA256 of id.timestamp.body>; several space-separated during a secret rotation.",
    schema: { type: "string" },
  },
};

/** The `webhooks` object of the OpenAPI document. */
export function webhookOperations(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const type of [...EVENT_TYPES, TEST_EVENT_TYPE]) {
    const data = DATA[type];
    const body = t.Object({ type: t.Literal(type), version: t.Literal(PAYLOAD_VERSION), timestamp: Time, data: data! });
    out[type] = {
      post: {
        summary: `${type} (payload version ${PAYLOAD_VERSION})`,
        description:
          "Sent to each enabled endpoint subscribed to this type, signed per Standard Webhooks. " +
          "Ordering is not promised: compare data.updated_at. Answer 2xx within 15 s.",
        parameters: Object.entries(HEADERS).map(([name, h]) => ({ name, in: "header", required: true, ...h })),
        requestBody: { required: true, content: { "application/json": { schema: JSON.parse(JSON.stringify(body)) } } },
        responses: { "200": { description: "Any 2xx: delivered. Anything else, a redirect or no answer within 15 s: retried." } },
      },
    };
  }
  return out;
}
