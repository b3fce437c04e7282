// Dashboard: campaigns (issue #14; automation:view to read, automation:manage to change). The list
// (archived campaigns behind a filter) with a create form, a campaign with its steps (edited in one
// form) and its audience rule (its own form, with how many customers it matches), activate or
// pause, archive after a confirmation page, a preview of every step for a customer (the HTML part
// in a sandboxed frame; nothing is sent), who is enrolled (enrol and remove by hand), and the
// campaign's messages in the outbox. Every action goes through src/campaigns/service.ts, as
// /api/campaigns does.
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import {
  type Campaign,
  CAMPAIGN_LIMITS,
  campaignOr404,
  countAudience,
  createCampaign,
  editCampaign,
  enrolCustomer,
  enrolmentCounts,
  enrolmentOf,
  listCampaigns,
  listEnrolments,
  listMessages,
  previewCampaign,
  queuedMessageCount,
  removeCustomer,
  setCampaignStatus,
  type StepInput,
} from "../campaigns/service.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { type EndUser, findEndUser, findEndUserByEmail } from "../customers/records.ts";
import { Html, html } from "../html/html.ts";
import { audienceForm, audienceFrom, audienceServiceErrors, audienceSummary, audienceValues, audienceVersion } from "./campaigns-audience.ts";
import { cursorPager } from "./inbox.ts";
import { actionButton, checkbox, DASHBOARD_CSP, type DashboardContext, errorSummary, field, type FieldErrors, formValues, type FormValues, pageNumber, pageOf, pager, redirect, select, shellPage, submit, textarea, when, withMember, formBody } from "./shell.ts";

const L = CAMPAIGN_LIMITS;
const UNITS: [string, number][] = [
  ["d", 86_400],
  ["h", 3_600],
  ["m", 60],
  ["s", 1],
];

/** A delay in seconds as the dashboard writes it: the largest exact unit (`3d`, `90m`, `45s`, `0`). */
export function formatDelay(seconds: number): string {
  if (seconds === 0) return "0";
  for (const [unit, size] of UNITS) if (seconds % size === 0) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}

/** `3d`, `12h`, `30m`, `45s` or plain seconds; null when it is not one of those. */
export function parseDelay(text: string): number | null {
  const match = /^(\d{1,9})\s*([dhms]?)$/i.exec(text.trim());
  if (!match) return null;
  const size = UNITS.find(([unit]) => unit === (match[2] || "s").toLowerCase())![1];
  return Number(match[1]) * size;
}

function statusBadge(status: string): Html {
  const cls = status === "active" ? "ok" : status === "paused" ? "warn" : status === "archived" ? "" : "accent";
  return html`<span class="badge ${cls}">${status}</span>`;
}

function actor(ctx: DashboardContext) {
  return memberActor(ctx.principal.member.id);
}

/** Field errors from a service 400: details name `/name`, `/steps/2/subject`… (form fields `name`, `s2_subject`). */
function serviceErrors(error: AppError): FieldErrors {
  const errors: FieldErrors = {};
  for (const d of error.details ?? []) {
    const parts = (d.path ?? "").split("/").filter(Boolean);
    const key = parts[0] === "steps" && parts.length >= 3 ? `s${parts[1]}_${parts[2] === "delay_seconds" ? "delay" : parts[2]}` : parts[0] === "steps" ? "steps" : (parts[0] ?? "name");
    errors[key] ??= d.message;
  }
  if (Object.keys(errors).length === 0) errors.name = error.message;
  return errors;
}

// ---- list ---------------------------------------------------------------------------------------

/** The list's filter: the default hides archived campaigns; "archived" shows only them, "all" everything. */
const LIST_FILTERS = ["", "draft", "active", "paused", "archived", "all"] as const;

