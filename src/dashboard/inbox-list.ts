// The inbox's ticket list: filters (status, assignee, team, text, one customer) and cursor pages,
// read through src/inbox/tickets.ts as /api/tickets does.
import { customersByIds, customerSummary } from "../inbox/customer-profiles.ts";
import { listTickets, STATUSES, TICKET_LIMITS, type TicketStatus } from "../inbox/tickets.ts";
import { isUuid } from "../kit/ids.ts";
import { CATALOGUE_LANGUAGES } from "../kit/language.ts";
import { languageName } from "../i18n/catalogue.ts";
import { html } from "../html/html.ts";
import { cursorPager, type DashboardContext, field, listTable, select, shellPage, when } from "./kit/index.ts";
import { inboxTabs } from "./views/inbox-tabs.ts";
import { conversationMatches } from "./inbox-search.ts";
import { customerLabel, orgMembers } from "./inbox-people.ts";
import { priorityBadge, statusBadge } from "./views/ticket-badges.ts";

/** Tickets a list page shows (the service's cursor pages). */
export const INBOX_PAGE = 25;

const STATUS_OPTIONS = [{ value: "", label: "Any status" }, { value: "active", label: "Open or pending" }, ...STATUSES.map((s) => ({ value: s, label: s }))];

export async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>): Promise<Response> {
  const { deps, orgId } = ctx;
  const memberId = ctx.principal.member.id;
  const status =
    query.status === "active"
      ? (["open", "pending"] as TicketStatus[])
      : query.status && (STATUSES as readonly string[]).includes(query.status)
        ? [query.status as TicketStatus]
        : undefined;
  const assignee = !query.assignee ? undefined : query.assignee === "none" ? null : query.assignee === "me" ? memberId : query.assignee;
  const team = query.team?.trim() || undefined;
  const tag = query.tag?.trim() || undefined;
  // The customer's language (README "Languages"): a catalogue language's code, else no filter.
  const language = (CATALOGUE_LANGUAGES as readonly string[]).includes(query.language ?? "") ? query.language : undefined;
  const text = query.q?.trim().slice(0, TICKET_LIMITS.text) || undefined;
  const [page, people, chats] = await Promise.all([
    listTickets(deps, orgId, {
      status,
      assigneeId: assignee,
      team,
      language,
      tag,
      text,
      customerId: query.customer || undefined,
      cursor: query.cursor || undefined,
      limit: INBOX_PAGE,
    }),
    orgMembers(deps, orgId),
    text && !query.cursor ? conversationMatches(ctx, text) : null,
  ]);
  // Only a uuid may reach the uuid column (anything else matches no ticket and names nobody).
  const customers = await customersByIds(deps, orgId, [
    ...page.tickets.map((row) => row.endUserId),
    query.customer && isUuid(query.customer) ? query.customer : null,
  ]);
  const only = query.customer ? customers.get(query.customer) : undefined;
  const names = new Map(people.map((p) => [p.id, p.label]));
  const filtered = Boolean(query.status || query.assignee || team || language || tag || text || query.customer);
  const body = html`<h1>Inbox</h1>
${inboxTabs("tickets")}
${only ? html`<p>Tickets of <a href="/dashboard/customers/${only.id}">${customerLabel(customerSummary(only))}</a> · <a href="/dashboard/inbox">All tickets</a></p>` : ""}
<form method="get" action="/dashboard/inbox" class="toolbar" role="search" aria-label="Filter tickets">
${select({ name: "status", label: "Status", value: query.status ?? "", options: STATUS_OPTIONS })}
${select({ name: "assignee", label: "Assignee", value: query.assignee ?? "", options: [{ value: "", label: "Anyone" }, { value: "me", label: "Me" }, { value: "none", label: "Unassigned" }, ...people.map((p) => ({ value: p.id, label: p.label }))] })}
${field({ name: "team", label: "Team", value: query.team ?? "", maxLength: TICKET_LIMITS.team })}
${select({ name: "language", label: "Language", value: language ?? "", options: [{ value: "", label: "Any" }, ...CATALOGUE_LANGUAGES.map((code) => ({ value: code, label: languageName(code) }))] })}
${field({ name: "tag", label: "Tag", value: query.tag ?? "", maxLength: TICKET_LIMITS.tag })}
${field({ name: "q", label: "Search", type: "search", value: query.q ?? "", maxLength: TICKET_LIMITS.text, placeholder: "Subject, text or #42" })}
${query.customer ? html`<input type="hidden" name="customer" value="${query.customer}">` : ""}
<button type="submit" class="secondary">Filter</button>${filtered ? html` <a href="/dashboard/inbox">Clear filters</a>` : ""}
</form>
<div id="inbox-live" data-live-events="/api/tickets/events" data-org="${orgId}">
${listTable({
  caption: "Tickets",
  columns: ["#", "Subject", "Customer", "Language", "Status", "Priority", "Team", "Tags", "Assignee", "Updated"],
  rows: page.tickets,
  row: (row) => {
    const customer = row.endUserId ? customers.get(row.endUserId) : undefined;
    return html`<tr><td>${row.number}</td><td><a href="/dashboard/inbox/${row.number}">${row.subject}</a></td><td>${customer ? html`<a href="/dashboard/customers/${customer.id}">${customerLabel(customerSummary(customer))}</a>` : "—"}</td><td>${row.language ? html`<span lang="${row.language}">${languageName(row.language)}</span>` : "—"}</td><td>${statusBadge(row.status)}</td><td>${priorityBadge(row.priority)}</td><td>${row.team ?? "—"}</td><td>${row.tags.length === 0 ? "—" : row.tags.map((t) => html`<a class="badge" href="/dashboard/inbox?tag=${encodeURIComponent(t)}">${t}</a> `)}</td><td>${row.assigneeMemberId ? (names.get(row.assigneeMemberId) ?? "a former member") : "—"}</td><td>${when(row.updatedAt)}</td></tr>`;
  },
  empty: filtered ? "No ticket matches these filters." : "No tickets yet.",
})}
</div>
${cursorPager("/dashboard/inbox", query, page.nextCursor)}
${chats ?? ""}`;
  return shellPage(ctx, { title: "Inbox", active: "inbox", body });
}
