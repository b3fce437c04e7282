// Support tickets (issue #11 "The inbox"): creation from every source (widget, backend API, chat,
// MCP), the thread of messages, triage, and the history of every change. The only writer of the
// tickets, ticket_messages, ticket_history and ticket_counters tables; SDK, CHAT, the dashboard API
// and the inbox_* tools all call these functions, so every write lands in the same tables and history.
import { and, asc, desc, eq, ilike, inArray, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import { recordActivity } from "../activity/log.ts";
import { type ChatTicketReason, emitTicketCreated } from "../webhooks/emit.ts";
import { emitWebhookEvent } from "../webhooks/events.ts";
import type { Actor } from "../kit/actor.ts";
import type { Db, Tx } from "../db/client.ts";
import { endUsers, memberships, ticketCounters, ticketHistory, ticketMessages, tickets } from "../db/schema/index.ts";
import type { TicketActorKind, TicketMessageKind, TicketPriority, TicketSource, TicketStatus } from "../db/schema/inbox.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { assertFreeForm, findControlCharacter, FREE_FORM_LIMITS } from "../http/json.ts";
import { isUuid } from "../kit/ids.ts";
import { queueReplyEmail } from "./reply-mail.ts";
import { queueMemberNotices } from "./member-notices.ts";

export type { TicketMessageKind, TicketPriority, TicketSource, TicketStatus };
export type Ticket = typeof tickets.$inferSelect;
export type TicketMessage = typeof ticketMessages.$inferSelect;
export type TicketHistoryEntry = typeof ticketHistory.$inferSelect;

export const STATUSES = ["open", "pending", "resolved", "closed"] as const satisfies readonly TicketStatus[];
export const PRIORITIES = ["low", "normal", "high", "urgent"] as const satisfies readonly TicketPriority[];
export const SOURCES = ["widget", "api", "chat", "mcp", "email"] as const satisfies readonly TicketSource[];

/** Every cap of the inbox, shared by the dashboard API, the SDK route and the inbox_* tools (documented in the README). */
export const TICKET_LIMITS = {
  subject: 250,
  /** Same as a chat message (interface §2.5). */
  body: 10_000,
  team: 100,
  tags: 20,
  tag: 50,
  customFieldKeys: 50,
  /** Serialised JSON, and nesting: the house bound for stored free-form objects. */
  customFieldsBytes: FREE_FORM_LIMITS.maxBytes,
  customFieldsDepth: FREE_FORM_LIMITS.maxDepth,
  /** Free-text filter. */
  text: 200,
  pageSize: 100,
  defaultPageSize: 25,
  /** Messages and history entries returned with one ticket (the most recent ones). */
  thread: 500,
} as const;

/**
 * Who acts. The first four kinds are the tool runtime's `Actor` (C1) so its callers pass theirs
 * unchanged; `agent` is an AI agent replying or triaging in a chat. A token acts for its member.
 */
export type InboxActor =
  | { kind: "token"; tokenId?: string; clientId: string; memberId: string; scopes?: readonly string[] }
  | { kind: "member"; memberId: string }
  | { kind: "customer"; endUserId: string | null; sessionId?: string }
  | { kind: "system"; name: string }
  | { kind: "agent"; agentId: string | null };

export interface CreateTicketInput {
  subject: string;
  message: string;
  customerId?: string | null;
  priority?: TicketPriority;
  team?: string;
  source: TicketSource;
  customFields?: Record<string, unknown>;
  conversationId?: string;
  /** Whether the customer's identity was verified (§5); only a verified request may say true. */
  verified?: boolean;
  /** What the first message is: the customer writing in (default, status `open`), or our outbound first message (outreach, status `pending`). */
  firstMessage?: "customer" | "reply";
  /** Why the chat pipeline opened it: announced as conversation.routed or conversation.escalated (issue #15). */
  chatReason?: ChatTicketReason;
}

export interface TicketPatch {
  status?: TicketStatus;
  priority?: TicketPriority;
  team?: string | null;
  assigneeId?: string | null;
  tags?: string[];
}

// ---------------------------------------------------------------------------------------------
// Views (the dashboard API, the SDK and the tools answer with these)

export function ticketView(t: Ticket) {
  return {
    id: t.id,
    number: t.number,
    subject: t.subject,
    status: t.status,
    priority: t.priority,
    team: t.team,
    assignee_id: t.assigneeMemberId,
    tags: t.tags,
    source: t.source,
    customer_id: t.endUserId,
    conversation_id: t.conversationId,
    verified: t.verified,
    custom_fields: t.customFields,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}
export type TicketView = ReturnType<typeof ticketView>;

function authorOf(m: { authorKind: TicketActorKind; authorMemberId: string | null; authorAgentId: string | null; authorClientId: string | null }, endUserId: string | null) {
  return {
    kind: m.authorKind,
    ...(m.authorMemberId ? { member_id: m.authorMemberId } : {}),
    ...(m.authorAgentId ? { agent_id: m.authorAgentId } : {}),
    ...(m.authorClientId ? { client_id: m.authorClientId } : {}),
    ...(m.authorKind === "customer" && endUserId ? { customer_id: endUserId } : {}),
  };
}

/**
 * A message as the team sees it (notes included). `verified` says whether a customer message came
 * from a verified identity (§5); it is null on replies and notes, which come from the team.
 */
export function messageView(m: TicketMessage, endUserId: string | null) {
  return { id: m.id, kind: m.kind, body: m.body, author: authorOf(m, endUserId), verified: m.kind === "customer" ? m.verified : null, created_at: m.createdAt.toISOString() };
}
export type TicketMessageView = ReturnType<typeof messageView>;

export function historyView(h: TicketHistoryEntry) {
  return {
    id: h.id,
    action: h.action,
    actor: {
      kind: h.actorKind,
      ...(h.actorMemberId ? { member_id: h.actorMemberId } : {}),
      ...(h.actorTokenId ? { token_id: h.actorTokenId } : {}),
      ...(h.actorClientId ? { client_id: h.actorClientId } : {}),
      ...(h.actorAgentId ? { agent_id: h.actorAgentId } : {}),
      ...(h.actorName ? { name: h.actorName } : {}),
    },
    before: h.before ?? null,
    after: h.after ?? null,
    created_at: h.createdAt.toISOString(),
  };
}

// ---------------------------------------------------------------------------------------------
// Validation: these functions are called by routes (already TypeBox-validated) and by other areas'
// code and tools (not), so they check every limit themselves.

function fail(path: string, message: string): never {
  throw AppError.badRequest(`Invalid ${path.slice(1).replaceAll("/", ".")}: ${message}.`, [{ path, message }]);
}

function requireText(path: string, value: unknown, max: number, opts: { min?: number } = {}): string {
  if (typeof value !== "string") fail(path, "must be a string");
  if (value.length > max) fail(path, `must be at most ${max} characters`);
  // PostgreSQL refuses NUL; other C0 controls have no place in tickets either.
  if (findControlCharacter(value) !== null) fail(path, "must not contain control characters other than tab, line feed and carriage return");
  if (value.trim().length < (opts.min ?? 0)) fail(path, "must not be empty");
  // Request bodies never carry a lone surrogate (src/http/json.ts); text our own callers cut short
  // may end in one, which is stored as U+FFFD rather than refused.
  return value.toWellFormed();
}

function optionalTeam(value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  const team = requireText("/team", value, TICKET_LIMITS.team).trim();
  return team === "" ? null : team;
}

/** Trimmed, de-duplicated (case-insensitively, first spelling wins), each 1–50 characters, at most 20. */
export function normaliseTags(value: unknown, path = "/tags"): string[] {
  if (!Array.isArray(value)) fail(path, "must be an array of strings");
  if (value.length > TICKET_LIMITS.tags) fail(path, `must hold at most ${TICKET_LIMITS.tags} tags`);
  const seen = new Set<string>();
  const tags: string[] = [];
  value.forEach((raw, i) => {
    const tag = requireText(`${path}/${i}`, raw, TICKET_LIMITS.tag, { min: 1 }).trim();
    if (!seen.has(tag.toLowerCase())) {
      seen.add(tag.toLowerCase());
      tags.push(tag);
    }
  });
  return tags;
}

export function checkCustomFields(value: unknown, path = "/custom_fields"): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) fail(path, "must be an object");
  if (Object.keys(value).length > TICKET_LIMITS.customFieldKeys) fail(path, `must have at most ${TICKET_LIMITS.customFieldKeys} keys`);
  assertFreeForm(value, path);
  return value as Record<string, unknown>;
}

