// Ticket writes: creation from every source (widget, backend API, chat, MCP), the thread's
// messages, triage, and the history of every change. The only writer of the tickets,
// ticket_messages, ticket_history and ticket_counters tables; the SDK, the chat, the dashboard API
// and the inbox_* tools all call these functions, so every write lands in the same tables and history.
import { queueReplyEmail } from "./reply-mail.ts";
import { queueMemberNotices } from "./member-notices.ts";
import { queueResolutionEmail } from "./csat-mail.ts";
import { and, eq, sql } from "drizzle-orm";
import { emitTicketCreated } from "../webhooks/emit.ts";
import { emitWebhookEvent } from "../webhooks/events.ts";
import { ticketCounters, ticketMessages, tickets } from "../db/schema/index.ts";
import type { TicketMessageKind, TicketPriority, TicketSource } from "../db/schema/inbox.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import { endUserById } from "../customers/lookups.ts";
import { findEndUser } from "../customers/records.ts";
import { checkCustomFields, fail, normaliseTags, oneOf, optionalTeam, requireText } from "./ticket-checks.ts";
import {
  type AddMessageInput,
  type CreateTicketInput,
  type EmailSender,
  type InboxActor,
  PRIORITIES,
  SOURCES,
  STATUSES,
  type Ticket,
  TICKET_LIMITS,
  type TicketPatch,
  type Writer,
} from "./ticket-model.ts";
import { eventKey, orgKey, publishChange, publishMessage, publishStatus } from "./ticket-events.ts";
import { messageView, type TicketMessageView, ticketView, type TicketView } from "./ticket-views.ts";
import { messageAuthor, activity, record } from "./ticket-actors.ts";
import { memberRoles } from "../tenancy/memberships.ts";

/** Creates a ticket with its first message and a `created` history entry, in one transaction. */
export async function createTicket(deps: Writer, params: { orgId: string; actor: InboxActor; input: CreateTicketInput }): Promise<TicketView> {
  return ticketView(await createTicketRow(deps, params));
}

export async function createTicketRow(deps: Writer, { orgId, actor, input }: { orgId: string; actor: InboxActor; input: CreateTicketInput }): Promise<Ticket> {
  const subject = requireText("/subject", input.subject, TICKET_LIMITS.subject, { min: 1 }).trim();
  const body = requireText("/message", input.message, TICKET_LIMITS.body, { min: 1 });
  const priority = input.priority === undefined ? "normal" : oneOf("/priority", input.priority, PRIORITIES);
  const source = oneOf("/source", input.source, SOURCES);
  const team = optionalTeam(input.team);
  const customFields = input.customFields === undefined ? {} : checkCustomFields(input.customFields);
  if (input.conversationId !== undefined && !isUuid(input.conversationId)) fail("/conversation_id", "must be a UUID");
  const customerId = input.customerId ?? null;
  if (customerId !== null) {
    const user = isUuid(customerId) ? await endUserById(deps.db, orgId, customerId) : null;
    if (!user) throw AppError.notFound("No such customer.");
  }
  const kind: TicketMessageKind = input.firstMessage === "reply" ? "reply" : "customer";
  const verified = input.verified === true;
  const now = deps.now();

  const created = await deps.db.transaction(async (tx) => {
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
        language: input.language ?? null,
        handoffReason: input.chatReason ?? null,
        verified,
        customFields,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    const [first] = await tx
      .insert(ticketMessages)
      .values({
        orgId,
        ticketId: ticket!.id,
        kind,
        body,
        ...(kind === "customer" ? { authorKind: "customer" as const } : messageAuthor(actor)),
        verified: kind === "customer" ? verified : false,
        ...(kind === "customer" && input.email ? { emailFrom: input.email.from, fromCustomer: input.email.fromCustomer } : {}),
        createdAt: now,
      })
      .returning();
    if (kind === "reply")
      await queueReplyEmail(tx, { orgId, ticket: ticket!, messageId: first!.id, outreach: true, now }); // outreach reaches the customer by email
    // members hear of it (README "Email channel")
    else await queueMemberNotices(tx, { orgId, ticketId: ticket!.id, assignee: null, messageId: first!.id, now });
    await publishStatus(tx, ticket!, ticket!.status, now);
    await publishMessage(tx, ticket!, first!, actor, now);
    await record(tx, now, ticket!, actor, "created", null, { subject, status: ticket!.status, priority, team, source, customer_id: customerId });
    await activity(tx, now, ticket!, actor, "ticket.created", { source });
    await emitTicketCreated(tx, { orgId, ticket: ticketView(ticket!), now, chatReason: input.chatReason }); // webhooks, committed with the ticket
    return ticket!;
  });
  deps.live.wake(eventKey(created));
  deps.live.wake(orgKey(orgId));
  return created;
}

