// The inbox's ticket list: filters (status, assignee, team, text, one customer) and cursor pages,
// read through src/inbox/tickets.ts as /api/tickets does; the search also looks in chat
// conversations (src/conversations/search.ts). Drawn by views/ticket-list.ts.
import { customersByIds, customerSummary } from "../inbox/customer-profiles.ts";
import { listTickets, STATUSES, TICKET_LIMITS, type TicketStatus } from "../inbox/tickets.ts";
import { isUuid } from "../kit/ids.ts";
import { CATALOGUE_LANGUAGES } from "../kit/language.ts";
import { searchConversations } from "../conversations/search.ts";
import { type DashboardContext, shellPage } from "./kit/index.ts";
import { customerLabel, orgMembers } from "./inbox-people.ts";
import { type CustomerLink, TicketList } from "./views/ticket-list.ts";

/** Tickets a list page shows (the service's cursor pages). */
export const INBOX_PAGE = 25;

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
    text && !query.cursor ? searchConversations(deps, orgId, text) : null,
  ]);
  // Only a uuid may reach the uuid column (anything else matches no ticket and names nobody).
  const customers = await customersByIds(deps, orgId, [
    ...page.tickets.map((row) => row.endUserId),
    query.customer && isUuid(query.customer) ? query.customer : null,
  ]);
  const link = (id: string | null | undefined): CustomerLink | null => {
    const customer = id ? customers.get(id) : undefined;
    return customer ? { id: customer.id, label: customerLabel(customerSummary(customer)) } : null;
  };
  const body = TicketList({
    rows: page.tickets.map((ticket) => ({ ticket, customer: link(ticket.endUserId) })),
    query,
    only: link(query.customer),
    people,
    language,
    languages: CATALOGUE_LANGUAGES,
    statuses: STATUSES,
    filtered: Boolean(query.status || query.assignee || team || language || tag || text || query.customer),
    nextCursor: page.nextCursor,
    chats,
    orgId,
    limits: { team: TICKET_LIMITS.team, tag: TICKET_LIMITS.tag, text: TICKET_LIMITS.text },
  });
  return shellPage(ctx, { title: "Inbox", active: "inbox", body });
}