function oneOf<T extends string>(path: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) fail(path, `must be one of ${allowed.join(", ")}`);
  return value as T;
}

// ---------------------------------------------------------------------------------------------
// Actors → columns

function historyActor(actor: InboxActor) {
  switch (actor.kind) {
    case "member":
      return { actorKind: "member" as const, actorMemberId: actor.memberId };
    case "token":
      return { actorKind: "token" as const, actorMemberId: actor.memberId, actorTokenId: actor.tokenId ?? null, actorClientId: actor.clientId };
    case "agent":
      return { actorKind: "agent" as const, actorAgentId: actor.agentId };
    case "customer":
      return { actorKind: "customer" as const, actorName: actor.endUserId };
    case "system":
      return { actorKind: "system" as const, actorName: actor.name };
  }
}

function messageAuthor(actor: InboxActor) {
  switch (actor.kind) {
    case "member":
      return { authorKind: "member" as const, authorMemberId: actor.memberId };
    case "token":
      return { authorKind: "token" as const, authorMemberId: actor.memberId, authorClientId: actor.clientId };
    case "agent":
      return { authorKind: "agent" as const, authorAgentId: actor.agentId };
    case "customer":
      return { authorKind: "customer" as const };
    case "system":
      return { authorKind: "system" as const };
  }
}

