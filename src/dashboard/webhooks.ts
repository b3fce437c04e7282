// Dashboard: outbound webhooks, role org:manage (README "Webhooks").
// The endpoints, their delivery log with replay, a test event and secret rotation, through the same
// functions as /api/webhooks (src/webhooks/service.ts). A signing secret is shown once, in the
// answer to the request that made it (never after a redirect), like the identity secret.
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import { EVENT_TYPES, type EventType } from "../webhooks/events.ts";
import { listDeliveries, replayDelivery } from "../webhooks/deliveries.ts";
import { createEndpoint, deleteEndpoint, ENDPOINT_LIMITS, getEndpoint, listEndpoints, rotateSecret, sendTestEvent } from "../webhooks/service.ts";
import {
  type DashboardContext,
  type DashboardDeps,
  type Refused,
  submitForm,
  type FieldErrors,
  formList,
  formValues,
  type FormValues,
  redirect,
  shellPage,
  withMember,
  formBody,
  IdParams,
} from "./kit/index.ts";
import { WebhookDetail } from "./views/webhook-detail.ts";
import { WebhookList } from "./views/webhook-list.ts";

const ROLE = "org:manage" as const;

async function listPage(ctx: DashboardContext, form?: Refused & { events: string[] }, secret?: string): Promise<Response> {
  const body = WebhookList({
    endpoints: await listEndpoints(ctx.deps, ctx.orgId),
    eventTypes: EVENT_TYPES,
    limits: { url: ENDPOINT_LIMITS.url, description: ENDPOINT_LIMITS.description },
    secret,
    values: form?.values ?? {},
    errors: form?.errors ?? {},
    chosen: new Set(form?.events ?? EVENT_TYPES),
  });
  return shellPage(ctx, {
    title: "Webhooks",
    active: "webhooks",
    body,
    status: form?.status ?? (secret ? 201 : undefined),
    headers: secret ? { "cache-control": "no-store" } : undefined,
  });
}

async function endpointPage(ctx: DashboardContext, id: string, secret?: string): Promise<Response> {
  const endpoint = await getEndpoint(ctx.deps, ctx.orgId, id);
  const deliveries = await listDeliveries(ctx.deps, ctx.orgId, id, { limit: ENDPOINT_LIMITS.page });
  const body = WebhookDetail({ id, endpoint, deliveries, shown: ENDPOINT_LIMITS.page, secret });
  return shellPage(ctx, {
    title: "Webhook endpoint",
    active: "webhooks",
    body,
    status: secret ? 201 : undefined,
    headers: secret ? { "cache-control": "no-store" } : undefined,
  });
}

/** A new endpoint: its signing secret is answered on this page, once (never through a redirect). */
function create(ctx: DashboardContext, values: FormValues, events: string[]): Promise<Response> {
  return submitForm({
    values,
    validate: (v) => {
      const url = (v.url ?? "").trim();
      const description = (v.description ?? "").trim();
      const errors: FieldErrors = {};
      if (!url) errors.url = "Give the endpoint's URL.";
      else if (url.length > ENDPOINT_LIMITS.url) errors.url = `At most ${ENDPOINT_LIMITS.url} characters.`;
      if (description.length > ENDPOINT_LIMITS.description) errors.description = `At most ${ENDPOINT_LIMITS.description} characters.`;
      if (events.length === 0) errors.events = "Choose at least one event.";
      else if (events.some((x) => !(EVENT_TYPES as readonly string[]).includes(x))) errors.events = "Choose events from the list.";
      return { input: { url, description, event_types: events as EventType[] }, errors };
    },
    call: (input) => createEndpoint(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), input),
    done: (created) => listPage(ctx, undefined, created.secret),
    render: (refused) => listPage(ctx, { ...refused, events }),
    refused: (error) => {
      if (error.status !== 400 && error.status !== 409) return null;
      const message = error.details?.[0]?.message ?? error.message;
      return { url: message.charAt(0).toUpperCase() + message.slice(1) };
    },
  });
}

const DeliveryId = t.Object({ id: t.String({ maxLength: 64 }), delivery: t.String({ maxLength: 64 }) });
const FormBody = formBody({ text: 5000, item: 100, items: 50 });

export function webhookPages(deps: DashboardDeps) {
  return new Elysia({ name: "dashboard-webhooks" })
    .get("/dashboard/webhooks", ({ request }) => withMember(deps, request, ROLE, (ctx) => listPage(ctx)))
    .post("/dashboard/webhooks", ({ request, body }) => withMember(deps, request, ROLE, (ctx) => create(ctx, formValues(body), formList(body, "events"))), {
      body: FormBody,
    })
    .get("/dashboard/webhooks/:id", ({ request, params }) => withMember(deps, request, ROLE, (ctx) => endpointPage(ctx, params.id)), { params: IdParams })
    .post(
      "/dashboard/webhooks/:id/delete",
      ({ request, params }) =>
        withMember(deps, request, ROLE, async (ctx) => {
          await deleteEndpoint(deps, ctx.orgId, memberActor(ctx.principal.member.id), params.id);
          return redirect(deps, "/dashboard/webhooks", "Endpoint deleted; its queued deliveries are cancelled.");
        }),
      { params: IdParams },
    )
    .post(
      "/dashboard/webhooks/:id/rotate",
      ({ request, params }) =>
        withMember(deps, request, ROLE, async (ctx) => {
          const rotated = await rotateSecret(deps, ctx.orgId, memberActor(ctx.principal.member.id), params.id);
          return endpointPage(ctx, params.id, rotated.secret);
        }),
      { params: IdParams },
    )
    .post(
      "/dashboard/webhooks/:id/test",
      ({ request, params }) =>
        withMember(deps, request, ROLE, async (ctx) => {
          const sent = await sendTestEvent(deps, ctx.orgId, memberActor(ctx.principal.member.id), params.id);
          return redirect(deps, `/dashboard/webhooks/${params.id}`, `Test event queued (${sent.webhook_id}).`);
        }),
      { params: IdParams },
    )
    .post(
      "/dashboard/webhooks/:id/deliveries/:delivery/replay",
      ({ request, params }) =>
        withMember(deps, request, ROLE, async (ctx) => {
          await replayDelivery(deps, ctx.orgId, memberActor(ctx.principal.member.id), params.id, params.delivery);
          return redirect(
            deps,
            `/dashboard/webhooks/${params.id}`,
            "Delivery queued to be sent now, with the same webhook-id; if it fails, its retries go on.",
          );
        }),
      { params: DeliveryId },
    );
}
