// One webhook endpoint: its address and description, the secret just rotated (shown on that answer
// only), the test and rotate buttons, and its latest deliveries with their attempts and a replay.
import { type Html, html } from "../../html/html.ts";
import type { listDeliveries } from "../../webhooks/deliveries.ts";
import type { getEndpoint } from "../../webhooks/service.ts";
import { actionButton } from "../kit/fields.ts";
import { listTable, when } from "../kit/table.ts";
import { WebhookSecret } from "./webhook-secret.ts";

type Delivery = Awaited<ReturnType<typeof listDeliveries>>[number];

export interface WebhookDetailProps {
  /** The endpoint's id as the page's address has it. */
  id: string;
  endpoint: Awaited<ReturnType<typeof getEndpoint>>;
  deliveries: Delivery[];
  /** How many deliveries are shown. */
  shown: number;
  /** The signing secret just rotated: shown on this answer only. */
  secret?: string;
}

function attempts(d: Delivery): Html | string {
  if (d.attempts.length === 0) return "—";
  const attempt = (a: Delivery["attempts"][number]) =>
    html`<li>${when(a.attempted_at)} · ${a.status_code ?? a.error ?? "no answer"} · ${a.duration_ms} ms</li>`;
  return html`<ul>${d.attempts.map(attempt)}</ul>`;
}

function deliveryRow(id: string, d: Delivery): Html {
  const tone = d.status === "succeeded" ? " ok" : d.status === "failed" ? " warn" : "";
  const replay = `/dashboard/webhooks/${id}/deliveries/${d.id}/replay`;
  const action =
    d.status === "failed"
      ? actionButton(replay, "Replay", { kind: "secondary", busy: "Replaying…" })
      : d.status === "pending" && d.attempts.length > 0
        ? actionButton(replay, "Retry now", { kind: "secondary", busy: "Retrying…" })
        : "";
  const next = d.next_retry_at ? html`<div class="hint">next try ${when(d.next_retry_at)}</div>` : "";
  return html`<tr><td><code>${d.event_type}</code><div class="hint"><code>${d.webhook_id}</code></div></td>\
<td><span class="badge${tone}">${d.status}</span>${next}</td><td>${attempts(d)}</td><td>${when(d.created_at)}</td><td>${action}</td></tr>`;
}

export function WebhookDetail(p: WebhookDetailProps): Html {
  const { endpoint } = p;
  const id = p.id;
  const test = actionButton(`/dashboard/webhooks/${id}/test`, "Send a test event", { kind: "secondary", busy: "Sending…" });
  const rotate = actionButton(`/dashboard/webhooks/${id}/rotate`, "Rotate the secret", {
    kind: "secondary",
    confirm: "Rotate the signing secret? The old one keeps signing for 24 hours.",
  });
  const previous = endpoint.previous_secret_expires_at
    ? html`<p class="hint">The previous secret also signs until ${when(endpoint.previous_secret_expires_at)}.</p>`
    : "";
  return html`<p><a href="/dashboard/webhooks">← Webhooks</a></p>
<h1><code>${endpoint.url}</code></h1>
<p class="muted">${endpoint.description}</p>
${p.secret ? WebhookSecret(p.secret) : ""}
<div class="actions">${test} ${rotate}</div>
${previous}
<h2>Deliveries</h2>
${listTable({
  caption: "Latest deliveries",
  columns: ["Event", "Status", "Attempts", "Created", { label: "Actions", hidden: true }],
  rows: p.deliveries,
  row: (d) => deliveryRow(id, d),
  empty: "No deliveries yet.",
})}
<p class="hint">The ${p.shown} latest; the full log with filters is <code>GET /api/webhooks/${id}/deliveries</code>.</p>`;
}