/** The admin activity log (C3) knows no AI agent: it records one as the system actor `agent:<id>`. */
function activityActor(actor: InboxActor): Actor {
  switch (actor.kind) {
    case "agent":
      return { kind: "system", name: `agent:${actor.agentId ?? "active"}` };
    case "token":
      return { kind: "token", tokenId: actor.tokenId ?? "", clientId: actor.clientId, memberId: actor.memberId, scopes: actor.scopes ?? [] };
    case "customer":
      return { kind: "customer", endUserId: actor.endUserId, sessionId: actor.sessionId ?? "" };
    default:
      return actor;
  }
}

/** One admin-activity row per ticket write, committed with it. The ticket's own history has the detail. */
async function activity(tx: Tx, now: Date, ticket: Ticket, actor: InboxActor, action: string, summary: Record<string, unknown>) {
  await recordActivity({ db: tx as unknown as Db, now: () => now }, { orgId: ticket.orgId, actor: activityActor(actor), action, objectType: "ticket", objectId: ticket.id, summary: { number: ticket.number, ...summary } });
}

async function record(tx: Tx, now: Date, ticket: Ticket, actor: InboxActor, action: string, before: unknown, after: unknown) {
  await tx.insert(ticketHistory).values({ orgId: ticket.orgId, ticketId: ticket.id, ...historyActor(actor), action, before: before ?? null, after: after ?? null, createdAt: now });
}

// ---------------------------------------------------------------------------------------------
// Writes

/** Creates a ticket with its first message and a `created` history entry, in one transaction. */
export async function createTicket(deps: Deps, params: { orgId: string; actor: InboxActor; input: CreateTicketInput }): Promise<TicketView> {
  return ticketView(await createTicketRow(deps, params));
}

