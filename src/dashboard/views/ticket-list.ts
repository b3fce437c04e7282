// The inbox's ticket list: the filters (status, assignee, team, language, tag, text, one customer),
// a cursor page of tickets (kept current by the page's script), and the conversations the search
// also found.
import type { ConversationMatch } from "../../conversations/search.ts";
import type { Ticket } from "../../inbox/tickets.ts";
import { type Html, html } from "../../html/html.ts";
import { languageName } from "../../i18n/catalogue.ts";
import { field, select } from "../kit/fields.ts";
import { cursorPager, listTable, when } from "../kit/table.ts";
import { ConversationMatches } from "./conversation-matches.ts";
import { inboxTabs } from "./inbox-tabs.ts";
import { priorityBadge, statusBadge } from "./ticket-badges.ts";

/** A customer as the inbox links them. */
export interface CustomerLink {
  id: string;
  label: string;
}

export interface TicketListProps {
  rows: readonly { ticket: Ticket; customer: CustomerLink | null }[];
  query: Record<string, string | undefined>;
  /** The one customer the list is narrowed to, when known. */
  only: CustomerLink | null;
  /** The org's members (the assignee filter) and their names by id. */
  people: readonly { id: string; label: string }[];
  /** The language filter as applied, the languages one may choose and the statuses. */
  language: string | undefined;
  languages: readonly string[];
  statuses: readonly string[];
  filtered: boolean;
  nextCursor: string | null;
  /** Conversations the search found too (first page of a search only). */
  chats: readonly ConversationMatch[] | null;
  orgId: string;
  limits: { team: number; tag: number; text: number };
}

function row({ ticket: t, customer }: TicketListProps["rows"][number], names: ReadonlyMap<string, string>): Html {
  const who = customer ? html`<a href="/dashboard/customers/${customer.id}">${customer.label}</a>` : "—";
  const language = t.language ? html`<span lang="${t.language}">${languageName(t.language)}</span>` : "—";
  const tags = t.tags.length === 0 ? "—" : t.tags.map((tag) => html`<a class="badge" href="/dashboard/inbox?tag=${encodeURIComponent(tag)}">${tag}</a> `);
  const assignee = t.assigneeMemberId ? (names.get(t.assigneeMemberId) ?? "a former member") : "—";
  const subject = html`<a href="/dashboard/inbox/${t.number}">${t.subject}</a>`;
  const badges = html`<td>${statusBadge(t.status)}</td><td>${priorityBadge(t.priority)}</td>`;
  const team = html`<td>${t.team ?? "—"}</td><td>${tags}</td>`;
  const last = html`<td>${assignee}</td><td>${when(t.updatedAt)}</td>`;
  return html`<tr><td>${t.number}</td><td>${subject}</td><td>${who}</td><td>${language}</td>${badges}${team}${last}</tr>`;
}

function Filters(p: TicketListProps): Html {
  const { query, limits } = p;
  const statuses = [{ value: "", label: "Any status" }, { value: "active", label: "Open or pending" }, ...p.statuses.map((s) => ({ value: s, label: s }))];
  const assignees = [
    { value: "", label: "Anyone" },
    { value: "me", label: "Me" },
    { value: "none", label: "Unassigned" },
    ...p.people.map((m) => ({ value: m.id, label: m.label })),
  ];
  const languages = [{ value: "", label: "Any" }, ...p.languages.map((code) => ({ value: code, label: languageName(code) }))];
  const clear = p.filtered ? html` <a href="/dashboard/inbox">Clear filters</a>` : "";
  return html`<form method="get" action="/dashboard/inbox" class="toolbar" role="search" aria-label="Filter tickets">
${select({ name: "status", label: "Status", value: query.status ?? "", options: statuses })}
${select({ name: "assignee", label: "Assignee", value: query.assignee ?? "", options: assignees })}
${field({ name: "team", label: "Team", value: query.team ?? "", maxLength: limits.team })}
${select({ name: "language", label: "Language", value: p.language ?? "", options: languages })}
${field({ name: "tag", label: "Tag", value: query.tag ?? "", maxLength: limits.tag })}
${field({ name: "q", label: "Search", type: "search", value: query.q ?? "", maxLength: limits.text, placeholder: "Subject, text or #42" })}
${query.customer ? html`<input type="hidden" name="customer" value="${query.customer}">` : ""}
<button type="submit" class="secondary">Filter</button>${clear}
</form>`;
}

export function TicketList(p: TicketListProps): Html {
  const names = new Map(p.people.map((m) => [m.id, m.label]));
  const only = p.only
    ? html`<p>Tickets of <a href="/dashboard/customers/${p.only.id}">${p.only.label}</a> · <a href="/dashboard/inbox">All tickets</a></p>`
    : "";
  return html`<h1>Inbox</h1>
${inboxTabs("tickets")}
${only}
${Filters(p)}
<div id="inbox-live" data-live-events="/api/tickets/events" data-org="${p.orgId}">
${listTable({
  caption: "Tickets",
  columns: ["#", "Subject", "Customer", "Language", "Status", "Priority", "Team", "Tags", "Assignee", "Updated"],
  rows: p.rows,
  row: (r) => row(r, names),
  empty: p.filtered ? "No ticket matches these filters." : "No tickets yet.",
})}
</div>
${cursorPager("/dashboard/inbox", p.query, p.nextCursor)}
${p.chats ? ConversationMatches({ matches: p.chats }) : ""}`;
}