/**
 * Adds one message to a ticket's thread. A customer message on a `pending` or `resolved` ticket
 * reopens it (`open`, recorded in the history). A closed ticket takes notes only: customer messages
 * and replies are refused with 409 `ticket_closed` (the widget opens a new ticket instead).
 */
export async function addTicketMessage(
  deps: Writer,
  { orgId, actor, ticketId, kind, body, verified, email, withMessage }: AddMessageInput,
): Promise<TicketMessageView> {
  oneOf("/kind", kind, ["customer", "reply", "note"] as const);
  const text = requireText("/body", body, TICKET_LIMITS.body, { min: 1 });
  if (!isUuid(ticketId)) throw AppError.notFound("No such ticket.");
  const now = deps.now();
  let key: string | null = null;
  const added = await deps.db.transaction(async (tx) => {
    const [ticket] = await tx
      .select()
      .from(tickets)
      .where(and(eq(tickets.orgId, orgId), eq(tickets.id, ticketId)))
      .for("update");
    if (!ticket) throw AppError.notFound("No such ticket.");
    if (kind !== "note" && ticket.status === "closed")
      throw new AppError(409, "ticket_closed", "This ticket is closed; reopen it first (or open a new ticket).");
    const [message] = await tx
      .insert(ticketMessages)
      .values({
        orgId,
        ticketId,
        kind,
        body: text,
        ...(kind === "customer" ? { authorKind: "customer" as const } : messageAuthor(actor)),
        verified: kind === "customer" && verified === true,
        ...(kind === "customer" && email ? { emailFrom: email.from, fromCustomer: email.fromCustomer } : {}),
        createdAt: now,
      })
      .returning();
    if (withMessage) await withMessage(tx, message!.id);
    // A person's reply is emailed to the customer (README "Email channel"), queued with the reply.
    if (kind === "reply" && (actor.kind === "member" || actor.kind === "token"))
      await queueReplyEmail(tx, { orgId, ticket, messageId: message!.id, outreach: false, now });
    if (kind === "customer") await queueMemberNotices(tx, { orgId, ticketId, assignee: ticket.assigneeMemberId, messageId: message!.id, now });
    const action = kind === "customer" ? "customer_message" : kind;
    await record(tx, now, ticket, actor, action, null, { message_id: message!.id });
    await activity(tx, now, ticket, actor, `ticket.${action}_added`, { message_id: message!.id });
    let status = ticket.status;
    if (kind === "customer" && (status === "pending" || status === "resolved")) {
      status = "open";
      await record(tx, now, ticket, actor, "status", ticket.status, status);
    }
    await tx
      .update(tickets)
      .set({ status, updatedAt: now })
      .where(and(eq(tickets.orgId, orgId), eq(tickets.id, ticketId)));
    await publishMessage(tx, ticket, message!, actor, now);
    if (status !== ticket.status) await publishStatus(tx, ticket, status, now);
    if (kind !== "note") key = eventKey(ticket);
    if (kind !== "note")
      await emitWebhookEvent(tx, {
        orgId,
        type: "ticket.message.created",
        data: { ticket_id: ticketId, ticket_number: ticket.number, status, message: messageView(message!, ticket.endUserId), updated_at: now.toISOString() },
        now,
      }); // never internal notes
    return messageView(message!, ticket.endUserId);
  });
  if (key) deps.live.wake(key);
  deps.live.wake(orgKey(orgId));
  return added;
}

