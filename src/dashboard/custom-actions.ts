// Dashboard: custom HTTP actions (issue #14, interface §2.2). List, create (headers write-only,
// destructive by default), edit every field the API lets a PATCH change (the slug stays: it is the
// action's name), delete; through src/integrations/custom-actions.ts as
// /api/integrations/custom-actions, so a new URL passes the same outbound guard and every change is
// logged with its member. Header values are never shown or echoed: the edit form lists the names
// of the stored headers, adds or replaces some, removes ticked ones, and keeps the rest.
// Each action becomes `custom.<slug>`, switched on per agent in the agent's actions page.
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import {
  CUSTOM_ACTION_LIMITS,
  type CustomActionPatch,
  createCustomAction,
  DEFAULT_SCHEMA,
  deleteCustomAction,
  listCustomActions,
  METHODS,
  type Method,
  readCustomAction,
  updateCustomAction,
} from "../integrations/custom-actions.ts";
import { isSlug } from "../kit/slugs.ts";
import type { JsonSchemaObject } from "../tools/types.ts";
import { Html, html } from "../html/html.ts";
import {
  actionButton,
  type DashboardContext,
  errorSummary,
  field,
  type FieldErrors,
  formBody,
  formList,
  formValues,
  type FormValues,
  IdParams,
  jsonField,
  pageNumber,
  pageOf,
  pager,
  redirect,
  select,
  shellPage,
  submit,
  textarea,
  withMember,
} from "./kit/index.ts";

type View = Awaited<ReturnType<typeof readCustomAction>>;

const DESCRIPTION_MAX = 1000;
const URL_MAX = 2048;

