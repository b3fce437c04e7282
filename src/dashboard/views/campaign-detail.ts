// One campaign: its status and actions, its audience rule (its own form, with how many customers
// it matches now) and its steps, edited in one form. A refused form comes back with what was typed.
import { attrs, type Html, html } from "../../html/html.ts";
import { actionButton, checkbox, errorSummary, field, type FieldErrors, type FormValues, select, submit, textarea } from "../kit/index.ts";
import { AudienceForm, audienceSummary } from "./campaign-audience.ts";
import { statusBadge } from "./campaign-status.ts";
import type { Campaign, CAMPAIGN_LIMITS } from "../../campaigns/model.ts";

/** A form as typed (or as saved), its errors, and whether it was refused for a concurrent change. */
export interface FormState {
  values: FormValues;
  errors: FieldErrors;
  conflict?: boolean;
}

export interface CampaignDetailProps {
  campaign: Campaign;
  /** Enrolments by state. */
  counts: Record<string, number>;
  /** How many customers the audience rule matches now (null: no rule). */
  matching: { count: number; capped: boolean } | null;
  /** The member holds automation:manage. */
  canManage: boolean;
  /** ...and the campaign is not archived: its forms are enabled. */
  manage: boolean;
  /** The steps form, as typed or as saved. */
  form: FormState;
  /** How many steps the form shows. */
  stepCount: number;
  /** The audience form, as typed or as saved. */
  audience: FormState;
  limits: typeof CAMPAIGN_LIMITS;
}

function stepFields(p: CampaignDetailProps, i: number, isNew: boolean): Html {
  const { values: v, errors: e } = p.form;
  const L = p.limits;
  const bodyHint = isNew
    ? "Leave subject and body empty to add no step. " +
      "Markdown; {{name}}, {{first_name}}, {{email}}, {{company.name}} and {{traits.key}} are filled in per customer."
    : undefined;
  const from = [
    { value: "previous", label: "the previous step" },
    { value: "enrolment", label: "enrolment" },
  ];
  const remove = isNew || !p.manage ? "" : checkbox({ name: `s${i}_remove`, label: "Remove this step", checked: v[`s${i}_remove`] === "on" });
  return html`<fieldset${attrs({ disabled: !p.manage })}><legend>${isNew ? "Add a step" : `Step ${i + 1}`}</legend>
${isNew ? "" : html`<input type="hidden" name="s${i}_id" value="${v[`s${i}_id`] ?? ""}">`}
<div class="grid2">
${field({ name: `s${i}_delay`, label: "Delay", value: v[`s${i}_delay`] ?? (isNew ? "1d" : ""), error: e[`s${i}_delay`], hint: "3d, 12h, 30m, 45s or 0." })}
${select({ name: `s${i}_from`, label: "Counted from", value: v[`s${i}_from`] ?? "previous", error: e[`s${i}_from`], options: from })}
</div>
${field({ name: `s${i}_subject`, label: "Subject", value: v[`s${i}_subject`], error: e[`s${i}_subject`], maxLength: L.subject })}
${textarea({ name: `s${i}_body`, label: "Body", value: v[`s${i}_body`], error: e[`s${i}_body`], rows: 5, hint: bodyHint })}
${remove}
</fieldset>`;
}

function actions(p: CampaignDetailProps): Html {
  const c = p.campaign;
  const status = `/dashboard/campaigns/${c.slug}/status`;
  const activate = p.canManage && (c.status === "draft" || c.status === "paused");
  const archive = p.canManage && c.status !== "archived";
  return html`<div class="actions">
${activate ? actionButton(status, "Activate", { busy: "Activating…", hidden: { to: "active" } }) : ""}
${p.canManage && c.status === "active" ? actionButton(status, "Pause", { busy: "Pausing…", hidden: { to: "paused" } }) : ""}
<a class="button secondary" href="/dashboard/campaigns/${c.slug}/preview">Preview for a customer</a>
<a class="button secondary" href="/dashboard/campaigns/${c.slug}/messages">Outbox messages</a>
<a class="button secondary" href="/dashboard/campaigns/${c.slug}/enrolments">Enrolled customers</a>
${archive ? html`<a class="button secondary" href="/dashboard/campaigns/${c.slug}/archive">Archive…</a>` : ""}
</div>`;
}