/** Changes subject, status, priority, team, assignee and tags at once; one history entry per field that changed. */
export async function updateTicket(
  deps: Writer,
  { orgId, actor, ticketId, patch }: { orgId: string; actor: InboxActor; ticketId: string; patch: TicketPatch },
): Promise<TicketView> {
  const subject = patch.subject === undefined ? undefined : requireText("/subject", patch.subject, TICKET_LIMITS.subject, { min: 1 }).trim();
  if (subject === "") fail("/subject", "must not be blank");
  const status = patch.status === undefined ? undefined : oneOf("/status", patch.status, STATUSES);
  const priority = patch.priority === undefined ? undefined : oneOf("/priority", patch.priority, PRIORITIES);
  const team = patch.team === undefined ? undefined : optionalTeam(patch.team);
  const tags = patch.tags === undefined ? undefined : normaliseTags(patch.tags);
  const assignee = patch.assigneeId;
  if (assignee !== undefined && assignee !== null) {
    const roles = isUuid(assignee) ? await memberRoles(deps.db, orgId, assignee) : null;
    if (!roles) fail("/assignee_id", "is not a member of this organisation");
  }
  if (!isUuid(ticketId)) throw AppError.notFound("No such ticket.");
  const now = deps.now();
  let key: string | null = null;
  const view = await deps.db.transaction(async (tx) => {
    const [ticket] = await tx
      .select()
      .from(tickets)
      .where(and(eq(tickets.orgId, orgId), eq(tickets.id, ticketId)))
      .for("update");
    if (!ticket) throw AppError.notFound("No such ticket.");
    const changes: TicketChange[] = [];
    const set: Partial<typeof tickets.$inferInsert> = {};
    const change = changeField(ticket, changes, set);
    change("subject", "subject", subject);
    change("status", "status", status);
    change("priority", "priority", priority);
    change("team", "team", team);
    change("assignee", "assigneeMemberId", assignee);
    change("tags", "tags", tags, (a, b) => a.length === b.length && a.every((t, i) => t === b[i]));
    if (changes.length === 0) return ticketView(ticket);
    const [updated] = await tx
      .update(tickets)
      .set({ ...set, updatedAt: now })
      .where(and(eq(tickets.orgId, orgId), eq(tickets.id, ticketId)))
      .returning();
    for (const change of changes) await record(tx, now, ticket, actor, change.action, change.before, change.after);
    if (set.status !== undefined) {
      if (set.status === "resolved") await queueResolutionEmail(tx, { orgId, ticket, now }); // the rating request (README "CSAT")
      await publishStatus(tx, ticket, set.status, now);
    } else await publishChange(tx, ticket, ticket.status, now);
    key = eventKey(ticket);
    await activity(tx, now, ticket, actor, "ticket.updated", { fields: changes.map((c) => c.action) });
    // webhooks, committed with the change
    await emitWebhookEvent(tx, { orgId, type: "ticket.updated", data: { ...ticketView(updated!), changed: changes.map((c) => c.action) }, now });
    return ticketView(updated!);
  });
  if (key) {
    deps.live.wake(key);
    deps.live.wake(orgKey(orgId));
  }
  return view;
}

interface TicketChange {
  action: string;
  before: unknown;
  after: unknown;
}

/**
 * The one rule of updateTicket: a field given (not undefined) whose value differs from the row's is
 * recorded as a change (its history action, before, after) and set on the update.
 */
function changeField(ticket: Ticket, changes: TicketChange[], set: Partial<typeof tickets.$inferInsert>) {
  return <K extends keyof Ticket & keyof typeof tickets.$inferInsert>(
    action: string,
    field: K,
    next: Ticket[K] | undefined,
    same: (a: Ticket[K], b: Ticket[K]) => boolean = (a, b) => a === b,
  ): void => {
    if (next === undefined || same(next, ticket[field])) return;
    changes.push({ action, before: ticket[field], after: next });
    (set as Partial<Ticket>)[field] = next;
  };
}

/**
 * Outreach: the team starts a conversation with a customer (by our id or the org's external id):
 * a new ticket whose first message is our outbound reply. The customer must exist in the org.
 */
export async function startOutreach(
  deps: Writer,
  params: {
    orgId: string;
    actor: InboxActor;
    customer: string;
    subject: string;
    message: string;
    priority?: TicketPriority;
    team?: string;
    source: TicketSource;
  },
): Promise<Ticket> {
  const ref = requireText("/customer", params.customer, 256, { min: 1 }).trim();
  const user = await findEndUser(deps, params.orgId, ref);
  if (!user) throw AppError.notFound("No such customer.");
  return createTicketRow(deps, {
    orgId: params.orgId,
    actor: params.actor,
    input: {
      subject: params.subject,
      message: params.message,
      customerId: user.id,
      priority: params.priority,
      team: params.team,
      source: params.source,
      firstMessage: "reply",
    },
  });
}
