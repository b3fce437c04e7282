// The live events of a ticket's conversation (README "Live conversation"): written here, in the
// transaction of the ticket write they describe, whichever path wrote it (dashboard, API, inbox
// tools, chat, email), and read by the SDK's conversation routes. A message event carries the
// message as its customer sees it: a person's display name (never their email), never a note.
import { and, asc, desc, eq, gt, lte, sql } from "drizzle-orm";
import type { Tx } from "../db/client.ts";
import { ticketEvents } from "../db/schema/index.ts";
import type { TicketEventType } from "../db/schema/inbox.ts";
import type { Deps } from "../deps.ts";
import { isUuid } from "../kit/ids.ts";
import { LIVE_CHANNEL } from "../live/live-events.ts";
import type { InboxActor, Ticket, TicketMessage } from "./ticket-model.ts";
import { memberById } from "../tenancy/members.ts";

/** A message as the customer sees it (GET /api/sdk/conversations/{session_id} and its events). */
export interface CustomerMessage {
  id: string;
  kind: "customer" | "agent" | "person";
  author: { name: string; avatar_url?: string };
  text: string;
  created_at: string;
}

/** Shown for a person with no display name, and for replies the service itself wrote. */
export const TEAM_NAME = "Support team";
export const EVENT_LIMITS = {
  /** Events one read returns; a stream reads again at once when a read was full. */
  page: 100,
  /** Messages of the conversation's tickets returned with it (the most recent ones). */
  history: 500,
} as const;

/** Whose events these are: the conversation's, or the ticket's own when it has no conversation. */
export function eventKey(ticket: Pick<Ticket, "id" | "conversationId">): string {
  return ticket.conversationId ?? ticket.id;
}

/** What wakes the org's ticket list (GET /api/tickets/events): every ticket event of the org. */
export function orgKey(orgId: string): string {
  return `org:${orgId}`;
}

async function authorOf(tx: Tx, message: TicketMessage, actor: InboxActor): Promise<Pick<CustomerMessage, "kind" | "author">> {
  if (message.kind === "customer") return { kind: "customer", author: { name: "You" } };
  // The agent that wrote it is the actor: its name comes with it (agents/ stands above the inbox).
  if (message.authorKind === "agent") return { kind: "agent", author: { name: (actor.kind === "agent" && actor.name) || TEAM_NAME } };
  const member = message.authorMemberId ? await memberById(tx, message.authorMemberId) : null;
  return { kind: "person", author: { name: member?.name.trim() || TEAM_NAME, ...(member?.avatarUrl ? { avatar_url: member.avatarUrl } : {}) } };
}

