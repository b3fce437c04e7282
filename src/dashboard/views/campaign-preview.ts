// A campaign's preview: every step as one customer (or a sample one) would receive it, nothing
// sent. The HTML part of each step is shown in a sandboxed frame (campaign-preview.ts serves it).
import { type Html, html } from "../../html/html.ts";
import { field } from "../kit/index.ts";
import type { Campaign } from "../../campaigns/model.ts";

export interface PreviewStep {
  stepId: string;
  position: number;
  /** When it is sent, in words ("at enrolment", "3d after enrolment"). */
  when: string;
  subject: string;
  text: string;
  /** The address of its HTML part. */
  htmlSrc: string;
}

export interface CampaignPreviewProps {
  campaign: Campaign;
  /** The customer as typed, and why it was refused. */
  customer: string;
  error: string | undefined;
  /** The longest customer reference the form takes. */
  refMax: number;
  /** The preview (none when the customer was refused). */
  preview: {
    /** The customer shown: a sample one, or one with a name and an id. */
    customer: { sample: boolean; id?: string; label: string; email: string | null };
    steps: readonly PreviewStep[];
  } | null;
}

function step(s: PreviewStep): Html {
  const n = String(s.position + 1);
  const head = html`<p><span class="badge accent">Step ${n}</span> <span class="muted">${s.when}</span></p><p><strong>${s.subject}</strong></p>`;
  return html`<article class="panel" aria-label="Step ${n}">${head}
<iframe sandbox class="mail-preview" src="${s.htmlSrc}" title="Email of step ${n}: ${s.subject}" referrerpolicy="no-referrer"></iframe>
<details><summary>Plain-text part</summary><pre>${s.text}</pre></details></article>`;
}

function steps(preview: NonNullable<CampaignPreviewProps["preview"]>): Html {
  const who = preview.customer;
  const name = who.sample ? "a sample customer" : html`<a href="/dashboard/customers/${who.id ?? ""}">${who.label}</a>`;
  return html`<p>For ${name}${who.email ? ` <${who.email}>` : ""}.</p>
${preview.steps.length === 0 ? html`<p>This campaign has no steps yet.</p>` : ""}
${preview.steps.map(step)}`;
}

export function CampaignPreview(p: CampaignPreviewProps): Html {
  const c = p.campaign;
  const links = html`Links in the preview do not open; scripts in a template never run here.`;
  const intro = html`Every step as one customer would receive it. Nothing is sent. ${links}`;
  const hint = "Email address, our id or your external id; empty: a sample customer.";
  return html`<p><a href="/dashboard/campaigns/${c.slug}">← ${c.name}</a></p>
<h1>Preview of ${c.name}</h1>
<p class="muted">${intro}</p>
<form method="get" action="/dashboard/campaigns/${c.slug}/preview" class="toolbar" aria-label="Preview for a customer">
${field({ name: "customer", label: "Customer", value: p.customer, error: p.error, maxLength: p.refMax, hint })}
<button type="submit" class="secondary">Preview</button>
</form>
${p.preview ? steps(p.preview) : ""}`;
}
