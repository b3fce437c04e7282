// Ticket reads: one ticket, the filtered list, the team's thread and history, and the thread as
// the customer may see it.
import { and, asc, desc, eq, ilike, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
import { type KeysetOrder, keysetPage } from "../db/keyset.ts";
import { escapeLike } from "../db/like.ts";
import { ticketHistory, ticketMessages, tickets } from "../db/schema/index.ts";
import type { TicketStatus } from "../db/schema/inbox.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import { fail, oneOf, requireText } from "./ticket-checks.ts";
import { STATUSES, type Ticket, TICKET_LIMITS, type TicketHistoryEntry, type TicketMessage } from "./ticket-model.ts";

/** A ticket by id or by its number (`42` or `#42`), within one org; null otherwise. */
export async function findTicket(deps: Pick<Deps, "db">, orgId: string, ref: string): Promise<Ticket | null> {
  let key: SQL | undefined;
  if (isUuid(ref)) key = eq(tickets.id, ref);
  else {
    const match = /^#?(\d{1,9})$/.exec(ref.trim());
    if (match) key = eq(tickets.number, Number(match[1]));
  }
  if (!key) return null;
  const [ticket] = await deps.db
    .select()
    .from(tickets)
    .where(and(eq(tickets.orgId, orgId), key));
  return ticket ?? null;
}

/**
 * A conversation's ticket while it waits (open or pending), and whether a person has it: the
 * customer asked for one (they opened it themselves: a person asked for, a routing rule), or a
 * member (or a member's token) replied, assigned it or changed its status. A ticket the AI opened
 * on its own (low confidence, frustration) waits for that.
 */
export async function waitingTicket(deps: Pick<Deps, "db">, orgId: string, ticketId: string): Promise<(Ticket & { personHas: boolean }) | null> {
  const ticket = await findTicket(deps, orgId, ticketId);
  if (!ticket || (ticket.status !== "open" && ticket.status !== "pending")) return null;
  return { ...ticket, personHas: await personHas(deps, orgId, ticket.id) };
}

async function personHas(deps: Pick<Deps, "db">, orgId: string, ticketId: string): Promise<boolean> {
  const [row] = await deps.db
    .select({ id: ticketHistory.id })
    .from(ticketHistory)
    .where(
      and(
        eq(ticketHistory.orgId, orgId),
        eq(ticketHistory.ticketId, ticketId),
        or(
          and(eq(ticketHistory.action, "created"), eq(ticketHistory.actorKind, "customer")),
          and(inArray(ticketHistory.actorKind, ["member", "token"]), inArray(ticketHistory.action, ["reply", "assignee", "status"])),
        ),
      ),
    )
    .limit(1);
  return row !== undefined;
}

export interface TicketFilters {
  status?: TicketStatus[];
  /** A member id, or null for unassigned tickets. */
  assigneeId?: string | null;
  team?: string;
  /** The customer's language (ISO 639-1, README "Languages"). */
  language?: string;
  /** Tickets carrying this tag (whatever its case). */
  tag?: string;
  customerId?: string;
  /** Matches the subject, any message body, or the number (`42`, `#42`). */
  text?: string;
  /** For a customer's own view: the text search skips internal notes, which they must never see. */
  customerVisibleOnly?: boolean;
  cursor?: string;
  limit?: number;
}

/**
 * Tickets are listed newest first by number, which never changes, so a page never repeats or skips
 * a ticket however tickets are updated between requests (src/db/keyset.ts).
 */
const ORDER: KeysetOrder = { table: tickets, scope: tickets.orgId, id: tickets.id, keys: [tickets.number] };

export { escapeLike };

export async function listTickets(deps: Pick<Deps, "db">, orgId: string, filters: TicketFilters): Promise<{ tickets: Ticket[]; nextCursor: string | null }> {
  const limit = filters.limit ?? TICKET_LIMITS.defaultPageSize;
  if (!Number.isInteger(limit) || limit < 1 || limit > TICKET_LIMITS.pageSize) fail("/limit", `must be an integer from 1 to ${TICKET_LIMITS.pageSize}`);
  const where: (SQL | undefined)[] = [eq(tickets.orgId, orgId)];
  if (filters.status?.length)
    where.push(
      inArray(
        tickets.status,
        filters.status.map((s) => oneOf("/status", s, STATUSES)),
      ),
    );
  if (filters.assigneeId === null) where.push(isNull(tickets.assigneeMemberId));
  else if (filters.assigneeId !== undefined) {
    if (!isUuid(filters.assigneeId)) return { tickets: [], nextCursor: null };
    where.push(eq(tickets.assigneeMemberId, filters.assigneeId));
  }
  if (filters.team !== undefined) where.push(eq(tickets.team, filters.team));
  if (filters.language !== undefined) where.push(eq(tickets.language, filters.language));
  if (filters.tag !== undefined) where.push(sql`exists (select 1 from unnest(${tickets.tags}) as tag where lower(tag) = lower(${filters.tag}))`);
  if (filters.customerId !== undefined) {
    if (!isUuid(filters.customerId)) return { tickets: [], nextCursor: null };
    where.push(eq(tickets.endUserId, filters.customerId));
  }
  if (filters.text !== undefined && filters.text.trim() !== "") {
    const text = requireText("/text", filters.text, TICKET_LIMITS.text).trim();
    const pattern = escapeLike(text);
    const number = /^#?(\d{1,9})$/.exec(text);
    where.push(
      or(
        ilike(tickets.subject, pattern),
        sql`exists (select 1 from ${ticketMessages} where ${ticketMessages.ticketId} = ${tickets.id} and ${ticketMessages.orgId} = ${orgId}
          and ${ticketMessages.body} ilike ${pattern}${filters.customerVisibleOnly ? sql` and ${ticketMessages.kind} <> 'note'` : sql``})`,
        number ? eq(tickets.number, Number(number[1])) : undefined,
      ),
    );
  }
  const { page, nextCursor } = await keysetPage(
    ORDER,
    orgId,
    { where, cursor: filters.cursor, limit, badCursor: () => AppError.badCursor() },
    (filter, orderBy, take) =>
      deps.db
        .select()
        .from(tickets)
        .where(filter)
        .orderBy(...orderBy)
        .limit(take),
    (t) => t.id,
  );
  return { tickets: page, nextCursor };
}

/** The thread as the team sees it (notes included), oldest first: the most recent `TICKET_LIMITS.thread` messages. */
export async function ticketThread(deps: Pick<Deps, "db">, ticket: Ticket): Promise<TicketMessage[]> {
  const rows = await deps.db
    .select()
    .from(ticketMessages)
    .where(and(eq(ticketMessages.orgId, ticket.orgId), eq(ticketMessages.ticketId, ticket.id)))
    .orderBy(desc(ticketMessages.seq))
    .limit(TICKET_LIMITS.thread);
  return rows.reverse();
}

export async function ticketHistoryOf(deps: Pick<Deps, "db">, ticket: Ticket): Promise<TicketHistoryEntry[]> {
  const rows = await deps.db
    .select()
    .from(ticketHistory)
    .where(and(eq(ticketHistory.orgId, ticket.orgId), eq(ticketHistory.ticketId, ticket.id)))
    .orderBy(desc(ticketHistory.seq))
    .limit(TICKET_LIMITS.thread);
  return rows.reverse();
}

/**
 * The thread as the customer may see it (widget, e-mail, SDK): customer messages and replies only,
 * oldest first. Internal notes never leave this function, and a reply names no member or client —
 * only that it came from the team or from the AI agent.
 */
export async function customerThread(deps: Pick<Deps, "db">, orgId: string, ticketId: string) {
  if (!isUuid(ticketId)) return [];
  const rows = await deps.db
    .select({
      id: ticketMessages.id,
      kind: ticketMessages.kind,
      body: ticketMessages.body,
      authorKind: ticketMessages.authorKind,
      createdAt: ticketMessages.createdAt,
    })
    .from(ticketMessages)
    .where(and(eq(ticketMessages.orgId, orgId), eq(ticketMessages.ticketId, ticketId), inArray(ticketMessages.kind, ["customer", "reply"])))
    .orderBy(asc(ticketMessages.seq))
    .limit(TICKET_LIMITS.thread);
  return rows.map((m) => ({
    id: m.id,
    from: m.kind === "customer" ? ("customer" as const) : m.authorKind === "agent" ? ("ai_agent" as const) : ("team" as const),
    body: m.body,
    created_at: m.createdAt.toISOString(),
  }));
}

/** The inbox's navigation counts: tickets waiting (open or pending), those of them nobody has, and the member's own. */
export async function ticketCounts(deps: Pick<Deps, "db">, orgId: string, memberId: string): Promise<{ open: number; unassigned: number; mine: number }> {
  const [row] = await deps.db
    .select({
      open: sql<number>`count(*)::int`,
      unassigned: sql<number>`(count(*) filter (where ${tickets.assigneeMemberId} is null))::int`,
      mine: sql<number>`(count(*) filter (where ${tickets.assigneeMemberId} = ${memberId}))::int`,
    })
    .from(tickets)
    .where(and(eq(tickets.orgId, orgId), inArray(tickets.status, ["open", "pending"])));
  return { open: Number(row?.open ?? 0), unassigned: Number(row?.unassigned ?? 0), mine: Number(row?.mine ?? 0) };
}
