// Built-in family: the support inbox (`inbox_*`). Reads need inbox:read, writes
// inbox:write. The writes call the same functions as the dashboard API (src/inbox/tickets.ts), so
// they land in the same tables and the same history, with the token (and its member) or the AI
// agent as the actor. Annotations are honest: a reply and an outreach reach the customer
// (destructiveHint), a note and a triage stay inside the team.
//
// Customer binding (`_meta.bound_end_user_id` / `bound_email`, or the chatting customer): a bound
// call sees and writes only that customer's tickets (any other ticket is "not found"), may start
// outreach only to them, and reads threads as the customer would — without internal notes — since
// whatever it reads may be repeated to that customer.
import { AppError } from "../errors.ts";
import { customerSummary, customersByIds, findCustomer } from "./customer-profiles.ts";
import {
  addTicketMessage,
  customerThread,
  findTicket,
  historyView,
  type InboxActor,
  listTickets,
  messageView,
  startOutreach,
  STATUSES,
  type Ticket,
  TICKET_LIMITS,
  ticketHistoryOf,
  ticketThread,
  ticketView,
  updateTicket,
} from "./tickets.ts";
import { Arg, defineTool } from "../tools/define.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "../tools/types.ts";
import { listSavedReplies, savedReplyView } from "./saved-replies.ts";
import { body, priority, status, team, ticketDetailOutput, ticketRef, ticketsOutput } from "./tool-schemas.ts";

const source = { kind: "builtin" as const, label: "Support inbox" };
/** Page size of inbox_list_tickets (the dashboard API allows more). */
const TOOL_PAGE_SIZE = 50;

/** Who acts: in a chat the AI agent; otherwise the runtime's actor (over MCP the token, for its member). */
function actorOf(ctx: ToolContext): InboxActor {
  if (ctx.channel === "chat") return { kind: "agent", agentId: ctx.agentId ?? null, name: ctx.agentName };
  return ctx.actor;
}

/**
 * Runs a tool body. A call made for a customer (a chat) must be bound to that customer: an
 * anonymous visitor's chat reaches no ticket at all (403), or an AI agent could read out anyone's.
 * AppErrors travel as they are (the runtime maps 400 to -32602, 404 to -32601); a 409 — a closed
 * ticket refusing a reply — is a result the caller can act on, not a transport error.
 */
async function run(ctx: ToolContext, work: () => Promise<unknown>): Promise<ToolResult> {
  if ((ctx.channel === "chat" || ctx.actor.kind === "customer") && !ctx.boundCustomer)
    throw AppError.forbidden("Inbox tools in a chat act only for an identified customer, and this chat has none.");
  try {
    return { value: await work() };
  } catch (error) {
    if (error instanceof AppError && error.status === 409) return { value: { error: error.code, message: error.message }, isError: true };
    throw error;
  }
}

async function visibleTicket(ctx: ToolContext, ref: string): Promise<Ticket> {
  const ticket = await findTicket(ctx.deps, ctx.orgId, ref);
  if (!ticket || (ctx.boundCustomer && ticket.endUserId !== ctx.boundCustomer.id)) throw AppError.notFound(`No ticket ${ref}.`);
  return ticket;
}

async function detail(ctx: ToolContext, ticket: Ticket) {
  const customers = await customersByIds(ctx.deps, ctx.orgId, [ticket.endUserId]);
  const customer = ticket.endUserId ? customers.get(ticket.endUserId) : undefined;
  const base = { ...ticketView(ticket), customer: customer ? customerSummary(customer) : null };
  if (ctx.boundCustomer) return { ...base, messages: await customerThread(ctx.deps, ctx.orgId, ticket.id) };
  const [messages, history] = await Promise.all([ticketThread(ctx.deps, ticket), ticketHistoryOf(ctx.deps, ticket)]);
  return { ...base, messages: messages.map((m) => messageView(m, ticket.endUserId)), history: history.map(historyView) };
}

