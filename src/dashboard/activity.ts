// Dashboard: the activity log (role org:manage, as GET /api/activity) — who changed what in the org,
// newest first, read through src/activity/ as the API does: the API's filters (action, object type,
// object id) in a GET form, pages by the API's cursor (the kit's cursor pager keeps the filters),
// who acted in words, what changed as a short list. Linked from the settings sections.
import { Elysia, t } from "elysia";
import { listActivity } from "../activity/log.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { type Html, html } from "../html/html.ts";
import { cursorPager, field, listTable, PAGE_SIZE, shellPage, when, withMember } from "./kit/index.ts";
import { settingsNav } from "./settings-nav.ts";

type Item = Awaited<ReturnType<typeof listActivity>>["items"][number];

/** The longest value of a summary shown in a cell; the API has the whole of it. */
const SHOWN = 200;

function actorText(actor: Item["actor"]): string {
  const person = actor.member ? actor.member.name || actor.member.email || "A former member" : null;
  switch (actor.kind) {
    case "member":
      return person ?? "A former member";
    case "token":
      return `${person ?? "A former member"}, through a connected client${actor.client_id ? ` (${actor.client_id})` : ""}`;
    case "customer":
      return "A customer";
    case "system":
      return `System (${actor.id})`;
  }
}

function shown(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  return text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text;
}

function summaryList(summary: Record<string, unknown>): Html {
  const entries = Object.entries(summary);
  if (entries.length === 0) return html`<span class="muted">—</span>`;
  return html`<ul class="plain">${entries.map(([k, v]) => html`<li><span class="muted">${k}:</span> ${shown(v)}</li>`)}</ul>`;
}

async function activityPage(deps: Deps, request: Request, query: Record<string, string | undefined>) {
  return withMember(deps, request, "org:manage", async (ctx) => {
    const filters = { action: query.action || undefined, object_type: query.object_type || undefined, object_id: query.object_id || undefined };
    let page: Awaited<ReturnType<typeof listActivity>> | null = null;
    let problem: string | null = null;
    try {
      page = await listActivity(deps, ctx.orgId, {
        cursor: query.cursor || undefined,
        limit: PAGE_SIZE,
        action: filters.action,
        objectType: filters.object_type,
        objectId: filters.object_id,
      });
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 400) throw error;
      problem = error.message;
    }
    const filtered = Object.values(filters).some((v) => v !== undefined);
    const body = html`<h1>Activity log</h1>
${settingsNav(ctx, "activity")}
<p class="muted">Who changed what in ${ctx.orgName}, newest first. Rows are kept ${deps.config.activityRetentionDays} days. The same list is <code>GET /api/activity</code>.</p>
<form method="get" action="/dashboard/activity" class="toolbar" aria-label="Filter the activity">
${field({ name: "action", label: "Action", value: filters.action, maxLength: 100, hint: "Exact, e.g. connector.created" })}
${field({ name: "object_type", label: "Object type", value: filters.object_type, maxLength: 100, hint: "Exact, e.g. connector" })}
${field({ name: "object_id", label: "Object id", value: filters.object_id, maxLength: 200, hint: "Exact, e.g. an agent’s id" })}
<button type="submit" class="secondary">Filter</button>${filtered ? html` <a href="/dashboard/activity">Clear the filters</a>` : ""}
</form>
${problem ? html`<p class="error" role="alert">${problem} <a href="/dashboard/activity">Start from the newest</a>.</p>` : ""}
${
  page
    ? html`${listTable({
        caption: "Activity, newest first",
        columns: ["When", "Who", "Action", "Object", "What changed"],
        rows: page.items,
        row: (item) =>
          html`<tr data-activity="${item.id}"><td><time datetime="${item.created_at}">${when(item.created_at)}</time></td><td>${actorText(item.actor)}</td><td><code>${item.action}</code></td><td>${item.object_type}<div class="hint">${item.object_id}</div></td><td>${summaryList(item.summary)}</td></tr>`,
        empty: filtered ? "Nothing recorded matches these filters." : "Nothing recorded yet.",
      })}
${cursorPager("/dashboard/activity", { ...filters, cursor: query.cursor || undefined }, page.next_cursor)}`
    : ""
}`;
    return shellPage(ctx, { title: "Activity log", active: "settings", body, status: problem ? 400 : 200 });
  });
}

export function activityPages(deps: Deps) {
  // The API's bounds (src/activity/routes.ts).
  const q = t.Object({
    cursor: t.Optional(t.String({ maxLength: 200 })),
    action: t.Optional(t.String({ maxLength: 100 })),
    object_type: t.Optional(t.String({ maxLength: 100 })),
    object_id: t.Optional(t.String({ maxLength: 200 })),
  });
  return new Elysia({ name: "dashboard-activity" }).get("/dashboard/activity", ({ request, query }) => activityPage(deps, request, query), { query: q });
}
