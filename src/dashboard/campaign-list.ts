// The campaigns list (archived campaigns behind a filter) and the form that creates a campaign.
import { createCampaign } from "../campaigns/lifecycle.ts";
import { CAMPAIGN_LIMITS } from "../campaigns/model.ts";
import { listCampaigns } from "../campaigns/queries.ts";
import { html } from "../html/html.ts";
import {
  type DashboardContext,
  errorSummary,
  field,
  type FieldErrors,
  listTable,
  pageNumber,
  pageOf,
  pager,
  redirect,
  type Refused,
  select,
  shellPage,
  submit,
  submitForm,
  when,
  type FormValues,
} from "./kit/index.ts";
import { actor, serviceErrors, statusBadge } from "./campaign-common.ts";

const L = CAMPAIGN_LIMITS;

/** The list's filter: the default hides archived campaigns; "archived" shows only them, "all" everything. */
const LIST_FILTERS = ["", "draft", "active", "paused", "archived", "all"] as const;

export async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>, form?: Refused): Promise<Response> {
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
${listTable({
  caption: "Campaigns",
  columns: ["Name", "Status", "Steps", "Audience", "Updated"],
  rows: page.items,
  row: (c) =>
    html`<tr><td><a href="/dashboard/campaigns/${c.slug}">${c.name}</a> <span class="muted">${c.slug}</span></td><td>${statusBadge(c.status)}</td><td>${c.steps.length}</td><td>${c.audience ? `${c.audience.all.length} condition${c.audience.all.length === 1 ? "" : "s"}` : "enrol by hand or API"}</td><td>${when(c.updatedAt)}</td></tr>`,
  empty: filter === "archived" ? "No archived campaigns." : filter && filter !== "all" ? "No campaign with this status." : "No campaigns yet.",
})}
${pager("/dashboard/campaigns", { status: filter || undefined }, page.page, page.hasMore)}
${archived > 0 ? html`<p class="muted">${archived === 1 ? "One archived campaign is" : `${archived} archived campaigns are`} not listed: <a href="/dashboard/campaigns?status=archived">show archived campaigns</a>.</p>` : ""}
${
  ctx.can("automation:manage")
    ? html`<section class="panel" aria-labelledby="new-h"><h2 id="new-h">New campaign</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/campaigns" novalidate>
${field({ name: "name", label: "Name", value: v.name, error: e.name, required: true, maxLength: L.name })}
${field({ name: "slug", label: "Slug", value: v.slug, error: e.slug, maxLength: L.slug, hint: "Optional: lower-case letters, digits and hyphens; derived from the name when empty." })}
<div class="actions">${submit("Create campaign", { busy: "Creating…" })}</div>
</form></section>`
    : ""
}`;
  // A refused form answers 400, whatever the service said (a taken slug included).
  return shellPage(ctx, { title: "Campaigns", active: "campaigns", body, status: form ? 400 : 200 });
}

function createInput(values: FormValues): { input: { name: string; slug?: string }; errors: FieldErrors } {
  const name = (values.name ?? "").trim();
  const slug = (values.slug ?? "").trim();
  const errors: FieldErrors = {};
  if (!name) errors.name = "Give the campaign a name.";
  else if (name.length > L.name) errors.name = `At most ${L.name} characters.`;
  if (slug && !/^[a-z0-9][a-z0-9-]{0,63}$/.test(slug)) errors.slug = "Lower-case letters, digits and hyphens, starting with a letter or digit.";
  return { input: { name, ...(slug ? { slug } : {}) }, errors };
}

export function create(ctx: DashboardContext, values: FormValues): Promise<Response> {
  return submitForm({
    values,
    validate: createInput,
    call: (input) => createCampaign(ctx.deps, { orgId: ctx.orgId, actor: actor(ctx), input }),
    done: (c) => redirect(ctx.deps, `/dashboard/campaigns/${c.slug}`, `Campaign “${c.name}” created. Add its first step.`),
    render: (refused) => listPage(ctx, {}, refused),
    refused: (error) =>
      error.status === 400 ? serviceErrors(error) : error.status === 409 ? { [error.code === "conflict" ? "slug" : "name"]: error.message } : null,
  });
}
