// The one way the pipeline puts a chat on a ticket: a new one (a person asked for, a routing rule,
// an escalation), charged against the ticket quota first, or the message added to the one the
// conversation already waits on. Either way the sink hears of it at once (`ticket_created`,
// `ticket_updated`), so a turn that fails after this still records its ticket.
import type { TicketPriority } from "../../../db/schema/index.ts";
import type { ChatTicketReason } from "../../../webhooks/emit.ts";
import type { Agent } from "../../service.ts";
import type { TicketRef, TurnPorts } from "../../turn-ports.ts";
import { type ChatTurn, customerActor, type Emit, type PipelineAction } from "../chat-turn.ts";
import { chatSubject } from "../subject.ts";

export type TicketPorts = Pick<TurnPorts["tickets"], "create" | "addMessage">;

/** The open or pending ticket a conversation waits on, and whether a person has it. */
export type WaitingTicket = NonNullable<Awaited<ReturnType<TurnPorts["tickets"]["waiting"]>>>;

/** A new ticket for this chat, and why. */
export interface NewChatTicket {
  /** Who opens it: the customer (a person asked for, a routing rule) or the agent that escalates. */
  by: "customer" | Pick<Agent, "id" | "name">;
  /** The team a routing rule names (also in the subject); null for none. */
  team: string | null;
  priority?: TicketPriority;
  /** Why, as the webhooks announce it (conversation.routed or conversation.escalated). */
  chatReason: ChatTicketReason;
  /** Why, as the `ticket_created` action says it. */
  reason: Extract<PipelineAction, { type: "ticket_created" }>["reason"];
}

/** Opens a ticket holding the customer's message, after charging the quota (which may throw 429 before anything is written). */
export async function openTicket(tickets: Pick<TicketPorts, "create">, turn: ChatTurn, emit: Emit, how: NewChatTicket): Promise<TicketRef> {
  await turn.chargeTicket?.();
  await turn.persisted?.(); // the ticket names the conversation
  const actor = how.by === "customer" ? customerActor(turn) : { kind: "agent" as const, agentId: how.by.id, name: how.by.name };
  const ticket = await tickets.create(turn.orgId, actor, {
    subject: chatSubject(turn.history, turn.message, how.team ? { team: how.team } : undefined),
    message: turn.message, // the chat before it shows turn by turn on the ticket page
    customerId: turn.customer.endUser?.id ?? null,
    ...(how.priority ? { priority: how.priority } : {}),
    team: how.team ?? undefined,
    source: "chat",
    conversationId: turn.conversation.id,
    verified: turn.customer.verified,
    chatReason: how.chatReason,
    language: turn.texts.language,
  });
  emit.action({ type: "ticket_created", ticket_id: ticket.id, ticket_number: ticket.number, team: how.team, reason: how.reason } satisfies PipelineAction);
  return ticket;
}

/** Adds the customer's message to the ticket the conversation waits on. */
export async function joinTicket(
  tickets: Pick<TicketPorts, "addMessage">,
  turn: ChatTurn,
  emit: Emit,
  ticket: WaitingTicket,
  reason: Extract<PipelineAction, { type: "ticket_updated" }>["reason"],
): Promise<void> {
  await tickets.addMessage(turn.orgId, customerActor(turn), ticket.id, turn.message, turn.customer.verified);
  emit.action({ type: "ticket_updated", ticket_id: ticket.id, ticket_number: ticket.number, team: ticket.team, reason } satisfies PipelineAction);
}
