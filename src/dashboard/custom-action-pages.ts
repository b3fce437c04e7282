// The custom actions list with the create form, and one action's edit form (stored header names
// listed, their values never shown).
import { CUSTOM_ACTION_LIMITS, listCustomActions, METHODS, readCustomAction } from "../integrations/custom-actions.ts";
import { attrs, html } from "../html/html.ts";
import {
  actionButton,
  checkbox,
  type DashboardContext,
  errorSummary,
  field,
  type FormValues,
  listTable,
  pageNumber,
  pageOf,
  pager,
  type Refused,
  select,
  shellPage,
  submit,
  textarea,
} from "./kit/index.ts";
import { DESCRIPTION_MAX, URL_MAX } from "./custom-action-form.ts";

export type View = Awaited<ReturnType<typeof readCustomAction>>;

export async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>, form?: Refused): Promise<Response> {
  const actions = await listCustomActions(ctx.deps, ctx.orgId);
  const page = pageOf(actions, pageNumber(query.page));
  const manage = ctx.can("integrations:manage");
  const v = form?.values ?? { method: "POST", destructive: "on" };
  const e = form?.errors ?? {};
  const body = html`<h1>Custom actions</h1>
<p class="muted">HTTP endpoints of your own systems that agents may call as <code>custom.&lt;slug&gt;</code>. Switch each on per agent in the agent's actions.</p>
${listTable({
  caption: "Custom actions",
  columns: ["Action", "Request", "Headers", ...(manage ? [{ label: "Actions", hidden: true as const }] : [])],
  rows: page.items,
  row: (a) =>
    html`<tr><td><a href="/dashboard/custom-actions/${a.id}"><code>${a.action_id}</code></a>${a.destructive ? html` <span class="badge danger">destructive</span>` : ""}<div class="hint">${a.description.slice(0, 200)}</div></td><td><code>${a.method} ${a.url}</code></td><td>${a.header_names.join(", ") || "—"}</td>${
      manage
        ? html`<td><div class="actions"><a class="button secondary" href="/dashboard/custom-actions/${a.id}">Edit<span class="sr-only"> ${a.action_id}</span></a>${actionButton(`/dashboard/custom-actions/${a.id}/delete`, "Delete", { kind: "danger", confirm: "Delete this action? Agents can no longer call it." })}</div></td>`
        : ""
    }</tr>`,
  empty: actions.length === 0 ? "No custom actions." : null,
})}
${pager("/dashboard/custom-actions", query, page.page, page.hasMore)}
${
  manage
    ? html`<section class="panel" aria-labelledby="new-action"><h2 id="new-action">New custom action</h2>
${errorSummary(e)}
<form method="post" action="/dashboard/custom-actions" novalidate>
<div class="grid2">
${field({ name: "slug", label: "Slug", value: v.slug, error: e.slug, required: true, maxLength: 32, hint: "Lower-case letters, digits and _, starting with a letter." })}
${select({ name: "method", label: "Method", value: v.method, error: e.method, options: METHODS.map((m) => ({ value: m, label: m })) })}
</div>
${field({ name: "url", label: "URL", type: "url", value: v.url, error: e.url, required: true, hint: "https; called through the outbound guard." })}
${textarea({ name: "description", label: "Description", value: v.description, error: e.description, rows: 2, required: true, hint: "What the action does: the model reads this to decide when to call it." })}
${textarea({ name: "headers", label: "Headers", value: "", error: e.headers, rows: 2, hint: "One “Name: value” a line, e.g. Authorization: Bearer …; stored encrypted, never shown again." })}
${textarea({ name: "input_schema", label: "Input schema (JSON, optional)", value: v.input_schema, error: e.input_schema, rows: 3, hint: "A JSON Schema object for the arguments; empty: any object." })}
${checkbox({ name: "destructive", label: "Destructive: it changes or deletes data", checked: v.destructive === "on" })}
<div class="actions">${submit("Create action", { busy: "Creating…" })}</div>
</form></section>`
    : ""
}`;
  return shellPage(ctx, { title: "Custom actions", active: "custom-actions", body, status: form?.status });
}

