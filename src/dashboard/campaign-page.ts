// One campaign: its status and actions, its audience rule (its own form, with how many customers
// it matches now) and its steps, edited in one form. A refused form comes back with what was typed.
import { countAudience } from "../campaigns/audience.ts";
import { type Campaign, CAMPAIGN_LIMITS } from "../campaigns/model.ts";
import { enrolmentCounts } from "../campaigns/queries.ts";
import { attrs, html } from "../html/html.ts";
import {
  actionButton,
  checkbox,
  type DashboardContext,
  errorSummary,
  field,
  type FieldErrors,
  type FormValues,
  select,
  shellPage,
  submit,
  textarea,
} from "./kit/index.ts";
import { audienceForm, audienceSummary, audienceValues } from "./campaigns-audience.ts";
import { statusBadge } from "./campaign-common.ts";
import { formatDelay } from "./campaign-delay.ts";

const L = CAMPAIGN_LIMITS;

function stepValues(c: Campaign): FormValues {
  const v: FormValues = { name: c.name, sender_name: c.sender.name, reply_to: c.sender.replyTo ?? "", count: String(c.steps.length) };
  c.steps.forEach((s, i) => {
    v[`s${i}_id`] = s.id;
    v[`s${i}_delay`] = formatDelay(s.delaySeconds);
    v[`s${i}_from`] = s.delayFrom;
    v[`s${i}_subject`] = s.subject;
    v[`s${i}_body`] = s.body;
  });
  return v;
}

export interface FormState {
  values: FormValues;
  errors: FieldErrors;
  conflict?: boolean;
}