async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>, form?: { values: FormValues; errors: FieldErrors }): Promise<Response> {
  const all = await listCampaigns(ctx.deps, ctx.orgId, undefined);
  const filter = (LIST_FILTERS as readonly string[]).includes(query.status ?? "") ? (query.status ?? "") : "";
  const shown = filter === "all" ? all : filter === "" ? all.filter((c) => c.status !== "archived") : all.filter((c) => c.status === filter);
  const archived = filter === "" ? all.filter((c) => c.status === "archived").length : 0;
  const page = pageOf(shown, pageNumber(query.page));
  const v = form?.values ?? {};
  const e = form?.errors ?? {};
  const body = html`<h1>Campaigns</h1>
<p class="muted">Email series sent to customers after they enrol, one step after another.</p>
<form method="get" action="/dashboard/campaigns" class="toolbar" aria-label="Filter campaigns">
${select({ name: "status", label: "Status", value: filter, options: [{ value: "", label: "All but archived" }, ...["draft", "active", "paused", "archived"].map((s) => ({ value: s, label: s })), { value: "all", label: "All, archived too" }] })}
<button type="submit" class="secondary">Filter</button>
</form>
<table>
<caption class="sr-only">Campaigns</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Steps</th><th scope="col">Audience</th><th scope="col">Updated</th></tr></thead>
<tbody>${page.items.map((c) => html`<tr><td><a href="/dashboard/campaigns/${c.slug}">${c.name}</a> <span class="muted">${c.slug}</span></td><td>${statusBadge(c.status)}</td><td>${c.steps.length}</td><td>${c.audience ? `${c.audience.all.length} condition${c.audience.all.length === 1 ? "" : "s"}` : "enrol by hand or API"}</td><td>${when(c.updatedAt)}</td></tr>`)}${page.items.length === 0 ? html`<tr><td colspan="5">${filter === "archived" ? "No archived campaigns." : filter && filter !== "all" ? "No campaign with this status." : "No campaigns yet."}</td></tr>` : ""}</tbody>
</table>
${pager("/dashboard/campaigns", { status: filter || undefined }, page.page, page.hasMore)}
${archived > 0 ? html`<p class="muted">${archived === 1 ? "One archived campaign is" : `${archived} archived campaigns are`} not listed: <a href="/dashboard/campaigns?status=archived">show archived campaigns</a>.</p>` : ""}
${ctx.can("automation:manage")
  ? html`<section class="panel" aria-labelledby="new-h"><h2 id="new-h">New campaign</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/campaigns" novalidate>
${field({ name: "name", label: "Name", value: v.name, error: e.name, required: true, maxLength: L.name })}
${field({ name: "slug", label: "Slug", value: v.slug, error: e.slug, maxLength: L.slug, hint: "Optional: lower-case letters, digits and hyphens; derived from the name when empty." })}
<div class="actions">${submit("Create campaign", { busy: "Creating…" })}</div>
</form></section>`
  : ""}`;
  return shellPage(ctx, { title: "Campaigns", active: "campaigns", body, status: form ? 400 : 200 });
}

// ---- one campaign ---------------------------------------------------------------------------------

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

interface FormState {
  values: FormValues;
  errors: FieldErrors;
  conflict?: boolean;
}

