// Dashboard: campaigns (issue #14; automation:view to read, automation:manage to change). The list
// with a create form, a campaign with its steps (edited in one form) and its audience, activate or
// pause, a preview of every step for a customer (nothing is sent), who is enrolled, and the
// campaign's messages in the outbox. Every action goes through src/campaigns/service.ts, as
// /api/campaigns does.
import { Elysia, t } from "elysia";
import { memberActor } from "../../activity/actor.ts";
import {
  type Campaign,
  CAMPAIGN_LIMITS,
  campaignOr404,
  createCampaign,
  editCampaign,
  enrolmentCounts,
  listCampaigns,
  listEnrolments,
  listMessages,
  previewCampaign,
  setCampaignStatus,
  type StepInput,
} from "../../campaigns/service.ts";
import type { Deps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { Html, html } from "../html.ts";
import { cursorPager } from "./inbox.ts";
import { actionButton, checkbox, type DashboardContext, errorSummary, field, type FieldErrors, formValues, type FormValues, pageNumber, pageOf, pager, redirect, select, shellPage, submit, textarea, when, withMember, formBody } from "./shell.ts";

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

async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>, form?: { values: FormValues; errors: FieldErrors }): Promise<Response> {
  const all = await listCampaigns(ctx.deps, ctx.orgId, undefined);
  const shown = query.status ? all.filter((c) => c.status === query.status) : all;
  const page = pageOf(shown, pageNumber(query.page));
  const v = form?.values ?? {};
  const e = form?.errors ?? {};
  const body = html`<h1>Campaigns</h1>
<p class="muted">Email series sent to customers after they enrol, one step after another.</p>
<form method="get" action="/dashboard/campaigns" class="toolbar" aria-label="Filter campaigns">
${select({ name: "status", label: "Status", value: query.status ?? "", options: [{ value: "", label: "All" }, ...["draft", "active", "paused", "archived"].map((s) => ({ value: s, label: s }))] })}
<button type="submit" class="secondary">Filter</button>
</form>
<table>
<caption class="sr-only">Campaigns</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Steps</th><th scope="col">Audience</th><th scope="col">Updated</th></tr></thead>
<tbody>${page.items.map((c) => html`<tr><td><a href="/dashboard/campaigns/${c.slug}">${c.name}</a> <span class="muted">${c.slug}</span></td><td>${statusBadge(c.status)}</td><td>${c.steps.length}</td><td>${c.audience ? `${c.audience.all.length} condition${c.audience.all.length === 1 ? "" : "s"}` : "enrol by hand or API"}</td><td>${when(c.updatedAt)}</td></tr>`)}${page.items.length === 0 ? html`<tr><td colspan="5">${query.status ? "No campaign with this status." : "No campaigns yet."}</td></tr>` : ""}</tbody>
</table>
${pager("/dashboard/campaigns", query, page.page, page.hasMore)}
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

async function campaignPage(ctx: DashboardContext, c: Campaign, form?: { values: FormValues; errors: FieldErrors; conflict?: boolean }): Promise<Response> {
  const counts = await enrolmentCounts(ctx.deps, ctx.orgId, c.id);
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
</div>
<h2>Audience</h2>
${c.audience
  ? html`<p>Customers are enrolled automatically when all of these hold on their traits:</p><ul>${c.audience.all.map((r) => html`<li><code>${r.trait}</code> ${r.op.replace("_", " ")}${r.value !== undefined ? html` <code>${JSON.stringify(r.value)}</code>` : ""}</li>`)}</ul>`
  : html`<p class="muted">No audience rule: customers are enrolled through the API or the automation tools.</p>`}
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
  return shellPage(ctx, { title: c.name, active: "campaigns", body, status: form?.conflict ? 409 : form ? 400 : 200 });
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

// ---- preview and outbox -------------------------------------------------------------------------

async function previewPage(ctx: DashboardContext, c: Campaign, customer: string | undefined): Promise<Response> {
  let preview: Awaited<ReturnType<typeof previewCampaign>> | null = null;
  let error: string | undefined;
  try {
    preview = await previewCampaign(ctx.deps, ctx.orgId, c, customer?.trim() || undefined);
  } catch (e) {
    if (!(e instanceof AppError && e.status === 404)) throw e;
    error = "No customer with this id or external id.";
  }
  const body = html`<p><a href="/dashboard/campaigns/${c.slug}">← ${c.name}</a></p>
<h1>Preview of ${c.name}</h1>
<p class="muted">Every step as one customer would receive it. Nothing is sent.</p>
<form method="get" action="/dashboard/campaigns/${c.slug}/preview" class="toolbar" aria-label="Preview for a customer">
${field({ name: "customer", label: "Customer", value: customer ?? "", error, maxLength: 256, hint: "Our id or your external id; empty: a sample customer." })}
<button type="submit" class="secondary">Preview</button>
</form>
${preview
  ? html`<p>For ${preview.customer.sample ? "a sample customer" : html`<a href="/dashboard/customers/${preview.customer.id ?? ""}">${preview.customer.name || preview.customer.email || "this customer"}</a>`}${preview.customer.email ? ` <${preview.customer.email}>` : ""}.</p>
${preview.steps.length === 0 ? html`<p>This campaign has no steps yet.</p>` : ""}
${preview.steps.map((s) => html`<article class="panel" aria-label="Step ${String(s.position + 1)}"><p><span class="badge accent">Step ${String(s.position + 1)}</span> <span class="muted">${s.seconds_after_enrolment === 0 ? "at enrolment" : `${formatDelay(s.seconds_after_enrolment)} after enrolment`}</span></p><p><strong>${s.subject}</strong></p><pre>${s.text}</pre></article>`)}`
  : ""}`;
  return shellPage(ctx, { title: `Preview · ${c.name}`, active: "campaigns", body, status: error ? 404 : 200 });
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

async function enrolmentsPage(ctx: DashboardContext, c: Campaign, query: Record<string, string | undefined>): Promise<Response> {
  const state = (ENROLMENT_STATES as readonly string[]).includes(query.state ?? "") ? (query.state as (typeof ENROLMENT_STATES)[number]) : undefined;
  const page = await listEnrolments(ctx.deps, ctx.orgId, c.id, { state, cursor: query.cursor || undefined, limit: 25 });
  const body = html`<p><a href="/dashboard/campaigns/${c.slug}">← ${c.name}</a></p>
<h1>Enrolled in ${c.name}</h1>
<form method="get" action="/dashboard/campaigns/${c.slug}/enrolments" class="toolbar" aria-label="Filter enrolments">
${select({ name: "state", label: "State", value: state ?? "", options: [{ value: "", label: "All" }, ...ENROLMENT_STATES.map((s) => ({ value: s, label: s }))] })}
<button type="submit" class="secondary">Filter</button>
</form>
<table>
<caption class="sr-only">Enrolments</caption>
<thead><tr><th scope="col">Customer</th><th scope="col">State</th><th scope="col">Enrolled</th><th scope="col">Last step</th><th scope="col">How</th></tr></thead>
<tbody>${page.enrolments.map((e) => html`<tr><td><a href="/dashboard/customers/${e.customer.id}">${("name" in e.customer && (e.customer.name || e.customer.email)) || "a customer"}</a></td><td><span class="badge${e.state === "active" ? " ok" : e.state === "unsubscribed" ? " warn" : ""}">${e.state}</span></td><td>${when(e.enrolled_at)}</td><td>${when(e.last_step_at)}</td><td>${e.source}</td></tr>`)}${page.enrolments.length === 0 ? html`<tr><td colspan="5">Nobody${state ? " in this state" : " yet"}.</td></tr>` : ""}</tbody>
</table>
${cursorPager(`/dashboard/campaigns/${c.slug}/enrolments`, query, page.next_cursor)}`;
  return shellPage(ctx, { title: `Enrolled · ${c.name}`, active: "campaigns", body });
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
    .get(
      "/dashboard/campaigns/:ref/preview",
      ({ request, params, query }) => withMember(deps, request, "automation:view", async (ctx) => previewPage(ctx, await campaignOr404(deps, ctx.orgId, params.ref), query.customer)),
      { params: Ref, query: t.Object({ customer: t.Optional(t.String({ maxLength: 256 })) }) },
    )
    .get(
      "/dashboard/campaigns/:ref/enrolments",
      ({ request, params, query }) => withMember(deps, request, "automation:view", async (ctx) => enrolmentsPage(ctx, await campaignOr404(deps, ctx.orgId, params.ref), query)),
      { params: Ref, query: t.Object({ state: t.Optional(t.String({ maxLength: 20 })), cursor: t.Optional(t.String({ maxLength: 128 })) }) },
    )
    .get(
      "/dashboard/campaigns/:ref/messages",
      ({ request, params, query }) => withMember(deps, request, "automation:view", async (ctx) => messagesPage(ctx, await campaignOr404(deps, ctx.orgId, params.ref), query)),
      { params: Ref, query: t.Object({ status: t.Optional(t.String({ maxLength: 20 })), cursor: t.Optional(t.String({ maxLength: 128 })) }) },
    );
}
