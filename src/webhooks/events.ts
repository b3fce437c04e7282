// Webhook events (README "Webhooks"): the catalogue of types and the one function that records an event.
// `emitWebhookEvent` is called by the code that makes the change, INSIDE its transaction: the event,
// one delivery per subscribed endpoint and one outbox row per delivery commit with the change or
// not at all, so nothing committed is missed and nothing rolled back is announced.
//
// The body is the Standard Webhooks payload shape, `{"type", "timestamp", "data"}`, plus
// `"version"`: the version of `data`'s schema for that type (README "Webhooks"; additive changes
// keep the version, anything else bumps it). Every `data` carries the object's `updated_at`:
// ordering of deliveries is not promised, so receivers discard a payload older than what they have.
// The body is serialised once, here, and stored: what is signed and sent is exactly these bytes.
import { and, eq, sql } from "drizzle-orm";
import type { Db, Tx } from "../db/client.ts";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "../db/schema/index.ts";
import { enqueue } from "../outbox/outbox.ts";

export const EVENT_TYPES = [
  "ticket.created",
  "ticket.updated",
  "ticket.message.created",
  "conversation.routed",
  "conversation.escalated",
  "conversation.rated",
  "customer.identified",
  "campaign.message.sent",
  "campaign.unsubscribed",
  "connector.status_changed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Sent only by "send a test event", to that one endpoint, whatever it subscribes to. */
export const TEST_EVENT_TYPE = "webhook.test";

/** The version of each type's `data` schema (the OpenAPI document describes version 1 of each). */
export const PAYLOAD_VERSION = 1;

/** The outbox kind of a webhook delivery (src/webhooks/delivery.ts handles it). */
export const WEBHOOK_KIND = "webhook";

export function eventBody(type: string, data: Record<string, unknown>, now: Date): string {
  return JSON.stringify({ type, version: PAYLOAD_VERSION, timestamp: now.toISOString(), data });
}

/** Records one event and queues a delivery to each enabled endpoint of the org that subscribes to its type. */
export async function emitWebhookEvent(db: Db | Tx, input: { orgId: string; type: EventType; data: Record<string, unknown>; now: Date }): Promise<void> {
  const endpoints = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.orgId, input.orgId),
        eq(webhookEndpoints.enabled, true),
        sql`${webhookEndpoints.eventTypes} @> ${JSON.stringify([input.type])}::jsonb`,
      ),
    );
  // No subscriber, no row: an org without webhooks pays one indexed read per change.
  if (endpoints.length === 0) return;
  const [event] = await db
    .insert(webhookEvents)
    .values({ orgId: input.orgId, type: input.type, body: eventBody(input.type, input.data, input.now), createdAt: input.now })
    .returning({ id: webhookEvents.id });
  for (const endpoint of endpoints)
    await queueDelivery(db, { orgId: input.orgId, endpointId: endpoint.id, eventId: event!.id, eventType: input.type, now: input.now });
}

/** One delivery of an event to an endpoint, with its first outbox row due now. */
export async function queueDelivery(db: Db | Tx, input: { orgId: string; endpointId: string; eventId: string; eventType: string; now: Date }): Promise<string> {
  const id = crypto.randomUUID();
  // The endpoint is the row's lane: a slow endpoint holds only its own delivery slots (src/outbox/claim.ts).
  const outboxId = await enqueue(db, {
    orgId: input.orgId,
    kind: WEBHOOK_KIND,
    lane: input.endpointId,
    payload: { delivery_id: id },
    runAt: input.now,
    now: input.now,
  });
  await db
    .insert(webhookDeliveries)
    .values({ id, orgId: input.orgId, endpointId: input.endpointId, eventId: input.eventId, eventType: input.eventType, outboxId, createdAt: input.now });
  return id;
}

/** The Standard Webhooks `webhook-id` of a delivery: the same on every retry and replay. */
export function webhookIdOf(deliveryId: string): string {
  return `msg_${deliveryId.replaceAll("-", "")}`;
}