async function campaignPage(ctx: DashboardContext, c: Campaign, form?: FormState, audience?: FormState): Promise<Response> {
  const counts = await enrolmentCounts(ctx.deps, ctx.orgId, c.id);
  const matching = c.audience ? await countAudience(ctx.deps, ctx.orgId, c.audience) : null;
  const manage = ctx.can("automation:manage") && c.status !== "archived";
  const v = form?.values ?? stepValues(c);
  const e = form?.errors ?? {};
  const n = Math.min(Number(v.count ?? c.steps.length) || 0, L.steps);
  const stepFields = (i: number, isNew: boolean) => html`<fieldset${manage ? "" : new Html(" disabled")}><legend>${isNew ? "Add a step" : `Step ${i + 1}`}</legend>
${isNew ? "" : html`<input type="hidden" name="s${i}_id" value="${v[`s${i}_id`] ?? ""}">`}
<div class="grid2">
${field({ name: `s${i}_delay`, label: "Delay", value: v[`s${i}_delay`] ?? (isNew ? "1d" : ""), error: e[`s${i}_delay`], hint: "3d, 12h, 30m, 45s or 0." })}
${select({ name: `s${i}_from`, label: "Counted from", value: v[`s${i}_from`] ?? "previous", error: e[`s${i}_from`], options: [{ value: "previous", label: "the previous step" }, { value: "enrolment", label: "enrolment" }] })}
</div>
${field({ name: `s${i}_subject`, label: "Subject", value: v[`s${i}_subject`], error: e[`s${i}_subject`], maxLength: L.subject })}
${textarea({ name: `s${i}_body`, label: "Body", value: v[`s${i}_body`], error: e[`s${i}_body`], rows: 5, hint: isNew ? "Leave subject and body empty to add no step. Markdown; {{name}}, {{first_name}}, {{email}}, {{company.name}} and {{traits.key}} are filled in per customer." : undefined })}
${isNew || !manage ? "" : checkbox({ name: `s${i}_remove`, label: "Remove this step", checked: v[`s${i}_remove`] === "on" })}
</fieldset>`;
  const body = html`<p><a href="/dashboard/campaigns">← Campaigns</a></p>
<h1>${c.name} ${statusBadge(c.status)}</h1>
<p class="muted">${c.slug} · enrolled: ${Object.entries(counts).map(([state, k]) => `${k} ${state}`).join(", ")}</p>
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
${c.audience && matching
  ? html`<p>Customers are enrolled automatically ${c.status === "active" ? "(checked every minute)" : "once the campaign is active"} when all of these hold on their traits:</p>${audienceSummary(c.audience)}
<p id="audience-count">Matches <strong>${matching.capped ? `at least ${matching.count.toLocaleString("en")}` : matching.count.toLocaleString("en")}</strong> customer${matching.count === 1 && !matching.capped ? "" : "s"} now <span class="muted">(verified, with an email address, not unsubscribed; whoever is already enrolled or was removed is not enrolled again).</span></p>`
  : html`<p class="muted">No audience rule: customers are enrolled by hand (Enrolled customers), through the API or the automation tools.</p>`}
${manage
  ? html`${audience?.conflict ? html`<p class="error" role="alert">The audience rule changed after you opened this page. Nothing was saved; your version is kept below: reload the page to see the saved rule.</p>` : ""}
${errorSummary(audience?.errors ?? {})}
${audienceForm(`/dashboard/campaigns/${c.slug}/audience`, audience?.values ?? audienceValues(c.audience), audience?.errors ?? {}, c.audience !== null)}`
  : ""}
</section>
<h2>Campaign and steps</h2>
${errorSummary(e)}
${form?.conflict ? html`<p class="error" role="alert">This campaign changed after you opened it. Nothing was saved; your version is kept below: check it against the saved one (reload the page to see it) and save again.</p>` : ""}
<form method="post" action="/dashboard/campaigns/${c.slug}" novalidate>
<input type="hidden" name="count" value="${String(n)}">
<input type="hidden" name="version" value="${c.updatedAt.toISOString()}">
<fieldset${manage ? "" : new Html(" disabled")}><legend>Campaign</legend>
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

/** The edit form's values as the service's patch, or the field errors that stop it. */
function patchFrom(v: FormValues): { patch: { name: string; steps: StepInput[]; sender: { name: string; reply_to?: string | null } }; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const name = (v.name ?? "").trim();
  if (!name) errors.name = "Give the campaign a name.";
  else if (name.length > L.name) errors.name = `At most ${L.name} characters.`;
  const count = Math.min(Number(v.count) || 0, L.steps);
  const steps: StepInput[] = [];
  // Existing steps 0..count-1 (keeping their ids), then the blank "add a step" one at index count.
  for (let i = 0; i <= count; i++) {
    const isNew = i === count;
    if (!isNew && v[`s${i}_remove`] === "on") continue;
    const subject = v[`s${i}_subject`] ?? "";
    const body = v[`s${i}_body`] ?? "";
    if (isNew && subject.trim() === "" && body.trim() === "") continue;
    const delay = parseDelay(v[`s${i}_delay`] ?? "");
    if (delay === null || delay > L.delaySeconds) errors[`s${i}_delay`] = delay === null ? "Write a delay as 3d, 12h, 30m, 45s or 0." : "At most 365 days.";
    if (subject.trim() === "") errors[`s${i}_subject`] = "Give the email a subject.";
    else if (subject.length > L.subject) errors[`s${i}_subject`] = `At most ${L.subject} characters.`;
    if (body.trim() === "") errors[`s${i}_body`] = "Write the email.";
    else if (body.length > L.body) errors[`s${i}_body`] = `At most ${L.body} characters (this has ${body.length}).`;
    const id = isNew ? undefined : v[`s${i}_id`];
    steps.push({ ...(id ? { id } : {}), delay_seconds: delay ?? 0, delay_from: v[`s${i}_from`] === "enrolment" ? "enrolment" : "previous", subject, body });
  }
  const replyTo = (v.reply_to ?? "").trim();
  return { patch: { name, steps, sender: { name: (v.sender_name ?? "").trim() || name, reply_to: replyTo === "" ? null : replyTo } }, errors };
}

/** Service errors name steps by their position in the patch; the form names them by their row (removed rows shift the positions). */
function remapStepErrors(errors: FieldErrors, v: FormValues): FieldErrors {
  const count = Math.min(Number(v.count) || 0, L.steps);
  const rows: number[] = [];
  for (let i = 0; i <= count; i++) {
    if (i < count && v[`s${i}_remove`] === "on") continue;
    if (i === count && (v[`s${i}_subject`] ?? "").trim() === "" && (v[`s${i}_body`] ?? "").trim() === "") continue;
    rows.push(i);
  }
  const out: FieldErrors = {};
  for (const [key, message] of Object.entries(errors)) {
    const m = /^s(\d+)_(.+)$/.exec(key);
    out[m ? `s${rows[Number(m[1])] ?? m[1]}_${m[2]}` : key === "sender" && message.includes("email") ? "reply_to" : key] = message;
  }
  return out;
}

// ---- customers named in a form ------------------------------------------------------------------

/** The longest customer reference a form accepts: the API's (src/campaigns/routes.ts CustomerRef). */
const CUSTOMER_REF_MAX = 256;

/**
 * A customer of this org named as the API names them (our id, or the org's external id), or by
 * email address: the dashboard's own convenience (the verified record wins, src/customers).
 */
async function customerByRef(deps: Deps, orgId: string, ref: string): Promise<EndUser | null> {
  return (await findEndUser(deps, orgId, ref)) ?? (ref.includes("@") ? await findEndUserByEmail(deps, orgId, ref) : null);
}

/** The text of a customer field: trimmed, with the error to show when it cannot name anyone. */
function customerRef(raw: string | undefined): { ref: string; error?: string } {
  const ref = (raw ?? "").trim();
  if (ref === "") return { ref, error: "Name a customer: their email address, our id or your external id." };
  if (ref.length > CUSTOMER_REF_MAX) return { ref, error: `At most ${CUSTOMER_REF_MAX} characters (this has ${ref.length}).` };
  return { ref };
}

function customerLabel(user: { name?: string | null; email?: string | null }): string {
  return user.name || user.email || "a customer";
}

// ---- preview and outbox -------------------------------------------------------------------------

/**
 * The preview page may frame its own origin (the HTML part of each step, served by the route
 * below); everything else is the dashboard's policy.
 */
export const PREVIEW_PAGE_CSP = DASHBOARD_CSP.replace("frame-ancestors", "frame-src 'self'; frame-ancestors");

/**
 * The HTML part of a step, shown inside the preview page. The template is the org's own markdown
 * (raw HTML allowed, as in any email tool) and values from customers are escaped by the renderer;
 * still, a member who edits templates must not run script in the browser of a member who previews
 * them. So the document is sandboxed twice: the frame has `sandbox` without allow-scripts, and the
 * response's CSP carries `sandbox` too (also when opened on its own): no script, no form, no
 * plugin, an opaque origin without the dashboard's cookies. Inline styles and https images load,
 * as in a mail client; it may be framed only by the dashboard (frame-ancestors, X-Frame-Options).
 */
export const PREVIEW_HTML_CSP = "sandbox; default-src 'none'; img-src https: data:; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'";

function previewHtmlResponse(markup: string): Response {
  return new Response(markup, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": PREVIEW_HTML_CSP,
      "x-frame-options": "SAMEORIGIN",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
    },
  });
}

async function previewPage(ctx: DashboardContext, c: Campaign, customer: string | undefined): Promise<Response> {
  let user: EndUser | null = null;
  let error: string | undefined;
  const named = customer?.trim() ? customerRef(customer) : null;
  if (named?.error) error = named.error;
  else if (named) {
    user = await customerByRef(ctx.deps, ctx.orgId, named.ref);
    if (!user) error = "No customer with this email address, id or external id.";
  }
  const preview = error ? null : await previewCampaign(ctx.deps, ctx.orgId, c, user?.id);
  const htmlSrc = (stepId: string) => `/dashboard/campaigns/${c.slug}/preview/${encodeURIComponent(stepId)}${user ? `?customer=${user.id}` : ""}`;
  const body = html`<p><a href="/dashboard/campaigns/${c.slug}">← ${c.name}</a></p>
<h1>Preview of ${c.name}</h1>
<p class="muted">Every step as one customer would receive it. Nothing is sent. Links in the preview do not open; scripts in a template never run here.</p>
<form method="get" action="/dashboard/campaigns/${c.slug}/preview" class="toolbar" aria-label="Preview for a customer">
${field({ name: "customer", label: "Customer", value: customer ?? "", error, maxLength: CUSTOMER_REF_MAX, hint: "Email address, our id or your external id; empty: a sample customer." })}
<button type="submit" class="secondary">Preview</button>
</form>
${preview
  ? html`<p>For ${preview.customer.sample ? "a sample customer" : html`<a href="/dashboard/customers/${preview.customer.id ?? ""}">${customerLabel(preview.customer)}</a>`}${preview.customer.email ? ` <${preview.customer.email}>` : ""}.</p>
${preview.steps.length === 0 ? html`<p>This campaign has no steps yet.</p>` : ""}
${preview.steps.map(
  (s) => html`<article class="panel" aria-label="Step ${String(s.position + 1)}"><p><span class="badge accent">Step ${String(s.position + 1)}</span> <span class="muted">${s.seconds_after_enrolment === 0 ? "at enrolment" : `${formatDelay(s.seconds_after_enrolment)} after enrolment`}</span></p><p><strong>${s.subject}</strong></p>
<iframe sandbox class="mail-preview" src="${htmlSrc(s.step_id)}" title="Email of step ${String(s.position + 1)}: ${s.subject}" referrerpolicy="no-referrer"></iframe>
<details><summary>Plain-text part</summary><pre>${s.text}</pre></details></article>`,
)}`
  : ""}`;
  return shellPage(ctx, { title: `Preview · ${c.name}`, active: "campaigns", body, status: !error ? 200 : named?.error ? 400 : 404, headers: { "content-security-policy": PREVIEW_PAGE_CSP } });
}

/** The HTML part of one step for a customer (or the sample one), framed by the preview page. */
async function previewHtml(ctx: DashboardContext, c: Campaign, stepId: string, customer: string | undefined): Promise<Response> {
  let userId: string | undefined;
  if (customer !== undefined && customer !== "") {
    const user = await findEndUser(ctx.deps, ctx.orgId, customer);
    if (!user) throw AppError.notFound("No such customer.");
    userId = user.id;
  }
  const step = c.steps.find((s) => s.id === stepId);
  if (!step) throw AppError.notFound("This campaign has no such step (it may have been removed).");
  // One frame per step: render that step only (its HTML does not depend on the others).
  const [preview] = (await previewCampaign(ctx.deps, ctx.orgId, { ...c, steps: [step] }, userId)).steps;
  return previewHtmlResponse(preview!.html);
}

const MESSAGE_STATUSES = ["pending", "sending", "parked", "sent", "held", "failed", "cancelled"];

async function messagesPage(ctx: DashboardContext, c: Campaign, query: Record<string, string | undefined>): Promise<Response> {
  const status = query.status && MESSAGE_STATUSES.includes(query.status) ? query.status : undefined;
  const page = await listMessages(ctx.deps, ctx.orgId, c.id, { status, cursor: query.cursor || undefined, limit: 25 });
  const badge = (s: string) => html`<span class="badge ${s === "sent" ? "ok" : s === "failed" ? "danger" : s === "held" || s === "parked" ? "warn" : ""}">${s}</span>`;
  const body = html`<p><a href="/dashboard/campaigns/${c.slug}">← ${c.name}</a></p>
<h1>Messages of ${c.name}</h1>
<form method="get" action="/dashboard/campaigns/${c.slug}/messages" class="toolbar" aria-label="Filter messages">
${select({ name: "status", label: "Status", value: status ?? "", options: [{ value: "", label: "All" }, ...MESSAGE_STATUSES.map((s) => ({ value: s, label: s }))] })}
<button type="submit" class="secondary">Filter</button>
</form>
<table>
<caption class="sr-only">Outbox messages</caption>
<thead><tr><th scope="col">Created</th><th scope="col">To</th><th scope="col">Subject</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Why / next attempt</th></tr></thead>
<tbody>${page.messages.map((m) => html`<tr><td>${when(m.created_at)}</td><td><a href="/dashboard/customers/${m.customer_id}">${m.to}</a></td><td>${m.subject}</td><td>${badge(m.status)}</td><td>${String(m.attempts)}</td><td>${m.reason ?? (m.next_attempt_at ? `next at ${when(m.next_attempt_at)}` : m.sent_at ? `sent ${when(m.sent_at)}` : "—")}</td></tr>`)}${page.messages.length === 0 ? html`<tr><td colspan="6">No messages${status ? " with this status" : " yet"}.</td></tr>` : ""}</tbody>
</table>
${cursorPager(`/dashboard/campaigns/${c.slug}/messages`, query, page.next_cursor)}`;
  return shellPage(ctx, { title: `Messages · ${c.name}`, active: "campaigns", body });
}

const ENROLMENT_STATES = ["active", "completed", "removed", "unsubscribed"] as const;
const ENROLMENT_PAGE = 25;

function enrolmentsPath(c: Campaign, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  if (query.state) params.set("state", query.state);
  if (query.cursor) params.set("cursor", query.cursor);
  const qs = params.toString();
  return `/dashboard/campaigns/${c.slug}/enrolments${qs ? `?${qs}` : ""}`;
}

async function enrolmentsPage(ctx: DashboardContext, c: Campaign, query: Record<string, string | undefined>, form?: FormState & { status: number }): Promise<Response> {
  const state = (ENROLMENT_STATES as readonly string[]).includes(query.state ?? "") ? (query.state as (typeof ENROLMENT_STATES)[number]) : undefined;
  const page = await listEnrolments(ctx.deps, ctx.orgId, c.id, { state, cursor: query.cursor || undefined, limit: ENROLMENT_PAGE });
  const manage = ctx.can("automation:manage") && c.status !== "archived";
  const v = form?.values ?? {};
  const e = form?.errors ?? {};
  // Each row's remove button posts the customer's id and comes back to this page of the list.
  const removeButton = (customerId: string, label: string) =>
    html`<form method="post" action="/dashboard/campaigns/${c.slug}/enrolments" class="inline"><input type="hidden" name="do" value="remove"><input type="hidden" name="customer" value="${customerId}">${state ? html`<input type="hidden" name="state" value="${state}">` : ""}${query.cursor ? html`<input type="hidden" name="cursor" value="${query.cursor}">` : ""}<button type="submit" class="danger small" aria-label="Remove ${label} from this campaign">Remove</button></form>`;
  const body = html`<p><a href="/dashboard/campaigns/${c.slug}">← ${c.name}</a></p>
<h1>Enrolled in ${c.name}</h1>
${manage
  ? html`<section class="panel" aria-labelledby="enrol-h"><h2 id="enrol-h">Enrol or remove a customer</h2>
<p class="muted">${c.status === "active" ? "An enrolled customer receives the steps from the first one, each at its delay; enrolling someone again never resends a step, and someone removed earlier continues where they stopped." : `The campaign is ${c.status}: customers can be enrolled once it is active. Removing works now.`} Only verified customers with an email address are mailed; whoever unsubscribed never is.</p>
${errorSummary(e)}
<form method="post" action="/dashboard/campaigns/${c.slug}/enrolments" novalidate class="toolbar">
${field({ name: "customer", label: "Customer", value: v.customer, error: e.customer, maxLength: CUSTOMER_REF_MAX, hint: "Email address, our id or your external id." })}
${submit("Enrol", { name: "do", value: "enrol", busy: "Enrolling…" })}
${submit("Remove", { name: "do", value: "remove", kind: "danger" })}
</form></section>`
  : ""}
<form method="get" action="/dashboard/campaigns/${c.slug}/enrolments" class="toolbar" aria-label="Filter enrolments">
${select({ name: "state", label: "State", value: state ?? "", options: [{ value: "", label: "All" }, ...ENROLMENT_STATES.map((s) => ({ value: s, label: s }))] })}
<button type="submit" class="secondary">Filter</button>
</form>
<table>
<caption class="sr-only">Enrolments</caption>
<thead><tr><th scope="col">Customer</th><th scope="col">State</th><th scope="col">Enrolled</th><th scope="col">Last step</th><th scope="col">How</th>${manage ? html`<th scope="col"><span class="sr-only">Actions</span></th>` : ""}</tr></thead>
<tbody>${page.enrolments.map((en) => {
    const label = customerLabel(en.customer as { name?: string; email?: string | null });
    const email = "email" in en.customer && en.customer.email && en.customer.email !== label ? en.customer.email : "";
    return html`<tr><td><a href="/dashboard/customers/${en.customer.id}">${label}</a>${email ? html` <span class="muted">${email}</span>` : ""}</td><td><span class="badge${en.state === "active" ? " ok" : en.state === "unsubscribed" ? " warn" : ""}">${en.state}</span></td><td>${when(en.enrolled_at)}</td><td>${when(en.last_step_at)}</td><td>${en.source}</td>${manage ? html`<td>${en.state === "active" || en.state === "completed" ? removeButton(en.customer.id, label) : ""}</td>` : ""}</tr>`;
  })}${page.enrolments.length === 0 ? html`<tr><td colspan="${manage ? "6" : "5"}">Nobody${state ? " in this state" : " yet"}.</td></tr>` : ""}</tbody>
</table>
${cursorPager(`/dashboard/campaigns/${c.slug}/enrolments`, query, page.next_cursor)}`;
  return shellPage(ctx, { title: `Enrolled · ${c.name}`, active: "campaigns", body, status: form?.status ?? 200 });
}

/** Enrol or remove one customer through the service, then back to the list with what happened. */
async function changeEnrolment(ctx: DashboardContext, c: Campaign, values: FormValues): Promise<Response> {
  const query = { state: values.state, cursor: values.cursor };
  const fail = (status: number, message: string) => enrolmentsPage(ctx, c, query, { values, errors: { customer: message }, status });
  const action = values.do;
  if (action !== "enrol" && action !== "remove") return fail(400, "Choose Enrol or Remove.");
  const named = customerRef(values.customer);
  if (named.error) return fail(400, named.error);
  const user = await customerByRef(ctx.deps, ctx.orgId, named.ref);
  if (!user) return fail(404, "No customer with this email address, id or external id.");
  const who = customerLabel(user);
  // Only for the message: what the enrolment was before (the service functions are idempotent).
  const before = await enrolmentOf(ctx.deps, ctx.orgId, c.id, user.id);
  try {
    if (action === "enrol") {
      const { enrolment, created } = await enrolCustomer(ctx.deps, { orgId: ctx.orgId, actor: actor(ctx), campaign: c, endUser: user, source: "api" });
      const text =
        enrolment.state === "unsubscribed"
          ? `${who} unsubscribed from your emails: recorded as unsubscribed, never mailed.`
          : created
            ? `${who} enrolled.`
            : before?.state === "removed" && enrolment.state === "active"
              ? `${who} enrolled again: they continue where they stopped, no step is sent twice.`
              : `${who} was already enrolled (${enrolment.state}); no step is sent twice.`;
      return redirect(ctx.deps, enrolmentsPath(c, query), { kind: enrolment.state === "unsubscribed" ? "error" : "ok", text });
    }
    const enrolment = await removeCustomer(ctx.deps, { orgId: ctx.orgId, actor: actor(ctx), campaign: c, endUser: user });
    if (!enrolment) return fail(404, `${who} is not enrolled in this campaign.`);
    const changed = before?.state === "active" || before?.state === "completed";
    return redirect(ctx.deps, enrolmentsPath(c, query), changed ? `${who} removed: no further step is sent, and their queued mail is cancelled.` : `${who} was already ${enrolment.state}: nothing changed.`);
  } catch (error) {
    // Not active (409) or not verified (403): said next to the field.
    if (error instanceof AppError && (error.status === 409 || error.status === 403)) return fail(error.status, error.message);
    throw error;
  }
}

// ---- archive ------------------------------------------------------------------------------------

/**
 * Archiving asks first, on its own page (works without the script): what it cancels, in numbers.
 * setCampaignStatus(archived) cancels the campaign's pending and parked outbox rows in the same
 * transaction; the mail sender checks the campaign again before each delivery, so a row claimed a
 * moment earlier is cancelled too unless it is already being handed to the mail server.
 */
async function archivePage(ctx: DashboardContext, c: Campaign, error?: string): Promise<Response> {
  if (c.status === "archived") return redirect(ctx.deps, `/dashboard/campaigns/${c.slug}`, `“${c.name}” is already archived.`);
  const [queued, counts] = await Promise.all([queuedMessageCount(ctx.deps, ctx.orgId, c.id), enrolmentCounts(ctx.deps, ctx.orgId, c.id)]);
  const n = (k: { count: number; capped: boolean }) => (k.capped ? `At least ${k.count.toLocaleString("en")}` : k.count.toLocaleString("en"));
  const active = counts.active ?? 0;
  const body = html`<p><a href="/dashboard/campaigns/${c.slug}">← ${c.name}</a></p>
<h1>Archive ${c.name}?</h1>
${error ? html`<p class="error" role="alert">${error}</p>` : ""}
<section class="panel" aria-labelledby="archive-h"><h2 id="archive-h">What archiving does</h2>
<ul>
<li><strong>${n(queued)} queued message${queued.count === 1 && !queued.capped ? " is" : "s are"} cancelled</strong> (waiting to be sent, retrying, or parked while the campaign is paused). They stay in the outbox list, marked cancelled: “campaign archived”.</li>
<li>${active === 0 ? "No customer is waiting for a further step." : active === 1 ? "The one customer still in the series receives no further step." : `The ${active.toLocaleString("en")} customers still in the series receive no further step.`} Enrolments stay listed.</li>
<li>Nobody can be enrolled any more: not by hand, the API, the SDK, the automation tools or the audience rule.</li>
<li>It is final: an archived campaign cannot be activated or edited again. It keeps its slug and still counts towards the ${String(CAMPAIGN_LIMITS.campaignsPerOrg)} campaigns an organisation may have.</li>
<li>Mail already sent is not affected; a message being handed to the mail server at this very moment may still go out.</li>
</ul>
<form method="post" action="/dashboard/campaigns/${c.slug}/archive" class="actions">
<input type="hidden" name="confirm" value="archive">
${submit("Archive campaign", { kind: "danger", busy: "Archiving…" })}
<a class="button secondary" href="/dashboard/campaigns/${c.slug}">Cancel</a>
</form></section>`;
  return shellPage(ctx, { title: `Archive · ${c.name}`, active: "campaigns", body, status: error ? 400 : 200 });
}

// ---- routes -------------------------------------------------------------------------------------

const ListQuery = t.Object({ status: t.Optional(t.String({ maxLength: 20 })), page: t.Optional(t.String({ maxLength: 10 })) });
const Ref = t.Object({ ref: t.String({ maxLength: 64 }) });
const FormBody = formBody({ text: 40_000, item: 300, items: 50 });

export function campaignPages(deps: Deps) {
  return new Elysia({ name: "dashboard-campaigns" })
    .get("/dashboard/campaigns", ({ request, query }) => withMember(deps, request, "automation:view", (ctx) => listPage(ctx, query)), { query: ListQuery })
    .post(
      "/dashboard/campaigns",
      ({ request, body }) =>
        withMember(deps, request, "automation:manage", async (ctx) => {
          const values = formValues(body);
          const name = (values.name ?? "").trim();
          const slug = (values.slug ?? "").trim();
          const errors: FieldErrors = {};
          if (!name) errors.name = "Give the campaign a name.";
          else if (name.length > L.name) errors.name = `At most ${L.name} characters.`;
          if (slug && !/^[a-z0-9][a-z0-9-]{0,63}$/.test(slug)) errors.slug = "Lower-case letters, digits and hyphens, starting with a letter or digit.";
          if (Object.keys(errors).length > 0) return listPage(ctx, {}, { values, errors });
          try {
            const c = await createCampaign(deps, { orgId: ctx.orgId, actor: actor(ctx), input: { name, ...(slug ? { slug } : {}) } });
            return redirect(deps, `/dashboard/campaigns/${c.slug}`, `Campaign “${c.name}” created. Add its first step.`);
          } catch (error) {
            if (error instanceof AppError && error.status === 400) return listPage(ctx, {}, { values, errors: serviceErrors(error) });
            if (error instanceof AppError && error.status === 409) return listPage(ctx, {}, { values, errors: { [error.code === "conflict" ? "slug" : "name"]: error.message } });
            throw error;
          }
        }),
      { body: FormBody },
    )
    .get("/dashboard/campaigns/:ref", ({ request, params }) => withMember(deps, request, "automation:view", async (ctx) => campaignPage(ctx, await campaignOr404(deps, ctx.orgId, params.ref))), { params: Ref })
    .post(
      "/dashboard/campaigns/:ref",
      ({ request, params, body }) =>
        withMember(deps, request, "automation:manage", async (ctx) => {
          const c = await campaignOr404(deps, ctx.orgId, params.ref);
          const values = formValues(body);
          // The form replaces every step: one rendered before someone else's edit would undo it.
          if (values.version !== undefined && values.version !== c.updatedAt.toISOString()) return campaignPage(ctx, c, { values, errors: {}, conflict: true });
          const { patch, errors } = patchFrom(values);
          if (Object.keys(errors).length > 0) return campaignPage(ctx, c, { values, errors });
          try {
            await editCampaign(deps, { orgId: ctx.orgId, actor: actor(ctx), ref: c.id, patch });
          } catch (error) {
            if (error instanceof AppError && error.status === 400) return campaignPage(ctx, c, { values, errors: remapStepErrors(serviceErrors(error), values) });
            if (error instanceof AppError && error.status === 409) return redirect(deps, `/dashboard/campaigns/${c.slug}`, { kind: "error", text: error.message });
            throw error;
          }
          return redirect(deps, `/dashboard/campaigns/${c.slug}`, "Campaign saved.");
        }),
      { params: Ref, body: FormBody },
    )
    .post(
      "/dashboard/campaigns/:ref/status",
      ({ request, params, body }) =>
        withMember(deps, request, "automation:manage", async (ctx) => {
          const c = await campaignOr404(deps, ctx.orgId, params.ref);
          const to = formValues(body).to;
          if (to !== "active" && to !== "paused") return redirect(deps, `/dashboard/campaigns/${c.slug}`, { kind: "error", text: "Choose activate or pause." });
          try {
            await setCampaignStatus(deps, { orgId: ctx.orgId, actor: actor(ctx), ref: c.id, to });
          } catch (error) {
            // Not activatable (no steps) or not pausable (not active): said in the flash.
            if (error instanceof AppError && error.status === 409) return redirect(deps, `/dashboard/campaigns/${c.slug}`, { kind: "error", text: error.message });
            throw error;
          }
          return redirect(deps, `/dashboard/campaigns/${c.slug}`, to === "active" ? "Campaign activated." : "Campaign paused: its pending mail waits until you activate it again.");
        }),
      { params: Ref, body: FormBody },
    )
    .post(
      "/dashboard/campaigns/:ref/audience",
      ({ request, params, body }) =>
        withMember(deps, request, "automation:manage", async (ctx) => {
          const c = await campaignOr404(deps, ctx.orgId, params.ref);
          const values = formValues(body);
          // The form replaces the whole rule: one opened before someone else changed it would undo that change.
          if (values.audience_version !== undefined && values.audience_version !== audienceVersion(c.audience)) return campaignPage(ctx, c, undefined, { values, errors: {}, conflict: true });
          let audience = null;
          if (values.do !== "clear") {
            const parsed = audienceFrom(values);
            if (Object.keys(parsed.errors).length > 0) return campaignPage(ctx, c, undefined, { values, errors: parsed.errors });
            audience = parsed.audience;
          }
          try {
            await editCampaign(deps, { orgId: ctx.orgId, actor: actor(ctx), ref: c.id, patch: { audience } });
          } catch (error) {
            if (error instanceof AppError && error.status === 400) return campaignPage(ctx, c, undefined, { values, errors: audienceServiceErrors(error, values) });
            if (error instanceof AppError && error.status === 409) return redirect(deps, `/dashboard/campaigns/${c.slug}`, { kind: "error", text: error.message });
            throw error;
          }
          return redirect(deps, `/dashboard/campaigns/${c.slug}`, audience ? (c.status === "active" ? "Audience saved: matching customers are enrolled within a minute." : "Audience saved: matching customers are enrolled once the campaign is active.") : "Audience rule removed: customers are enrolled by hand or through the API only.");
        }),
      { params: Ref, body: FormBody },
    )
    .get("/dashboard/campaigns/:ref/archive", ({ request, params }) => withMember(deps, request, "automation:manage", async (ctx) => archivePage(ctx, await campaignOr404(deps, ctx.orgId, params.ref))), { params: Ref })
    .post(
      "/dashboard/campaigns/:ref/archive",
      ({ request, params, body }) =>
        withMember(deps, request, "automation:manage", async (ctx) => {
          const c = await campaignOr404(deps, ctx.orgId, params.ref);
          if (formValues(body).confirm !== "archive") return archivePage(ctx, c, "Confirm with the Archive campaign button below.");
          await setCampaignStatus(deps, { orgId: ctx.orgId, actor: actor(ctx), ref: c.id, to: "archived" });
          return redirect(deps, `/dashboard/campaigns/${c.slug}`, c.status === "archived" ? `“${c.name}” is already archived.` : `“${c.name}” archived: its queued mail is cancelled and nothing more is sent.`);
        }),
      { params: Ref, body: FormBody },
    )
    .get(
      "/dashboard/campaigns/:ref/preview",
      ({ request, params, query }) => withMember(deps, request, "automation:view", async (ctx) => previewPage(ctx, await campaignOr404(deps, ctx.orgId, params.ref), query.customer)),
      // Longer than a customer reference may be, so a long one is answered next to the field.
      { params: Ref, query: t.Object({ customer: t.Optional(t.String({ maxLength: 1_024 })) }) },
    )
    .get(
      "/dashboard/campaigns/:ref/preview/:step",
      ({ request, params, query }) => withMember(deps, request, "automation:view", async (ctx) => previewHtml(ctx, await campaignOr404(deps, ctx.orgId, params.ref), params.step, query.customer)),
      { params: t.Object({ ref: t.String({ maxLength: 64 }), step: t.String({ maxLength: 64 }) }), query: t.Object({ customer: t.Optional(t.String({ maxLength: CUSTOMER_REF_MAX })) }) },
    )
    .get(
      "/dashboard/campaigns/:ref/enrolments",
      ({ request, params, query }) => withMember(deps, request, "automation:view", async (ctx) => enrolmentsPage(ctx, await campaignOr404(deps, ctx.orgId, params.ref), query)),
      { params: Ref, query: t.Object({ state: t.Optional(t.String({ maxLength: 20 })), cursor: t.Optional(t.String({ maxLength: 128 })) }) },
    )
    .post(
      "/dashboard/campaigns/:ref/enrolments",
      ({ request, params, body }) => withMember(deps, request, "automation:manage", async (ctx) => changeEnrolment(ctx, await campaignOr404(deps, ctx.orgId, params.ref), formValues(body))),
      { params: Ref, body: FormBody },
    )
    .get(
      "/dashboard/campaigns/:ref/messages",
      ({ request, params, query }) => withMember(deps, request, "automation:view", async (ctx) => messagesPage(ctx, await campaignOr404(deps, ctx.orgId, params.ref), query)),
      { params: Ref, query: t.Object({ status: t.Optional(t.String({ maxLength: 20 })), cursor: t.Optional(t.String({ maxLength: 128 })) }) },
    );
}