async function insertEvent(tx: Tx, ticket: Ticket, type: TicketEventType, customerVisible: boolean, data: Record<string, unknown>, now: Date) {
  const key = eventKey(ticket);
  // Held to commit: events of one conversation commit in `seq` order (see ticket_events).
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`ticket_events:${key}`}, 0))`);
  await tx
    .insert(ticketEvents)
    .values({ orgId: ticket.orgId, ticketId: ticket.id, conversationId: ticket.conversationId, type, customerVisible, data, createdAt: now });
  // Delivered by PostgreSQL only if this transaction commits.
  await tx.execute(sql`select pg_notify(${LIVE_CHANNEL}, ${key})`);
  await tx.execute(sql`select pg_notify(${LIVE_CHANNEL}, ${orgKey(ticket.orgId)})`);
}

/**
 * A customer message or a reply (never a note). The customer's own chat messages are already on
 * their screen, so their stream skips them; a customer message from anywhere else (email) is shown.
 */
export async function publishMessage(tx: Tx, ticket: Ticket, message: TicketMessage, actor: InboxActor, now: Date): Promise<void> {
  if (message.kind === "note") return;
  const fromThisChat = message.kind === "customer" && actor.kind === "customer" && actor.sessionId !== undefined;
  const view: CustomerMessage = { id: message.id, ...(await authorOf(tx, message, actor)), text: message.body, created_at: message.createdAt.toISOString() };
  await insertEvent(tx, ticket, "message", !fromThisChat, { ...view }, now);
}

/** The ticket's number and status, when it is opened and whenever its status changes. */
export async function publishStatus(tx: Tx, ticket: Ticket, status: Ticket["status"], now: Date): Promise<void> {
  await insertEvent(tx, ticket, "ticket", true, { number: ticket.number, status }, now);
}

/**
 * A member joined the conversation (src/inbox/ticket-join.ts): the ticket's number and status, and
 * who joined by their display name (never their email), so the widget says "<name> joined the
 * conversation". A `ticket` event, so a client that knows nothing of joins reads a status.
 */
export async function publishJoined(tx: Tx, ticket: Ticket, memberId: string, now: Date): Promise<void> {
  const member = await memberById(tx, memberId);
  const joined = { name: member?.name.trim() || TEAM_NAME, ...(member?.avatarUrl ? { avatar_url: member.avatarUrl } : {}) };
  await insertEvent(tx, ticket, "ticket", true, { number: ticket.number, status: ticket.status, joined }, now);
}

/**
 * A change only the team sees (assignee, priority, team, tags): an event that is never
 * customer-visible, so the ticket page and the org's list refresh and the customer hears nothing.
 */
export async function publishChange(tx: Tx, ticket: Ticket, status: Ticket["status"], now: Date): Promise<void> {
  await insertEvent(tx, ticket, "ticket", false, { number: ticket.number, status }, now);
}

export interface StoredEvent {
  id: number;
  type: TicketEventType;
  data: Record<string, unknown>;
}

/** The customer-visible events of a conversation after `after`, oldest first, at most EVENT_LIMITS.page. */
export async function eventsAfter(deps: Pick<Deps, "db">, orgId: string, conversationId: string, after: number): Promise<StoredEvent[]> {
  if (!isUuid(conversationId)) return [];
  const rows = await deps.db
    .select({ id: ticketEvents.seq, type: ticketEvents.type, data: ticketEvents.data })
    .from(ticketEvents)
    .where(
      and(eq(ticketEvents.conversationId, conversationId), eq(ticketEvents.orgId, orgId), gt(ticketEvents.seq, after), eq(ticketEvents.customerVisible, true)),
    )
    .orderBy(asc(ticketEvents.seq))
    .limit(EVENT_LIMITS.page);
  return rows;
}

/** The id of the conversation's newest event (0 before any): where a stream of "what happens next" starts. */
export async function lastEventId(deps: Pick<Deps, "db">, orgId: string, conversationId: string): Promise<number> {
  const [row] = await deps.db
    .select({ id: ticketEvents.seq })
    .from(ticketEvents)
    .where(and(eq(ticketEvents.conversationId, conversationId), eq(ticketEvents.orgId, orgId)))
    .orderBy(desc(ticketEvents.seq))
    .limit(1);
  return row?.id ?? 0;
}

/** The messages of the conversation's tickets its customer may see, oldest first (the most recent EVENT_LIMITS.history). */
export async function ticketMessagesSeen(deps: Pick<Deps, "db">, orgId: string, conversationId: string, upTo: number): Promise<CustomerMessage[]> {
  const rows = await deps.db
    .select({ data: ticketEvents.data })
    .from(ticketEvents)
    .where(
      and(
        eq(ticketEvents.conversationId, conversationId),
        eq(ticketEvents.orgId, orgId),
        eq(ticketEvents.type, "message"),
        eq(ticketEvents.customerVisible, true),
        lte(ticketEvents.seq, upTo),
      ),
    )
    .orderBy(desc(ticketEvents.seq))
    .limit(EVENT_LIMITS.history);
  return rows.reverse().map((r) => r.data as unknown as CustomerMessage);
}

/**
 * Every event of one ticket after `after` (customer messages from the chat included), for the team's
 * stream: a customer message is named "Customer" there, not "You".
 */
export async function ticketEventsAfter(deps: Pick<Deps, "db">, orgId: string, ticketId: string, after: number): Promise<StoredEvent[]> {
  const rows = await deps.db
    .select({ id: ticketEvents.seq, type: ticketEvents.type, data: ticketEvents.data })
    .from(ticketEvents)
    .where(and(eq(ticketEvents.ticketId, ticketId), eq(ticketEvents.orgId, orgId), gt(ticketEvents.seq, after)))
    .orderBy(asc(ticketEvents.seq))
    .limit(EVENT_LIMITS.page);
  return rows.map((r) => (r.type === "message" && r.data.kind === "customer" ? { ...r, data: { ...r.data, author: { name: "Customer" } } } : r));
}

/** The id of the ticket's newest event (0 before any). */
export async function lastTicketEventId(deps: Pick<Deps, "db">, orgId: string, ticketId: string): Promise<number> {
  const [row] = await deps.db
    .select({ id: ticketEvents.seq })
    .from(ticketEvents)
    .where(and(eq(ticketEvents.ticketId, ticketId), eq(ticketEvents.orgId, orgId)))
    .orderBy(desc(ticketEvents.seq))
    .limit(1);
  return row?.id ?? 0;
}

/**
 * The org's ticket events after `after` for the inbox list (GET /api/tickets/events): which ticket
 * changed and how (`message` or `ticket`), never a message's text. Events of different
 * conversations may commit out of `seq` order; the list refetches itself on each event, so one
 * read late is caught by the next (docs/decisions.md "A live inbox list").
 */
export async function orgEventsAfter(deps: Pick<Deps, "db">, orgId: string, after: number): Promise<StoredEvent[]> {
  const rows = await deps.db
    .select({ id: ticketEvents.seq, type: ticketEvents.type, ticketId: ticketEvents.ticketId })
    .from(ticketEvents)
    .where(and(eq(ticketEvents.orgId, orgId), gt(ticketEvents.seq, after)))
    .orderBy(asc(ticketEvents.seq))
    .limit(EVENT_LIMITS.page);
  return rows.map((r) => ({ id: r.id, type: r.type, data: { ticket_id: r.ticketId } }));
}

/** The id of the org's newest ticket event (0 before any). */
export async function lastOrgEventId(deps: Pick<Deps, "db">, orgId: string): Promise<number> {
  const [row] = await deps.db.select({ id: ticketEvents.seq }).from(ticketEvents).where(eq(ticketEvents.orgId, orgId)).orderBy(desc(ticketEvents.seq)).limit(1);
  return row?.id ?? 0;
}
