// What the webhook endpoints API answers (src/webhooks/routes.ts), as TypeBox schemas: Elysia
// checks each plain-object answer against them, and the OpenAPI document shows them.
import { t } from "elysia";

const Instant = t.String({ format: "date-time" });
const Nullable = <T extends ReturnType<typeof t.String> | ReturnType<typeof t.Integer>>(schema: T) => t.Union([schema, t.Null()]);

export const EndpointView = t.Object({
  id: t.String(),
  url: t.String(),
  description: t.String(),
  event_types: t.Array(t.String()),
  enabled: t.Boolean(),
  disabled_reason: Nullable(t.String({ description: "Why the service disabled it (e.g. failing for too long); null when enabled or disabled by a member." })),
  failing_since: Nullable(Instant),
  previous_secret_expires_at: Nullable(
    t.String({ format: "date-time", description: "Until when the secret before the last rotation still signs deliveries." }),
  ),
  created_at: Instant,
  updated_at: Instant,
});

/** An endpoint just created or whose secret was just rotated: the signing secret, shown this once. */
export const EndpointWithSecret = t.Composite([EndpointView, t.Object({ secret: t.String({ description: "whsec_…: shown only in this answer." }) })]);

export const EndpointList = t.Object({ endpoints: t.Array(EndpointView) });

export const EventTypesView = t.Object({
  version: t.Integer({ description: "The payload version (the webhook-version header)." }),
  event_types: t.Array(t.String()),
  test_event_type: t.String(),
});

export const Attempt = t.Object({
  attempted_at: Instant,
  status_code: Nullable(t.Integer({ description: "The receiver's HTTP status; null when there was no answer." })),
  success: t.Boolean(),
  duration_ms: t.Integer(),
  error: Nullable(t.String()),
  response_body: Nullable(t.String()),
});

export const DeliveryList = t.Object({
  deliveries: t.Array(
    t.Object({
      id: t.String(),
      webhook_id: t.String({ description: "The webhook-id header of every attempt of this delivery." }),
      event_id: t.String(),
      event_type: t.String(),
      status: t.Union([t.Literal("pending"), t.Literal("succeeded"), t.Literal("failed"), t.Literal("cancelled")]),
      last_error: Nullable(t.String()),
      next_retry_at: Nullable(Instant),
      created_at: Instant,
      attempts: t.Array(Attempt),
    }),
  ),
});

export const Queued = t.Object({ delivery_id: t.String(), webhook_id: t.String() });
export const Replayed = t.Object({ replayed: t.Integer({ description: "How many deliveries were queued again." }) });
export const NoContent = t.Null({ description: "No content" });