function audienceRule(p: CampaignDetailProps): Html {
  const c = p.campaign;
  const m = p.matching;
  if (!c.audience || !m) {
    return html`<p class="muted">No audience rule: customers are enrolled by hand (Enrolled customers), through the API or the automation tools.</p>`;
  }
  const when = c.status === "active" ? "(checked every minute)" : "once the campaign is active";
  const n = m.count.toLocaleString("en");
  const who = "(verified, with an email address, not unsubscribed; " + "whoever is already enrolled or was removed is not enrolled again).";
  const count = html`<strong>${m.capped ? `at least ${n}` : n}</strong> customer${m.count === 1 && !m.capped ? "" : "s"}`;
  return html`<p>Customers are enrolled automatically ${when} when all of these hold on their traits:</p>${audienceSummary(c.audience)}
<p id="audience-count">Matches ${count} now <span class="muted">${who}</span></p>`;
}

function audienceEdit(p: CampaignDetailProps): Html {
  const c = p.campaign;
  const a = p.audience;
  const kept = html`your version is kept below: reload the page to see the saved rule.`;
  const conflict = html`<p class="error" role="alert">The audience rule changed after you opened this page. Nothing was saved; ${kept}</p>`;
  const form = AudienceForm({
    action: `/dashboard/campaigns/${c.slug}/audience`,
    values: a.values,
    errors: a.errors,
    hasRule: c.audience !== null,
    limits: p.limits,
  });
  return html`${a.conflict ? conflict : ""}
${errorSummary(a.errors)}
${form}`;
}

function stepsForm(p: CampaignDetailProps): Html {
  const c = p.campaign;
  const { values: v, errors: e } = p.form;
  const L = p.limits;
  const n = p.stepCount;
  const closed = c.status === "archived" ? "An archived campaign cannot be edited." : "Changing campaigns needs the automation:manage role.";
  const save = p.manage ? html`<div class="actions">${submit("Save campaign", { busy: "Saving…" })}</div>` : html`<p class="muted">${closed}</p>`;
  return html`<form method="post" action="/dashboard/campaigns/${c.slug}" novalidate>
<input type="hidden" name="count" value="${String(n)}">
<input type="hidden" name="version" value="${c.updatedAt.toISOString()}">
<fieldset${attrs({ disabled: !p.manage })}><legend>Campaign</legend>
${field({ name: "name", label: "Name", value: v.name, error: e.name, required: true, maxLength: L.name })}
<div class="grid2">
${field({ name: "sender_name", label: "Sender name", value: v.sender_name, error: e.sender, maxLength: L.senderName })}
${field({ name: "reply_to", label: "Reply-to address", type: "email", value: v.reply_to, error: e.reply_to, hint: "Optional." })}
</div>
</fieldset>
${e.steps ? html`<p class="field-error" id="f-steps">${e.steps}</p>` : ""}
${Array.from({ length: n }, (_, i) => stepFields(p, i, false))}
${p.manage && n < L.steps ? stepFields(p, n, true) : ""}
${save}
</form>`;
}

export function CampaignDetail(p: CampaignDetailProps): Html {
  const c = p.campaign;
  const enrolled = Object.entries(p.counts)
    .map(([state, k]) => `${k} ${state}`)
    .join(", ");
  const stays = html`Its enrolments and messages stay listed.`;
  const archived = html`<p class="muted">Archived: this campaign sends nothing more, accepts no enrolment and cannot be edited. ${stays}</p>`;
  const kept = html`your version is kept below: check it against the saved one (reload the page to see it) and save again.`;
  const conflict = html`<p class="error" role="alert">This campaign changed after you opened it. Nothing was saved; ${kept}</p>`;
  return html`<p><a href="/dashboard/campaigns">← Campaigns</a></p>
<h1>${c.name} ${statusBadge(c.status)}</h1>
<p class="muted">${c.slug} · enrolled: ${enrolled}</p>
${actions(p)}
${c.status === "archived" ? archived : ""}
<section class="panel" aria-labelledby="audience-h">
<h2 id="audience-h">Audience</h2>
${audienceRule(p)}
${p.manage ? audienceEdit(p) : ""}
</section>
<h2>Campaign and steps</h2>
${errorSummary(p.form.errors)}
${p.form.conflict ? conflict : ""}
${stepsForm(p)}`;
}