async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>, form?: { values: FormValues; errors: FieldErrors; status: number }): Promise<Response> {
  const actions = await listCustomActions(ctx.deps, ctx.orgId);
  const page = pageOf(actions, pageNumber(query.page));
  const manage = ctx.can("integrations:manage");
  const v = form?.values ?? { method: "POST", destructive: "on" };
  const e = form?.errors ?? {};
  const body = html`<h1>Custom actions</h1>
<p class="muted">HTTP endpoints of your own systems that agents may call as <code>custom.&lt;slug&gt;</code>. Switch each on per agent in the agent's actions.</p>
<table><caption class="sr-only">Custom actions</caption><thead><tr><th scope="col">Action</th><th scope="col">Request</th><th scope="col">Headers</th>${manage ? html`<th scope="col"><span class="sr-only">Actions</span></th>` : ""}</tr></thead>
<tbody>${page.items.map(
    (a) => html`<tr><td><a href="/dashboard/custom-actions/${a.id}"><code>${a.action_id}</code></a>${a.destructive ? html` <span class="badge danger">destructive</span>` : ""}<div class="hint">${a.description.slice(0, 200)}</div></td><td><code>${a.method} ${a.url}</code></td><td>${a.header_names.join(", ") || "—"}</td>${
      manage ? html`<td><div class="actions"><a class="button secondary" href="/dashboard/custom-actions/${a.id}">Edit<span class="sr-only"> ${a.action_id}</span></a>${actionButton(`/dashboard/custom-actions/${a.id}/delete`, "Delete", { kind: "danger", confirm: "Delete this action? Agents can no longer call it." })}</div></td>` : ""
    }</tr>`,
  )}${actions.length === 0 ? html`<tr><td colspan="4">No custom actions.</td></tr>` : ""}</tbody></table>
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
<div class="check"><input type="checkbox" id="f-destructive" name="destructive"${v.destructive === "on" ? new Html(" checked") : ""}><label for="f-destructive">Destructive: it changes or deletes data</label></div>
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

async function editPage(ctx: DashboardContext, action: View, form?: { values: FormValues; removed: string[]; errors: FieldErrors; status: number }): Promise<Response> {
  const manage = ctx.can("integrations:manage");
  const v = form?.values ?? valuesOf(action);
  const e = form?.errors ?? {};
  const removed = new Set(form?.removed ?? []);
  const off = manage ? "" : new Html(" disabled");
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
<div class="check"><input type="checkbox" id="f-destructive" name="destructive"${v.destructive === "on" ? new Html(" checked") : ""}${off}><label for="f-destructive">Destructive: it changes or deletes data</label></div>
</fieldset>
<fieldset${off}><legend>Headers</legend>
${
  action.header_names.length > 0
    ? html`<p class="hint" id="stored-headers-hint">Stored encrypted; values are never shown. Tick a header to remove it when you save.</p>
<ul class="checklist">${action.header_names.map(
        (name, i) =>
          html`<li><div class="check"><input type="checkbox" id="f-remove_header_${i}" name="remove_header" value="${name}"${removed.has(name) ? new Html(" checked") : ""} aria-describedby="stored-headers-hint"${off}><label for="f-remove_header_${i}">Remove <code>${name}</code></label><span class="badge">value set</span></div></li>`,
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

function parseHeaders(text: string): { headers: Record<string, string>; error?: string } {
  const headers: Record<string, string> = {};
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) return { headers, error: `Line ${i + 1}: write “Name: value”.` };
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { headers };
}

/** The fields create and edit share, checked as the API's schema checks them; the service checks the rest. */
function commonFields(values: FormValues, errors: FieldErrors) {
  const description = (values.description ?? "").trim();
  const url = (values.url ?? "").trim();
  const method = (METHODS as readonly string[]).includes(values.method ?? "") ? (values.method as Method) : null;
  if (!method) errors.method = "Choose a method.";
  if (!url) errors.url = "Give the endpoint's URL.";
  else if (url.length > URL_MAX) errors.url = `At most ${URL_MAX} characters.`;
  if (!description) errors.description = "Say what the action does.";
  else if (description.length > DESCRIPTION_MAX) errors.description = `At most ${DESCRIPTION_MAX} characters.`;
  const parsed = parseHeaders(values.headers ?? "");
  if (parsed.error) errors.headers = parsed.error;
  else if (Object.keys(parsed.headers).length > CUSTOM_ACTION_LIMITS.headers) errors.headers = `At most ${CUSTOM_ACTION_LIMITS.headers} headers.`;
  let schema: JsonSchemaObject | undefined;
  if ((values.input_schema ?? "").trim()) {
    const json = jsonField(values.input_schema!);
    if ("error" in json) errors.input_schema = json.error;
    else if (!json.value || typeof json.value !== "object" || Array.isArray(json.value)) errors.input_schema = "A JSON object.";
    else schema = json.value as JsonSchemaObject;
  }
  return { description, url, method, headers: parsed.headers, schema };
}

/** A service's validation details as field errors (`/headers/X-Key` → headers). */
function errorsFromService(error: AppError): FieldErrors {
  const out: FieldErrors = {};
  for (const d of error.details ?? []) {
    const key = d.path.split("/").filter(Boolean)[0] ?? "url";
    const what = d.path.startsWith("/headers/") ? `${d.path.slice("/headers/".length)} ` : "";
    out[key] ??= `${what}${d.message}`.replace(/^./, (c) => c.toUpperCase()) + ".";
  }
  if (Object.keys(out).length === 0) out.url = error.message;
  return out;
}

const Query = t.Object({ page: t.Optional(t.String({ maxLength: 10 })) });
/** Up to the headers' limit of remove boxes, and a few more (the service says what is too many). */
const FormBody = formBody({ text: 100_000, item: 1000, items: CUSTOM_ACTION_LIMITS.headers + 5 });

export function customActionPages(deps: Deps) {
  return new Elysia({ name: "dashboard-custom-actions" })
    .get("/dashboard/custom-actions", ({ request, query }) => withMember(deps, request, "integrations:view", (ctx) => listPage(ctx, query)), { query: Query })
    .post(
      "/dashboard/custom-actions",
      ({ request, body }) =>
        withMember(deps, request, "integrations:manage", async (ctx) => {
          const values = formValues(body);
          const slug = (values.slug ?? "").trim();
          const errors: FieldErrors = {};
          if (!isSlug(slug)) errors.slug = "Lower-case letters, digits and _, starting with a letter, at most 32.";
          const { description, url, method, headers, schema } = commonFields(values, errors);
          // Header values are never echoed back into the page.
          const kept = { ...values, headers: "" };
          if (Object.keys(errors).length > 0) return listPage(ctx, {}, { values: kept, errors, status: 400 });
          try {
            const created = await createCustomAction(deps, ctx.orgId, { slug, description, method: method!, url, headers, input_schema: schema, destructive: values.destructive === "on" }, memberActor(ctx.principal.member.id));
            return redirect(deps, "/dashboard/custom-actions", `Action ${created.action_id} created: switch it on for an agent in its actions.`);
          } catch (error) {
            if (error instanceof AppError && (error.status === 400 || error.status === 409)) return listPage(ctx, {}, { values: kept, errors: errorsFromService(error), status: error.status });
            throw error;
          }
        }),
      { body: FormBody },
    )
    .get("/dashboard/custom-actions/:id", ({ request, params }) => withMember(deps, request, "integrations:view", async (ctx) => editPage(ctx, await readCustomAction(deps, ctx.orgId, params.id))), { params: IdParams })
    .post(
      "/dashboard/custom-actions/:id",
      ({ request, params, body }) =>
        withMember(deps, request, "integrations:manage", async (ctx) => {
          const action = await readCustomAction(deps, ctx.orgId, params.id);
          const values = formValues(body);
          const removed = formList(body, "remove_header");
          const errors: FieldErrors = {};
          const { description, url, method, headers, schema } = commonFields(values, errors);
          const kept = { ...values, headers: "" };
          if (Object.keys(errors).length > 0) return editPage(ctx, action, { values: kept, removed, errors, status: 400 });
          const patch: CustomActionPatch = {
            description,
            method: method!,
            // An unchanged URL is not sent: saving a description does not depend on today's DNS.
            ...(url !== action.url ? { url } : {}),
            input_schema: schema ?? DEFAULT_SCHEMA,
            destructive: values.destructive === "on",
            ...(Object.keys(headers).length > 0 || removed.length > 0 ? { header_changes: { set: headers, remove: removed } } : {}),
          };
          try {
            const updated = await updateCustomAction(deps, ctx.orgId, action.id, patch, memberActor(ctx.principal.member.id));
            return redirect(deps, `/dashboard/custom-actions/${updated.id}`, `Action ${updated.action_id} saved.`);
          } catch (error) {
            if (error instanceof AppError && error.status === 400) return editPage(ctx, action, { values: kept, removed, errors: errorsFromService(error), status: 400 });
            throw error;
          }
        }),
      { params: IdParams, body: FormBody },
    )
    .post(
      "/dashboard/custom-actions/:id/delete",
      ({ request, params }) =>
        withMember(deps, request, "integrations:manage", async (ctx) => {
          await deleteCustomAction(deps, ctx.orgId, params.id, memberActor(ctx.principal.member.id));
          return redirect(deps, "/dashboard/custom-actions", "Custom action deleted.");
        }),
      { params: IdParams },
    );
}