export async function createTicketRow(deps: Deps, { orgId, actor, input }: { orgId: string; actor: InboxActor; input: CreateTicketInput }): Promise<Ticket> {
  const subject = requireText("/subject", input.subject, TICKET_LIMITS.subject, { min: 1 }).trim();
  const body = requireText("/message", input.message, TICKET_LIMITS.body, { min: 1 });
  const priority = input.priority === undefined ? "normal" : oneOf("/priority", input.priority, PRIORITIES);
  const source = oneOf("/source", input.source, SOURCES);
  const team = optionalTeam(input.team);
  const customFields = input.customFields === undefined ? {} : checkCustomFields(input.customFields);
  if (input.conversationId !== undefined && !isUuid(input.conversationId)) fail("/conversation_id", "must be a UUID");
  const customerId = input.customerId ?? null;
  if (customerId !== null) {
    const [user] = isUuid(customerId)
      ? await deps.db.select({ id: endUsers.id }).from(endUsers).where(and(eq(endUsers.orgId, orgId), eq(endUsers.id, customerId)))
      : [];
    if (!user) throw AppError.notFound("No such customer.");
  }
  const kind: TicketMessageKind = input.firstMessage === "reply" ? "reply" : "customer";
  const verified = input.verified === true;
  const now = deps.now();

  return deps.db.transaction(async (tx) => {
    // The row lock on the org's counter serialises concurrent creations (see ticket_counters).
    const [counter] = await tx
      .insert(ticketCounters)
      .values({ orgId, lastNumber: 1 })
      .onConflictDoUpdate({ target: ticketCounters.orgId, set: { lastNumber: sql`${ticketCounters.lastNumber} + 1` } })
      .returning({ number: ticketCounters.lastNumber });
    const [ticket] = await tx
      .insert(tickets)
      .values({
        orgId,
        number: counter!.number,
        subject,
        // Our outbound first message waits for the customer's answer.
        status: kind === "reply" ? "pending" : "open",
        priority,
        team,
        source,
        endUserId: customerId,
        conversationId: input.conversationId ?? null,
        verified,
        customFields,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    const [first] = await tx.insert(ticketMessages).values({
      orgId,
      ticketId: ticket!.id,
      kind,
      body,
      ...(kind === "customer" ? { authorKind: "customer" as const } : messageAuthor(actor)),
      verified: kind === "customer" ? verified : false,
      createdAt: now,
    }).returning({ id: ticketMessages.id });
    if (kind === "reply") await queueReplyEmail(tx, { orgId, ticketId: ticket!.id, endUserId: customerId, messageId: first!.id, now }); // outreach reaches the customer by email
    else await queueMemberNotices(tx, { orgId, ticketId: ticket!.id, assignee: null, messageId: first!.id, now }); // members hear of it (README "Email channel")
    await record(tx, now, ticket!, actor, "created", null, { subject, status: ticket!.status, priority, team, source, customer_id: customerId });
    await activity(tx, now, ticket!, actor, "ticket.created", { source });
    await emitTicketCreated(tx, { orgId, ticket: ticketView(ticket!), now, chatReason: input.chatReason }); // webhooks, committed with the ticket
    return ticket!;
  });
}

/**
 * Adds one message to a ticket's thread. A customer message on a `pending` or `resolved` ticket
 * reopens it (`open`, recorded in the history). A closed ticket takes notes only: customer messages
 * and replies are refused with 409 `ticket_closed` (the widget opens a new ticket instead).
 */
export async function addTicketMessage(
  deps: Deps,
  { orgId, actor, ticketId, kind, body, verified }: { orgId: string; actor: InboxActor; ticketId: string; kind: TicketMessageKind; body: string; verified?: boolean },
): Promise<TicketMessageView> {
  oneOf("/kind", kind, ["customer", "reply", "note"] as const);
  const text = requireText("/body", body, TICKET_LIMITS.body, { min: 1 });
  if (!isUuid(ticketId)) throw AppError.notFound("No such ticket.");
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const [ticket] = await tx.select().from(tickets).where(and(eq(tickets.orgId, orgId), eq(tickets.id, ticketId))).for("update");
    if (!ticket) throw AppError.notFound("No such ticket.");
    if (kind !== "note" && ticket.status === "closed") throw new AppError(409, "ticket_closed", "This ticket is closed; reopen it first (or open a new ticket).");
    const [message] = await tx
      .insert(ticketMessages)
      .values({
        orgId,
        ticketId,
        kind,
        body: text,
        ...(kind === "customer" ? { authorKind: "customer" as const } : messageAuthor(actor)),
        verified: kind === "customer" && verified === true,
        createdAt: now,
      })
      .returning();
    // A person's reply is emailed to the customer (README "Email channel"), queued with the reply.
    if (kind === "reply" && (actor.kind === "member" || actor.kind === "token")) await queueReplyEmail(tx, { orgId, ticketId, endUserId: ticket.endUserId, messageId: message!.id, now });
    if (kind === "customer") await queueMemberNotices(tx, { orgId, ticketId, assignee: ticket.assigneeMemberId, messageId: message!.id, now });
    const action = kind === "customer" ? "customer_message" : kind;
    await record(tx, now, ticket, actor, action, null, { message_id: message!.id });
    await activity(tx, now, ticket, actor, `ticket.${action}_added`, { message_id: message!.id });
    let status = ticket.status;
    if (kind === "customer" && (status === "pending" || status === "resolved")) {
      status = "open";
      await record(tx, now, ticket, actor, "status", ticket.status, status);
    }
    await tx.update(tickets).set({ status, updatedAt: now }).where(and(eq(tickets.orgId, orgId), eq(tickets.id, ticketId)));
    if (kind !== "note") await emitWebhookEvent(tx, { orgId, type: "ticket.message.created", data: { ticket_id: ticketId, ticket_number: ticket.number, status, message: messageView(message!, ticket.endUserId), updated_at: now.toISOString() }, now }); // never internal notes
    return messageView(message!, ticket.endUserId);
  });
}