export const inboxTools: ToolDefinition[] = [
  defineTool({
    name: "inbox_list_saved_replies",
    description:
      "List the team's saved replies (name and text), by name. Their text may hold {{customer.name}}, {{ticket.number}} and {{agent.name}}, " +
      'each perhaps with a fallback for a missing value ({{customer.name | "there"}}): fill these in before sending one as a reply.',
    input: Arg.object({}, { additionalProperties: false }),
    title: "List saved replies",
    readOnly: true,
    scope: "inbox:read",
    source,
    execute: (ctx) => run(ctx, async () => ({ saved_replies: (await listSavedReplies(ctx.deps, ctx.orgId)).map(savedReplyView) })),
  }),
  defineTool({
    name: "inbox_list_tickets",
    description:
      "List support tickets, newest first, with optional filters (status, assignee, " +
      "team, customer, free text). Pass next_cursor back as cursor for the next page.",
    input: Arg.object(
      {
        status: Arg.optional(Arg.array(status, { maxItems: STATUSES.length, description: "Only these statuses." })),
        assignee: Arg.optional(Arg.string({ minLength: 1, maxLength: 36, description: "A member id, or `none` for unassigned tickets." })),
        team: Arg.optional(team),
        customer: Arg.optional(Arg.string({ minLength: 1, maxLength: 256, description: "The customer's id or external id." })),
        text: Arg.optional(Arg.string({ maxLength: TICKET_LIMITS.text, description: "Matches the subject, any message, or the number." })),
        cursor: Arg.optional(Arg.string({ minLength: 1, maxLength: 64 })),
        limit: Arg.optional(Arg.integer({ minimum: 1, maximum: TOOL_PAGE_SIZE })),
      },
      { additionalProperties: false },
    ),
    title: "List tickets",
    readOnly: true,
    outputSchema: ticketsOutput,
    scope: "inbox:read",
    source,
    execute: (ctx, args) =>
      run(ctx, async () => {
        let customerId: string | undefined;
        if (typeof args.customer === "string") {
          const customer = await findCustomer(ctx.deps, ctx.orgId, args.customer);
          if (!customer || (ctx.boundCustomer && ctx.boundCustomer.id !== customer.id)) return { tickets: [] };
          customerId = customer.id;
        }
        if (ctx.boundCustomer) customerId = ctx.boundCustomer.id;
        const page = await listTickets(ctx.deps, ctx.orgId, {
          status: args.status,
          assigneeId: args.assignee === "none" ? null : args.assignee,
          team: args.team,
          customerId,
          text: args.text,
          // Bound to a customer, a search must not reveal what internal notes say.
          customerVisibleOnly: ctx.boundCustomer !== undefined,
          cursor: args.cursor,
          limit: args.limit ?? 20,
        });
        const customers = await customersByIds(
          ctx.deps,
          ctx.orgId,
          page.tickets.map((t) => t.endUserId),
        );
        return {
          tickets: page.tickets.map((t) => {
            const customer = t.endUserId ? customers.get(t.endUserId) : undefined;
            return { ...ticketView(t), customer: customer ? customerSummary(customer) : null };
          }),
          ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
        };
      }),
  }),
  defineTool({
    name: "inbox_get_ticket",
    description: "Get one ticket with its customer, its thread (customer messages, replies, internal notes) and its history.",
    input: Arg.object({ ticket: ticketRef }, { additionalProperties: false }),
    title: "Get a ticket",
    readOnly: true,
    outputSchema: ticketDetailOutput,
    scope: "inbox:read",
    source,
    execute: (ctx, args) => run(ctx, async () => detail(ctx, await visibleTicket(ctx, args.ticket))),
  }),
  defineTool({
    name: "inbox_reply",
    description: "Reply to the customer on a ticket. The customer sees this message.",
    input: Arg.object({ ticket: ticketRef, body }, { additionalProperties: false }),
    title: "Reply to the customer",
    destructive: true,
    openWorld: true,
    scope: "inbox:write",
    source,
    execute: (ctx, args) =>
      run(ctx, async () => {
        const ticket = await visibleTicket(ctx, args.ticket);
        return addTicketMessage(ctx.deps, { orgId: ctx.orgId, actor: actorOf(ctx), ticketId: ticket.id, kind: "reply", body: args.body });
      }),
  }),
  defineTool({
    name: "inbox_add_note",
    description: "Add an internal note to a ticket. Notes are for the team only: the customer never sees them.",
    input: Arg.object({ ticket: ticketRef, body }, { additionalProperties: false }),
    title: "Add an internal note",
    scope: "inbox:write",
    source,
    execute: (ctx, args) =>
      run(ctx, async () => {
        const ticket = await visibleTicket(ctx, args.ticket);
        return addTicketMessage(ctx.deps, { orgId: ctx.orgId, actor: actorOf(ctx), ticketId: ticket.id, kind: "note", body: args.body });
      }),
  }),
  defineTool({
    name: "inbox_triage",
    description:
      "Change a ticket's status, priority, team, assignee and tags in one call (give at least one). " +
      "Tags replace the current ones; null clears team or assignee.",
    input: Arg.object(
      {
        ticket: ticketRef,
        status: Arg.optional(status),
        priority: Arg.optional(priority),
        team: Arg.optional(Arg.nullable(team)),
        assignee: Arg.optional(Arg.nullable(Arg.string({ format: "uuid" }), { description: "A member id, or null to unassign." })),
        tags: Arg.optional(Arg.array(Arg.string({ minLength: 1, maxLength: TICKET_LIMITS.tag }), { maxItems: TICKET_LIMITS.tags })),
      },
      { additionalProperties: false },
    ),
    title: "Triage a ticket",
    idempotent: true,
    scope: "inbox:write",
    source,
    execute: (ctx, args) =>
      run(ctx, async () => {
        const fields = [args.status, args.priority, args.team, args.assignee, args.tags].filter((f) => f !== undefined);
        if (fields.length === 0) throw AppError.badRequest("Invalid arguments for inbox_triage: give at least one of status, priority, team, assignee, tags.");
        const ticket = await visibleTicket(ctx, args.ticket);
        return updateTicket(ctx.deps, {
          orgId: ctx.orgId,
          actor: actorOf(ctx),
          ticketId: ticket.id,
          patch: {
            status: args.status,
            priority: args.priority,
            team: args.team,
            assigneeId: args.assignee,
            tags: args.tags,
          },
        });
      }),
  }),
  defineTool({
    name: "inbox_outreach",
    description:
      "Start a conversation with a customer (by our id or the org's external id): " +
      "opens a new ticket whose first message is yours, sent to the customer. The ticket waits on the customer (status pending).",
    input: Arg.object(
      {
        customer: Arg.string({ minLength: 1, maxLength: 256 }),
        subject: Arg.string({ minLength: 1, maxLength: TICKET_LIMITS.subject }),
        message: body,
        priority: Arg.optional(priority),
        team: Arg.optional(team),
      },
      { additionalProperties: false },
    ),
    title: "Send outreach",
    destructive: true,
    openWorld: true,
    scope: "inbox:write",
    source,
    execute: (ctx, args) =>
      run(ctx, async () => {
        const customer = await findCustomer(ctx.deps, ctx.orgId, args.customer);
        if (!customer || (ctx.boundCustomer && ctx.boundCustomer.id !== customer.id)) throw AppError.notFound(`No customer ${args.customer}.`);
        const ticket = await startOutreach(ctx.deps, {
          orgId: ctx.orgId,
          actor: actorOf(ctx),
          customer: customer.id,
          subject: args.subject,
          message: args.message,
          priority: args.priority,
          team: args.team,
          source: ctx.channel === "chat" ? "chat" : "mcp",
        });
        return detail(ctx, ticket);
      }),
  }),
];
