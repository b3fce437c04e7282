// The webhooks page: the endpoints with their events and state (a delete button each), the secret
// of an endpoint just made, and the form making a new one.
import { attrs, type Html, html } from "../../html/html.ts";
import type { listEndpoints } from "../../webhooks/service.ts";
import { actionButton, errorSummary, type FieldErrors, field, type FormValues, submit } from "../kit/fields.ts";
import { listTable, when } from "../kit/table.ts";
import { WebhookSecret } from "./webhook-secret.ts";

type Endpoint = Awaited<ReturnType<typeof listEndpoints>>[number];

export interface WebhookListProps {
  endpoints: Endpoint[];
  eventTypes: readonly string[];
  limits: { url: number; description: number };
  /** The signing secret of the endpoint just made: shown on this answer only. */
  secret?: string;
  values: FormValues;
  errors: FieldErrors;
  /** The events ticked in the form. */
  chosen: ReadonlySet<string>;
}

function endpointRow(p: WebhookListProps, e: Endpoint): Html {
  const events = e.event_types.length === p.eventTypes.length ? "all" : e.event_types.join(", ");
  const state = e.enabled
    ? html`<span class="badge ok">enabled</span>`
    : html`<span class="badge warn">disabled</span>${e.disabled_reason ? html`<div class="hint">${e.disabled_reason}</div>` : ""}`;
  const failing = e.failing_since ? html`<div class="hint">failing since ${when(e.failing_since)}</div>` : "";
  const remove = actionButton(`/dashboard/webhooks/${e.id}/delete`, "Delete", {
    kind: "danger",
    confirm: "Delete this endpoint? Queued deliveries are cancelled.",
  });
  return html`<tr><td><a href="/dashboard/webhooks/${e.id}"><code>${e.url}</code></a><div class="hint">${e.description}</div></td>\
<td>${events}</td><td>${state}${failing}</td><td>${remove}</td></tr>`;
}

function newEndpoint(p: WebhookListProps): Html {
  const { values: v, errors: e } = p;
  const event = (type: string, i: number) =>
    html`<div class="check"><input type="checkbox" id="ev-${i}" name="events" value="${type}"${attrs({ checked: p.chosen.has(type) })}>\
<label for="ev-${i}"><code>${type}</code></label></div>`;
  const url = field({
    name: "url",
    label: "URL",
    type: "url",
    value: v.url,
    error: e.url,
    required: true,
    maxLength: p.limits.url,
    hint: "https; checked by the outbound guard now and on every delivery.",
  });
  return html`<section class="panel" aria-labelledby="new-endpoint"><h2 id="new-endpoint">New endpoint</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/webhooks" novalidate>
${url}
${field({ name: "description", label: "Description", value: v.description, error: e.description, maxLength: p.limits.description })}
<fieldset><legend>Events</legend>${e.events ? html`<p class="field-error" id="events-error">${e.events}</p>` : ""}
${p.eventTypes.map(event)}
</fieldset>
<div class="actions">${submit("Create endpoint", { busy: "Creating…" })}</div>
</form></section>`;
}

export function WebhookList(p: WebhookListProps): Html {
  return html`<h1>Webhooks</h1>
<p class="muted">Signed HTTP POSTs to your own systems when something happens \
(Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>). \
Failed deliveries are retried; see each endpoint's log.</p>
${p.secret ? WebhookSecret(p.secret) : ""}
${listTable({
  caption: "Webhook endpoints",
  columns: ["Endpoint", "Events", "State", { label: "Actions", hidden: true }],
  rows: p.endpoints,
  row: (e) => endpointRow(p, e),
  empty: "No endpoints yet.",
})}
${newEndpoint(p)}`;
}