function valuesOf(action: View): FormValues {
  return {
    method: action.method,
    url: action.url,
    description: action.description,
    input_schema: JSON.stringify(action.input_schema, null, 2),
    destructive: action.destructive ? "on" : "",
  };
}

export async function editPage(ctx: DashboardContext, action: View, form?: Refused & { removed: string[] }): Promise<Response> {
  const manage = ctx.can("integrations:manage");
  const v = form?.values ?? valuesOf(action);
  const e = form?.errors ?? {};
  const removed = new Set(form?.removed ?? []);
  const off = attrs({ disabled: !manage });
  const body = html`<p><a href="/dashboard/custom-actions">← Custom actions</a></p>
<h1>Edit <code>${action.action_id}</code>${action.destructive ? html` <span class="badge danger">destructive</span>` : ""}</h1>
<p class="muted">The slug is the action's name for agents and tokens, so it stays; to rename, create another action and delete this one.</p>
${errorSummary(e)}
<form method="post" action="/dashboard/custom-actions/${action.id}" novalidate>
<fieldset${off}><legend>Request</legend>
<div class="grid2">
${select({ name: "method", label: "Method", value: v.method, error: e.method, options: METHODS.map((m) => ({ value: m, label: m })) })}
${field({ name: "url", label: "URL", type: "url", value: v.url, error: e.url, required: true, maxLength: URL_MAX, hint: "https; a new address passes the outbound guard before it is saved." })}
</div>
${textarea({ name: "description", label: "Description", value: v.description, error: e.description, rows: 2, required: true, maxLength: DESCRIPTION_MAX, hint: "What the action does: the model reads this to decide when to call it." })}
${textarea({ name: "input_schema", label: "Input schema (JSON)", value: v.input_schema, error: e.input_schema, rows: 8, hint: "A JSON Schema object for the arguments; empty: any object." })}
${checkbox({ name: "destructive", label: "Destructive: it changes or deletes data", checked: v.destructive === "on", disabled: !manage })}
</fieldset>
<fieldset${off}><legend>Headers</legend>
${
  action.header_names.length > 0
    ? html`<p class="hint" id="stored-headers-hint">Stored encrypted; values are never shown. Tick a header to remove it when you save.</p>
<ul class="checklist">${action.header_names.map(
        (name, i) =>
          html`<li><div class="check"><input type="checkbox" id="f-remove_header_${i}" name="remove_header" value="${name}"${attrs({ checked: removed.has(name) })} aria-describedby="stored-headers-hint"${off}><label for="f-remove_header_${i}">Remove <code>${name}</code></label><span class="badge">value set</span></div></li>`,
      )}</ul>`
    : html`<p class="hint">No headers stored.</p>`
}
${textarea({ name: "headers", label: "Add or replace headers", value: "", error: e.headers, rows: 2, hint: `One “Name: value” a line; a stored header of the same name is replaced. Leave blank to keep the stored ones. At most ${CUSTOM_ACTION_LIMITS.headers} headers in all.` })}
</fieldset>
${manage ? html`<div class="actions">${submit("Save changes", { busy: "Saving…" })}<a class="button secondary" href="/dashboard/custom-actions">Cancel</a></div>` : html`<p class="muted">You can view this action; changing it needs the integrations:manage role.</p>`}
</form>
${manage ? html`<div class="actions">${actionButton(`/dashboard/custom-actions/${action.id}/delete`, "Delete this action", { kind: "danger", confirm: "Delete this action? Agents can no longer call it." })}</div>` : ""}`;
  return shellPage(ctx, { title: `Edit ${action.action_id}`, active: "custom-actions", body, status: form?.status });
}
