// The activity log's page: the API's filters in a GET form, the rows (who acted in words, what
// changed as a short list), and the cursor pager keeping the filters.
import { type Html, html } from "../../html/html.ts";
import { cursorPager, field, listTable, when } from "../kit/index.ts";
import type { listActivity } from "../../activity/log.ts";

type Page = Awaited<ReturnType<typeof listActivity>>;
type Item = Page["items"][number];

export interface ActivityFilters {
  action: string | undefined;
  object_type: string | undefined;
  object_id: string | undefined;
}

export interface ActivityLogProps {
  orgName: string;
  /** The settings sections' nav, this page marked. */
  nav: Html;
  retentionDays: number;
  filters: ActivityFilters;
  cursor: string | undefined;
  /** Null when the filters or the cursor were refused (`problem` says why). */
  page: Page | null;
  problem: string | null;
}

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

function activityRow(item: Item): Html {
  const at = html`<td><time datetime="${item.created_at}">${when(item.created_at)}</time></td>`;
  const object = html`<td>${item.object_type}<div class="hint">${item.object_id}</div></td>`;
  const who = html`<td>${actorText(item.actor)}</td>`;
  return html`<tr data-activity="${item.id}">${at}${who}<td><code>${item.action}</code></td>${object}<td>${summaryList(item.summary)}</td></tr>`;
}

function filterForm(filters: ActivityFilters): Html {
  const filtered = Object.values(filters).some((v) => v !== undefined);
  return html`<form method="get" action="/dashboard/activity" class="toolbar" aria-label="Filter the activity">
${field({ name: "action", label: "Action", value: filters.action, maxLength: 100, hint: "Exact, e.g. connector.created" })}
${field({ name: "object_type", label: "Object type", value: filters.object_type, maxLength: 100, hint: "Exact, e.g. connector" })}
${field({ name: "object_id", label: "Object id", value: filters.object_id, maxLength: 200, hint: "Exact, e.g. an agent’s id" })}
<button type="submit" class="secondary">Filter</button>${filtered ? html` <a href="/dashboard/activity">Clear the filters</a>` : ""}
</form>`;
}

function rows(p: ActivityLogProps, page: Page): Html {
  const filtered = Object.values(p.filters).some((v) => v !== undefined);
  return html`${listTable({
    caption: "Activity, newest first",
    columns: ["When", "Who", "Action", "Object", "What changed"],
    rows: page.items,
    row: activityRow,
    empty: filtered ? "Nothing recorded matches these filters." : "Nothing recorded yet.",
  })}
${cursorPager("/dashboard/activity", { ...p.filters, cursor: p.cursor }, page.next_cursor)}`;
}

export function ActivityLog(p: ActivityLogProps): Html {
  const api = html`<code>GET /api/activity</code>`;
  return html`<h1>Activity log</h1>
${p.nav}
<p class="muted">Who changed what in ${p.orgName}, newest first. Rows are kept ${p.retentionDays} days. The same list is ${api}.</p>
${filterForm(p.filters)}
${p.problem ? html`<p class="error" role="alert">${p.problem} <a href="/dashboard/activity">Start from the newest</a>.</p>` : ""}
${p.page ? rows(p, p.page) : ""}`;
}