/** Changes status, priority, team, assignee and tags at once; one history entry per field that changed. */
export async function updateTicket(deps: Deps, { orgId, actor, ticketId, patch }: { orgId: string; actor: InboxActor; ticketId: string; patch: TicketPatch }): Promise<TicketView> {
  const status = patch.status === undefined ? undefined : oneOf("/status", patch.status, STATUSES);
  const priority = patch.priority === undefined ? undefined : oneOf("/priority", patch.priority, PRIORITIES);
  const team = patch.team === undefined ? undefined : optionalTeam(patch.team);
  const tags = patch.tags === undefined ? undefined : normaliseTags(patch.tags);
  const assignee = patch.assigneeId;
  if (assignee !== undefined && assignee !== null) {
    const [member] = isUuid(assignee)
      ? await deps.db.select({ id: memberships.memberId }).from(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.memberId, assignee)))
      : [];
    if (!member) fail("/assignee_id", "is not a member of this organisation");
  }
  if (!isUuid(ticketId)) throw AppError.notFound("No such ticket.");
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const [ticket] = await tx.select().from(tickets).where(and(eq(tickets.orgId, orgId), eq(tickets.id, ticketId))).for("update");
    if (!ticket) throw AppError.notFound("No such ticket.");
    const changes: { action: string; before: unknown; after: unknown }[] = [];
    const set: Partial<typeof tickets.$inferInsert> = {};
    if (status !== undefined && status !== ticket.status) {
      changes.push({ action: "status", before: ticket.status, after: status });
      set.status = status;
    }
    if (priority !== undefined && priority !== ticket.priority) {
      changes.push({ action: "priority", before: ticket.priority, after: priority });
      set.priority = priority;
    }
    if (team !== undefined && team !== ticket.team) {
      changes.push({ action: "team", before: ticket.team, after: team });
      set.team = team;
    }
    if (assignee !== undefined && assignee !== ticket.assigneeMemberId) {
      changes.push({ action: "assignee", before: ticket.assigneeMemberId, after: assignee });
      set.assigneeMemberId = assignee;
    }
    if (tags !== undefined && (tags.length !== ticket.tags.length || tags.some((t, i) => t !== ticket.tags[i]))) {
      changes.push({ action: "tags", before: ticket.tags, after: tags });
      set.tags = tags;
    }
    if (changes.length === 0) return ticketView(ticket);
    const [updated] = await tx
      .update(tickets)
      .set({ ...set, updatedAt: now })
      .where(and(eq(tickets.orgId, orgId), eq(tickets.id, ticketId)))
      .returning();
    for (const change of changes) await record(tx, now, ticket, actor, change.action, change.before, change.after);
    await activity(tx, now, ticket, actor, "ticket.updated", { fields: changes.map((c) => c.action) });
    await emitWebhookEvent(tx, { orgId, type: "ticket.updated", data: { ...ticketView(updated!), changed: changes.map((c) => c.action) }, now }); // webhooks, committed with the change
    return ticketView(updated!);
  });
}

// ---------------------------------------------------------------------------------------------
// Reads

/** A ticket by id or by its number (`42` or `#42`), within one org; null otherwise. */
export async function findTicket(deps: Deps, orgId: string, ref: string): Promise<Ticket | null> {
  let key: SQL | undefined;
  if (isUuid(ref)) key = eq(tickets.id, ref);
  else {
    const match = /^#?(\d{1,9})$/.exec(ref.trim());
    if (match) key = eq(tickets.number, Number(match[1]));
  }
  if (!key) return null;
  const [ticket] = await deps.db.select().from(tickets).where(and(eq(tickets.orgId, orgId), key));
  return ticket ?? null;
}

export interface TicketFilters {
  status?: TicketStatus[];
  /** A member id, or null for unassigned tickets. */
  assigneeId?: string | null;
  team?: string;
  customerId?: string;
  /** Matches the subject, any message body, or the number (`42`, `#42`). */
  text?: string;
  /** For a customer's own view: the text search skips internal notes, which they must never see. */
  customerVisibleOnly?: boolean;
  cursor?: string;
  limit?: number;
}

/**
 * The page cursor is opaque to clients: base64url of the last number on the page. Tickets are
 * listed newest first by number, which never changes, so a page never repeats or skips a ticket
 * however tickets are updated between requests.
 */
