// Outbound webhooks: an org's endpoints, the events recorded for them, one delivery per
// (event, endpoint) — its id is the Standard Webhooks `webhook-id` — and every attempt of it.
// The attempts themselves run on the durable outbox (src/outbox/outbox.ts, kind `webhook`): a
// delivery points at its current outbox row (a replay gives it a new one, same webhook-id).
// Written only by src/webhooks/.
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";

export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    /** The event types it subscribes to (src/webhooks/events.ts EVENT_TYPES). */
    eventTypes: jsonb("event_types").$type<string[]>().notNull(),
    enabled: boolean("enabled").notNull().default(true),
    /** Why it was disabled automatically (failing continuously); null when enabled or disabled by a person. */
    disabledReason: text("disabled_reason"),
    /** The `whsec_…` signing secret, encrypted per field (src/crypto/fields.ts). */
    secret: text("secret").notNull(),
    /** The secret before the last rotation, encrypted; it keeps signing until `previous_secret_until`. */
    previousSecret: text("previous_secret"),
    previousSecretUntil: timestamp("previous_secret_until", { withTimezone: true }),
    /** The first failed attempt since the last success; null while healthy. Drives the disable rule. */
    failingSince: timestamp("failing_since", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("webhook_endpoints_org_idx").on(t.orgId, t.createdAt)],
);

export const webhookEvents = pgTable(
  "webhook_events",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    /** The JSON body exactly as it is signed and sent (serialised once, never again). */
    body: text("body").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("webhook_events_org_idx").on(t.orgId, t.createdAt)],
);

export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    /** `msg_<id without dashes>` is the webhook-id: stable across retries and replays. */
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    eventId: uuid("event_id")
      .notNull()
      .references(() => webhookEvents.id, { onDelete: "cascade" }),
    eventType: text("event_type").notNull(),
    /** The outbox row of the current run (first delivery or latest replay); its status is the delivery's. */
    outboxId: uuid("outbox_id").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("webhook_deliveries_endpoint_idx").on(t.orgId, t.endpointId, t.createdAt), index("webhook_deliveries_outbox_idx").on(t.outboxId)],
);

export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    deliveryId: uuid("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attemptedAt: timestamp("attempted_at", { withTimezone: true }).notNull(),
    /** The receiver's HTTP status; null when there was no answer (refused, timeout, connection error). */
    statusCode: integer("status_code"),
    success: boolean("success").notNull(),
    durationMs: integer("duration_ms").notNull(),
    /** Why it failed, when it did (refused address, redirect, timeout, status). */
    error: text("error"),
    /** The first bytes of the response body (WEBHOOK_LIMITS.responseBytes). */
    responseBody: text("response_body"),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attemptedAt)],
);