export async function campaignPage(ctx: DashboardContext, c: Campaign, form?: FormState, audience?: FormState): Promise<Response> {
  const counts = await enrolmentCounts(ctx.deps, ctx.orgId, c.id);
  const matching = c.audience ? await countAudience(ctx.deps, ctx.orgId, c.audience) : null;
  const manage = ctx.can("automation:manage") && c.status !== "archived";
  const v = form?.values ?? stepValues(c);
  const e = form?.errors ?? {};
  const n = Math.min(Number(v.count ?? c.steps.length) || 0, L.steps);
  const stepFields = (i: number, isNew: boolean) => html`<fieldset${attrs({ disabled: !manage })}><legend>${isNew ? "Add a step" : `Step ${i + 1}`}</legend>
${isNew ? "" : html`<input type="hidden" name="s${i}_id" value="${v[`s${i}_id`] ?? ""}">`}
<div class="grid2">
${field({ name: `s${i}_delay`, label: "Delay", value: v[`s${i}_delay`] ?? (isNew ? "1d" : ""), error: e[`s${i}_delay`], hint: "3d, 12h, 30m, 45s or 0." })}
${select({
  name: `s${i}_from`,
  label: "Counted from",
  value: v[`s${i}_from`] ?? "previous",
  error: e[`s${i}_from`],
  options: [
    { value: "previous", label: "the previous step" },
    { value: "enrolment", label: "enrolment" },
  ],
})}
</div>
${field({ name: `s${i}_subject`, label: "Subject", value: v[`s${i}_subject`], error: e[`s${i}_subject`], maxLength: L.subject })}
${textarea({ name: `s${i}_body`, label: "Body", value: v[`s${i}_body`], error: e[`s${i}_body`], rows: 5, hint: isNew ? "Leave subject and body empty to add no step. Markdown; {{name}}, {{first_name}}, {{email}}, {{company.name}} and {{traits.key}} are filled in per customer." : undefined })}
${isNew || !manage ? "" : checkbox({ name: `s${i}_remove`, label: "Remove this step", checked: v[`s${i}_remove`] === "on" })}
</fieldset>`;
  const body = html`<p><a href="/dashboard/campaigns">← Campaigns</a></p>
<h1>${c.name} ${statusBadge(c.status)}</h1>
<p class="muted">${c.slug} · enrolled: ${Object.entries(counts)
    .map(([state, k]) => `${k} ${state}`)
    .join(", ")}</p>
<div class="actions">
${ctx.can("automation:manage") && (c.status === "draft" || c.status === "paused") ? actionButton(`/dashboard/campaigns/${c.slug}/status`, "Activate", { busy: "Activating…", hidden: { to: "active" } }) : ""}
${ctx.can("automation:manage") && c.status === "active" ? actionButton(`/dashboard/campaigns/${c.slug}/status`, "Pause", { busy: "Pausing…", hidden: { to: "paused" } }) : ""}
<a class="button secondary" href="/dashboard/campaigns/${c.slug}/preview">Preview for a customer</a>
<a class="button secondary" href="/dashboard/campaigns/${c.slug}/messages">Outbox messages</a>
<a class="button secondary" href="/dashboard/campaigns/${c.slug}/enrolments">Enrolled customers</a>
${ctx.can("automation:manage") && c.status !== "archived" ? html`<a class="button secondary" href="/dashboard/campaigns/${c.slug}/archive">Archive…</a>` : ""}
</div>
${c.status === "archived" ? html`<p class="muted">Archived: this campaign sends nothing more, accepts no enrolment and cannot be edited. Its enrolments and messages stay listed.</p>` : ""}
<section class="panel" aria-labelledby="audience-h">
<h2 id="audience-h">Audience</h2>
${
  c.audience && matching
    ? html`<p>Customers are enrolled automatically ${c.status === "active" ? "(checked every minute)" : "once the campaign is active"} when all of these hold on their traits:</p>${audienceSummary(c.audience)}
<p id="audience-count">Matches <strong>${matching.capped ? `at least ${matching.count.toLocaleString("en")}` : matching.count.toLocaleString("en")}</strong> customer${matching.count === 1 && !matching.capped ? "" : "s"} now <span class="muted">(verified, with an email address, not unsubscribed; whoever is already enrolled or was removed is not enrolled again).</span></p>`
    : html`<p class="muted">No audience rule: customers are enrolled by hand (Enrolled customers), through the API or the automation tools.</p>`
}
${
  manage
    ? html`${audience?.conflict ? html`<p class="error" role="alert">The audience rule changed after you opened this page. Nothing was saved; your version is kept below: reload the page to see the saved rule.</p>` : ""}
${errorSummary(audience?.errors ?? {})}
${audienceForm(`/dashboard/campaigns/${c.slug}/audience`, audience?.values ?? audienceValues(c.audience), audience?.errors ?? {}, c.audience !== null)}`
    : ""
}
</section>
<h2>Campaign and steps</h2>
${errorSummary(e)}
${form?.conflict ? html`<p class="error" role="alert">This campaign changed after you opened it. Nothing was saved; your version is kept below: check it against the saved one (reload the page to see it) and save again.</p>` : ""}
<form method="post" action="/dashboard/campaigns/${c.slug}" novalidate>
<input type="hidden" name="count" value="${String(n)}">
<input type="hidden" name="version" value="${c.updatedAt.toISOString()}">
<fieldset${attrs({ disabled: !manage })}><legend>Campaign</legend>
${field({ name: "name", label: "Name", value: v.name, error: e.name, required: true, maxLength: L.name })}
<div class="grid2">
${field({ name: "sender_name", label: "Sender name", value: v.sender_name, error: e.sender, maxLength: L.senderName })}
${field({ name: "reply_to", label: "Reply-to address", type: "email", value: v.reply_to, error: e.reply_to, hint: "Optional." })}
</div>
</fieldset>
${e.steps ? html`<p class="field-error" id="f-steps">${e.steps}</p>` : ""}
${Array.from({ length: n }, (_, i) => stepFields(i, false))}
${manage && n < L.steps ? stepFields(n, true) : ""}
${manage ? html`<div class="actions">${submit("Save campaign", { busy: "Saving…" })}</div>` : html`<p class="muted">${c.status === "archived" ? "An archived campaign cannot be edited." : "Changing campaigns needs the automation:manage role."}</p>`}
</form>`;
  const state = form ?? audience;
  return shellPage(ctx, { title: c.name, active: "campaigns", body, status: state?.conflict ? 409 : state ? 400 : 200 });
}