export function encodeCursor(number: number): string {
  return Buffer.from(`n:${number}`).toString("base64url");
}

export function decodeCursor(cursor: string, path = "/cursor"): number {
  const match = cursor.length <= 32 ? /^n:(\d{1,9})$/.exec(Buffer.from(cursor, "base64url").toString()) : null;
  if (!match) fail(path, "is not a cursor this service issued");
  return Number(match[1]);
}

export function escapeLike(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export async function listTickets(deps: Deps, orgId: string, filters: TicketFilters): Promise<{ tickets: Ticket[]; nextCursor: string | null }> {
  const limit = filters.limit ?? TICKET_LIMITS.defaultPageSize;
  if (!Number.isInteger(limit) || limit < 1 || limit > TICKET_LIMITS.pageSize) fail("/limit", `must be an integer from 1 to ${TICKET_LIMITS.pageSize}`);
  const where: (SQL | undefined)[] = [eq(tickets.orgId, orgId)];
  if (filters.status?.length) where.push(inArray(tickets.status, filters.status.map((s) => oneOf("/status", s, STATUSES))));
  if (filters.assigneeId === null) where.push(isNull(tickets.assigneeMemberId));
  else if (filters.assigneeId !== undefined) {
    if (!isUuid(filters.assigneeId)) return { tickets: [], nextCursor: null };
    where.push(eq(tickets.assigneeMemberId, filters.assigneeId));
  }
  if (filters.team !== undefined) where.push(eq(tickets.team, filters.team));
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
        sql`exists (select 1 from ${ticketMessages} where ${ticketMessages.ticketId} = ${tickets.id} and ${ticketMessages.orgId} = ${orgId} and ${ticketMessages.body} ilike ${pattern}${filters.customerVisibleOnly ? sql` and ${ticketMessages.kind} <> 'note'` : sql``})`,
        number ? eq(tickets.number, Number(number[1])) : undefined,
      ),
    );
  }
  if (filters.cursor !== undefined) where.push(lt(tickets.number, decodeCursor(filters.cursor)));
  const rows = await deps.db
    .select()
    .from(tickets)
    .where(and(...where))
    .orderBy(desc(tickets.number))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return { tickets: page, nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!.number) : null };
}

/** The thread as the team sees it (notes included), oldest first: the most recent `TICKET_LIMITS.thread` messages. */
export async function ticketThread(deps: Deps, ticket: Ticket): Promise<TicketMessage[]> {
  const rows = await deps.db
    .select()
    .from(ticketMessages)
    .where(and(eq(ticketMessages.orgId, ticket.orgId), eq(ticketMessages.ticketId, ticket.id)))
    .orderBy(desc(ticketMessages.seq))
    .limit(TICKET_LIMITS.thread);
  return rows.reverse();
}

export async function ticketHistoryOf(deps: Deps, ticket: Ticket): Promise<TicketHistoryEntry[]> {
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
export async function customerThread(deps: Deps, orgId: string, ticketId: string) {
  if (!isUuid(ticketId)) return [];
  const rows = await deps.db
    .select({ id: ticketMessages.id, kind: ticketMessages.kind, body: ticketMessages.body, authorKind: ticketMessages.authorKind, createdAt: ticketMessages.createdAt })
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

/**
 * Outreach: the team starts a conversation with a customer (by our id or the org's external id):
 * a new ticket whose first message is our outbound reply. The customer must exist in the org.
 */
export async function startOutreach(
  deps: Deps,
  params: { orgId: string; actor: InboxActor; customer: string; subject: string; message: string; priority?: TicketPriority; team?: string; source: TicketSource },
): Promise<Ticket> {
  const ref = requireText("/customer", params.customer, 256, { min: 1 }).trim();
  const [user] = await deps.db
    .select({ id: endUsers.id })
    .from(endUsers)
    .where(and(eq(endUsers.orgId, params.orgId), isUuid(ref) ? or(eq(endUsers.id, ref), eq(endUsers.externalId, ref)) : eq(endUsers.externalId, ref)))
    .limit(1);
  if (!user) throw AppError.notFound("No such customer.");
  return createTicketRow(deps, {
    orgId: params.orgId,
    actor: params.actor,
    input: { subject: params.subject, message: params.message, customerId: user.id, priority: params.priority, team: params.team, source: params.source, firstMessage: "reply" },
  });
}
