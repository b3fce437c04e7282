// Dashboard: custom HTTP actions (issue #14, interface §2.2). List, create (headers write-only,
// destructive by default), delete; through src/integrations/custom-actions.ts as
// /api/integrations/custom-actions. Each becomes the action `custom.<slug>`, switched on per agent
// in the agent's actions page.
import { Elysia, t } from "elysia";
import { memberActor } from "../../activity/actor.ts";
import { recordActivity } from "../../activity/log.ts";
import type { Deps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { CUSTOM_ACTION_LIMITS, createCustomAction, deleteCustomAction, listCustomActions, METHODS, type Method } from "../../integrations/custom-actions.ts";
import { isSlug } from "../../kit/slugs.ts";
import type { JsonSchemaObject } from "../../tools/types.ts";
import { Html, html } from "../html.ts";
import { actionButton, type DashboardContext, errorSummary, field, type FieldErrors, formValues, type FormValues, pageNumber, pageOf, pager, redirect, select, shellPage, submit, textarea, withMember, formBody, IdParams } from "./shell.ts";

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
    (a) => html`<tr><td><code>${a.action_id}</code>${a.destructive ? html` <span class="badge danger">destructive</span>` : ""}<div class="hint">${a.description.slice(0, 200)}</div></td><td><code>${a.method} ${a.url}</code></td><td>${a.header_names.join(", ") || "—"}</td>${
      manage ? html`<td>${actionButton(`/dashboard/custom-actions/${a.id}/delete`, "Delete", { kind: "danger", confirm: "Delete this action? Agents can no longer call it." })}</td>` : ""
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

const Query = t.Object({ page: t.Optional(t.String({ maxLength: 10 })) });
const FormBody = formBody({ text: 100_000, item: 1000, items: 10 });

export function customActionPages(deps: Deps) {
  return new Elysia({ name: "dashboard-custom-actions" })
    .get("/dashboard/custom-actions", ({ request, query }) => withMember(deps, request, "integrations:view", (ctx) => listPage(ctx, query)), { query: Query })
    .post(
      "/dashboard/custom-actions",
      ({ request, body }) =>
        withMember(deps, request, "integrations:manage", async (ctx) => {
          const values = formValues(body);
          const slug = (values.slug ?? "").trim();
          const description = (values.description ?? "").trim();
          const url = (values.url ?? "").trim();
          const method = (METHODS as readonly string[]).includes(values.method ?? "") ? (values.method as Method) : null;
          const errors: FieldErrors = {};
          if (!isSlug(slug)) errors.slug = "Lower-case letters, digits and _, starting with a letter, at most 32.";
          if (!method) errors.method = "Choose a method.";
          if (!url) errors.url = "Give the endpoint's URL.";
          else if (url.length > 2048) errors.url = "At most 2048 characters.";
          if (!description) errors.description = "Say what the action does.";
          else if (description.length > 1000) errors.description = "At most 1000 characters.";
          const parsed = parseHeaders(values.headers ?? "");
          if (parsed.error) errors.headers = parsed.error;
          else if (Object.keys(parsed.headers).length > CUSTOM_ACTION_LIMITS.headers) errors.headers = `At most ${CUSTOM_ACTION_LIMITS.headers} headers.`;
          let schema: JsonSchemaObject | undefined;
          if ((values.input_schema ?? "").trim()) {
            try {
              const value = JSON.parse(values.input_schema!);
              if (!value || typeof value !== "object" || Array.isArray(value)) errors.input_schema = "A JSON object.";
              else schema = value as JsonSchemaObject;
            } catch {
              errors.input_schema = "This is not valid JSON.";
            }
          }
          // Header values are never echoed back into the page.
          const kept = { ...values, headers: "" };
          if (Object.keys(errors).length > 0) return listPage(ctx, {}, { values: kept, errors, status: 400 });
          try {
            const created = await createCustomAction(deps, ctx.orgId, { slug, description, method: method!, url, headers: parsed.headers, input_schema: schema, destructive: values.destructive === "on" });
            await recordActivity(deps, { orgId: ctx.orgId, actor: memberActor(ctx.principal.member.id), action: "custom_action.created", objectType: "custom_action", objectId: created.id, summary: { slug, method, host: new URL(url).host } });
            return redirect(deps, "/dashboard/custom-actions", `Action ${created.action_id} created: switch it on for an agent in its actions.`);
          } catch (error) {
            if (error instanceof AppError && (error.status === 400 || error.status === 409)) {
              const out: FieldErrors = {};
              for (const d of error.details ?? []) {
                const key = d.path.split("/").filter(Boolean)[0] ?? "url";
                out[key] ??= d.message.charAt(0).toUpperCase() + d.message.slice(1) + ".";
              }
              if (Object.keys(out).length === 0) out.url = error.message;
              return listPage(ctx, {}, { values: kept, errors: out, status: error.status });
            }
            throw error;
          }
        }),
      { body: FormBody },
    )
    .post(
      "/dashboard/custom-actions/:id/delete",
      ({ request, params }) =>
        withMember(deps, request, "integrations:manage", async (ctx) => {
          await deleteCustomAction(deps, ctx.orgId, params.id);
          await recordActivity(deps, { orgId: ctx.orgId, actor: memberActor(ctx.principal.member.id), action: "custom_action.deleted", objectType: "custom_action", objectId: params.id });
          return redirect(deps, "/dashboard/custom-actions", "Custom action deleted.");
        }),
      { params: IdParams },
    );
}
