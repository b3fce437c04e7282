// Dashboard: outbound webhooks, role org:manage (README "Webhooks").
// The endpoints, their delivery log with replay, a test event and secret rotation, through the same
// functions as /api/webhooks (src/webhooks/service.ts). A signing secret is shown once, in the
// answer to the request that made it (never after a redirect), like the identity secret.
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import type { Deps } from "../deps.ts";
import { EVENT_TYPES, type EventType } from "../webhooks/events.ts";
import { listDeliveries, replayDelivery } from "../webhooks/deliveries.ts";
import { createEndpoint, deleteEndpoint, ENDPOINT_LIMITS, getEndpoint, listEndpoints, rotateSecret, sendTestEvent } from "../webhooks/service.ts";
import { attrs, type Html, html } from "../html/html.ts";
import {
  actionButton,
  type DashboardContext,
  listTable,
  type Refused,
  submitForm,
  errorSummary,
  field,
  type FieldErrors,
  formList,
  formValues,
  type FormValues,
  redirect,
  shellPage,
  submit,
  when,
  withMember,
  formBody,
  IdParams,
} from "./kit/index.ts";

const ROLE = "org:manage" as const;

/** The secret, once, with what to do with it. */
function secretPanel(secret: string): Html {
  return html`<div class="flash ok" role="status"><p><strong>Signing secret, shown this once.</strong> Receivers verify <code>webhook-signature</code> with it (Standard Webhooks); store it now.</p><label for="webhook-secret">Signing secret</label><input id="webhook-secret" type="text" readonly value="${secret}"><div class="actions"><button type="button" class="secondary" data-copy="webhook-secret" hidden>Copy secret</button></div></div>`;
}

async function listPage(ctx: DashboardContext, form?: Refused & { events: string[] }, secret?: string): Promise<Response> {
  const endpoints = await listEndpoints(ctx.deps, ctx.orgId);
  const v = form?.values ?? {};
  const chosen = new Set(form?.events ?? EVENT_TYPES);
  const e = form?.errors ?? {};
  const body = html`<h1>Webhooks</h1>
<p class="muted">Signed HTTP POSTs to your own systems when something happens (Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>). Failed deliveries are retried; see each endpoint's log.</p>
${secret ? secretPanel(secret) : ""}
${listTable({
  caption: "Webhook endpoints",
  columns: ["Endpoint", "Events", "State", { label: "Actions", hidden: true }],
  rows: endpoints,
  row: (p) =>
    html`<tr><td><a href="/dashboard/webhooks/${p.id}"><code>${p.url}</code></a><div class="hint">${p.description}</div></td><td>${p.event_types.length === EVENT_TYPES.length ? "all" : p.event_types.join(", ")}</td><td>${
      p.enabled
        ? html`<span class="badge ok">enabled</span>`
        : html`<span class="badge warn">disabled</span>${p.disabled_reason ? html`<div class="hint">${p.disabled_reason}</div>` : ""}`
    }${p.failing_since ? html`<div class="hint">failing since ${when(p.failing_since)}</div>` : ""}</td><td>${actionButton(`/dashboard/webhooks/${p.id}/delete`, "Delete", { kind: "danger", confirm: "Delete this endpoint? Queued deliveries are cancelled." })}</td></tr>`,
  empty: "No endpoints yet.",
})}
<section class="panel" aria-labelledby="new-endpoint"><h2 id="new-endpoint">New endpoint</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/webhooks" novalidate>
${field({ name: "url", label: "URL", type: "url", value: v.url, error: e.url, required: true, maxLength: ENDPOINT_LIMITS.url, hint: "https; checked by the outbound guard now and on every delivery." })}
${field({ name: "description", label: "Description", value: v.description, error: e.description, maxLength: ENDPOINT_LIMITS.description })}
<fieldset><legend>Events</legend>${e.events ? html`<p class="field-error" id="events-error">${e.events}</p>` : ""}
${EVENT_TYPES.map((type, i) => html`<div class="check"><input type="checkbox" id="ev-${i}" name="events" value="${type}"${attrs({ checked: chosen.has(type) })}><label for="ev-${i}"><code>${type}</code></label></div>`)}
</fieldset>
<div class="actions">${submit("Create endpoint", { busy: "Creating…" })}</div>
</form></section>`;
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
  const body = html`<p><a href="/dashboard/webhooks">← Webhooks</a></p>
<h1><code>${endpoint.url}</code></h1>
<p class="muted">${endpoint.description}</p>
${secret ? secretPanel(secret) : ""}
<div class="actions">${actionButton(`/dashboard/webhooks/${id}/test`, "Send a test event", { kind: "secondary", busy: "Sending…" })} ${actionButton(
    `/dashboard/webhooks/${id}/rotate`,
    "Rotate the secret",
    {
      kind: "secondary",
      confirm: "Rotate the signing secret? The old one keeps signing for 24 hours.",
    },
  )}</div>
${endpoint.previous_secret_expires_at ? html`<p class="hint">The previous secret also signs until ${when(endpoint.previous_secret_expires_at)}.</p>` : ""}
<h2>Deliveries</h2>
${listTable({
  caption: "Latest deliveries",
  columns: ["Event", "Status", "Attempts", "Created", { label: "Actions", hidden: true }],
  rows: deliveries,
  row: (d) =>
    html`<tr><td><code>${d.event_type}</code><div class="hint"><code>${d.webhook_id}</code></div></td><td><span class="badge${d.status === "succeeded" ? " ok" : d.status === "failed" ? " warn" : ""}">${d.status}</span>${
      d.next_retry_at ? html`<div class="hint">next try ${when(d.next_retry_at)}</div>` : ""
    }</td><td>${d.attempts.length === 0 ? "—" : html`<ul>${d.attempts.map((a) => html`<li>${when(a.attempted_at)} · ${a.status_code ?? a.error ?? "no answer"} · ${a.duration_ms} ms</li>`)}</ul>`}</td><td>${when(d.created_at)}</td><td>${
      d.status === "failed"
        ? actionButton(`/dashboard/webhooks/${id}/deliveries/${d.id}/replay`, "Replay", { kind: "secondary", busy: "Replaying…" })
        : d.status === "pending" && d.attempts.length > 0
          ? actionButton(`/dashboard/webhooks/${id}/deliveries/${d.id}/replay`, "Retry now", { kind: "secondary", busy: "Retrying…" })
          : ""
    }</td></tr>`,
  empty: "No deliveries yet.",
})}
<p class="hint">The ${ENDPOINT_LIMITS.page} latest; the full log with filters is <code>GET /api/webhooks/${id}/deliveries</code>.</p>`;
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

export function webhookPages(deps: Deps) {
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
