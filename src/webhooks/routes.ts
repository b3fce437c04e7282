// Webhook endpoints for the dashboard: /api/webhooks/…, role org:manage.
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { jsonResponse } from "../kit/json-response.ts";
import { EVENT_TYPES, PAYLOAD_VERSION, TEST_EVENT_TYPE } from "./events.ts";
import { listDeliveries, replayDelivery, replayFailed } from "./deliveries.ts";
import { DeliveryList, EndpointList, EndpointView, EndpointWithSecret, EventTypesView, NoContent, Queued, Replayed } from "./schemas.ts";
import { createEndpoint, deleteEndpoint, ENDPOINT_LIMITS, getEndpoint, listEndpoints, rotateSecret, sendTestEvent, updateEndpoint } from "./service.ts";

const EventTypes = t.Array(t.Union(EVENT_TYPES.map((e) => t.Literal(e))), {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  uniqueItems: true,
  description: "The event types this endpoint receives.",
});
const Editable = {
  url: t.String({ minLength: 1, maxLength: ENDPOINT_LIMITS.url, description: "https URL; checked by the outbound guard now and on every delivery." }),
  description: t.String({ maxLength: ENDPOINT_LIMITS.description }),
  event_types: EventTypes,
  enabled: t.Boolean(),
};
const Id = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
const DeliveryId = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }), delivery_id: t.String({ minLength: 1, maxLength: 64 }) });
const Instant = t.String({ format: "date-time", maxLength: 40 });

async function admin(deps: Pick<Deps, "config" | "db" | "now">, request: Request) {
  const { orgId, principal } = await requireMember(deps, request, "org:manage");
  return { orgId, actor: memberActor(principal.member.id) };
}

export function webhookRoutes(deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "now">) {
  return new Elysia({ name: "webhooks" })
    .get(
      "/api/webhooks/event-types",
      async ({ request }) => {
        await admin(deps, request);
        return { version: PAYLOAD_VERSION, event_types: [...EVENT_TYPES], test_event_type: TEST_EVENT_TYPE };
      },
      {
        response: { 200: EventTypesView },
        detail: {
          summary: "The event types an endpoint can subscribe to, and the payload version (org:manage)",
          tags: ["Webhooks"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .get(
      "/api/webhooks/endpoints",
      async ({ request }) => {
        const { orgId } = await admin(deps, request);
        return { endpoints: await listEndpoints(deps, orgId) };
      },
      { response: { 200: EndpointList }, detail: { summary: "The org's webhook endpoints (org:manage)", tags: ["Webhooks"], security: [{ dashboard: [] }] } },
    )
    .post(
      "/api/webhooks/endpoints",
      async ({ body, request }) => {
        const { orgId, actor } = await admin(deps, request);
        return jsonResponse(await createEndpoint(deps, orgId, actor, body), 201);
      },
      {
        body: t.Object(
          { url: Editable.url, description: t.Optional(Editable.description), event_types: EventTypes, enabled: t.Optional(t.Boolean()) },
          { additionalProperties: false },
        ),
        response: { 201: EndpointWithSecret },
        detail: { summary: "Add a webhook endpoint; its signing secret is shown once (org:manage)", tags: ["Webhooks"], security: [{ dashboard: [] }] },
      },
    )
    .get(
      "/api/webhooks/endpoints/:id",
      async ({ params, request }) => {
        const { orgId } = await admin(deps, request);
        return getEndpoint(deps, orgId, params.id);
      },
      {
        params: Id,
        response: { 200: EndpointView },
        detail: { summary: "Read one webhook endpoint (org:manage)", tags: ["Webhooks"], security: [{ dashboard: [] }] },
      },
    )
    .patch(
      "/api/webhooks/endpoints/:id",
      async ({ body, params, request }) => {
        const { orgId, actor } = await admin(deps, request);
        return updateEndpoint(deps, orgId, actor, params.id, body);
      },
      {
        params: Id,
        body: t.Partial(t.Object(Editable), { additionalProperties: false, minProperties: 1 }),
        response: { 200: EndpointView },
        detail: {
          summary: "Update a webhook endpoint: url, description, event types, enabled (org:manage)",
          tags: ["Webhooks"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .delete(
      "/api/webhooks/endpoints/:id",
      async ({ params, request }) => {
        const { orgId, actor } = await admin(deps, request);
        await deleteEndpoint(deps, orgId, actor, params.id);
        return new Response(null, { status: 204 });
      },
      {
        params: Id,
        response: { 204: NoContent },
        detail: { summary: "Delete a webhook endpoint; pending deliveries are cancelled (org:manage)", tags: ["Webhooks"], security: [{ dashboard: [] }] },
      },
    )
    .post(
      "/api/webhooks/endpoints/:id/rotate-secret",
      async ({ params, request }) => {
        const { orgId, actor } = await admin(deps, request);
        return rotateSecret(deps, orgId, actor, params.id);
      },
      {
        params: Id,
        response: { 200: EndpointWithSecret },
        detail: {
          summary: "Rotate the signing secret; the previous one stays valid for a while (org:manage)",
          tags: ["Webhooks"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .post(
      "/api/webhooks/endpoints/:id/test",
      async ({ params, request }) => {
        const { orgId, actor } = await admin(deps, request);
        return jsonResponse(await sendTestEvent(deps, orgId, actor, params.id), 202);
      },
      {
        params: Id,
        response: { 202: Queued },
        detail: { summary: "Send a test event to the endpoint (org:manage)", tags: ["Webhooks"], security: [{ dashboard: [] }] },
      },
    )
    .get(
      "/api/webhooks/endpoints/:id/deliveries",
      async ({ params, query, request }) => {
        const { orgId } = await admin(deps, request);
        return {
          deliveries: await listDeliveries(deps, orgId, params.id, {
            status: query.status,
            eventType: query.event_type,
            since: query.since ? new Date(query.since) : undefined,
            before: query.before ? new Date(query.before) : undefined,
            limit: query.limit,
          }),
        };
      },
      {
        params: Id,
        query: t.Object({
          status: t.Optional(t.Union([t.Literal("pending"), t.Literal("succeeded"), t.Literal("failed"), t.Literal("cancelled")])),
          event_type: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
          since: t.Optional(Instant),
          before: t.Optional(Instant),
          limit: t.Optional(t.Numeric({ minimum: 1, maximum: ENDPOINT_LIMITS.pageMax, multipleOf: 1 })),
        }),
        response: { 200: DeliveryList },
        detail: {
          summary: "The endpoint's deliveries, newest first; filter by status, event type, time (org:manage)",
          tags: ["Webhooks"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .post(
      "/api/webhooks/endpoints/:id/deliveries/:delivery_id/replay",
      async ({ params, request }) => {
        const { orgId, actor } = await admin(deps, request);
        return jsonResponse(await replayDelivery(deps, orgId, actor, params.id, params.delivery_id), 202);
      },
      {
        params: DeliveryId,
        response: { 202: Replayed },
        detail: { summary: "Deliver one event again (org:manage)", tags: ["Webhooks"], security: [{ dashboard: [] }] },
      },
    )
    .post(
      "/api/webhooks/endpoints/:id/replay",
      async ({ body, params, request }) => {
        const { orgId, actor } = await admin(deps, request);
        return jsonResponse(await replayFailed(deps, orgId, actor, params.id, new Date(body.since)), 202);
      },
      {
        params: Id,
        body: t.Object({ since: Instant }, { additionalProperties: false }),
        response: { 202: Replayed },
        detail: { summary: "Deliver again every failed event since a time (org:manage)", tags: ["Webhooks"], security: [{ dashboard: [] }] },
      },
    );
}
