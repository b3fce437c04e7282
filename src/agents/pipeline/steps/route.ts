// Step 1, route: whether this message goes to a person rather than to the model (no model call
// then). A person owns the conversation while its ticket is open or pending and a person has it
// (the customer asked for one, or a member acted on it): the message is theirs, and the AI stays
// quiet unless the org chose otherwise. A resolved or closed ticket hands it back. A ticket the AI
// opened on its own only waits: the AI goes on answering (step 3 opens or offers nothing more meanwhile).
// Triage sending the message to a person or a team joins the waiting ticket, else opens one.
import type { MessageRouting } from "../../../db/schema/index.ts";
import type { TurnPorts } from "../../turn-ports.ts";
import type { ChatTurn, Decided, Emit, PipelineAction } from "../chat-turn.ts";
import { joinTicket, openTicket, type WaitingTicket } from "./ticket.ts";

export type RoutePorts = Pick<TurnPorts["tickets"], "waiting" | "addMessage" | "create" | "acknowledgement">;

/** The message went to a person (the turn ends here), or on to the answer with the ticket it waits on, if any. */
export type Routed =
  | { kind: "person_owns" | "joined" | "opened"; text: string; routing: MessageRouting; ticketId: string }
  | { kind: "answer"; waiting: WaitingTicket | null };

export async function route(tickets: RoutePorts, turn: ChatTurn, decided: Decided, emit: Emit): Promise<Routed> {
  const { decision, agent, handedOffFrom } = decided;
  const waiting = turn.conversation.ticketId ? await tickets.waiting(turn.orgId, turn.conversation.ticketId) : null;
  if (decision.kind !== "route") {
    if (waiting?.personHas && !turn.aiAnswersDuringHandoff) {
      await joinTicket(tickets, turn, emit, waiting, "person_owns");
      return { kind: "person_owns", text: "", routing: { action: "person_owns", ticket_id: waiting.id }, ticketId: waiting.id };
    }
    if (handedOffFrom && decision.kind === "handoff")
      emit.action({ type: "handoff", from_agent_id: handedOffFrom.id, to_agent_id: agent.id, skill: decision.skill } satisfies PipelineAction);
    return { kind: "answer", waiting };
  }
  const reason = decision.action === "live_help" ? "live_help" : "routing_rule";
  const routing = (ticketId: string, team: string | null): MessageRouting => ({ action: decision.action, ticket_id: ticketId, ...(team ? { team } : {}) });
  // A conversation already waiting on a person keeps its ticket: the message joins it, so asking
  // again (or a script asking a thousand times) never opens a ticket per message.
  if (waiting) {
    await joinTicket(tickets, turn, emit, waiting, reason);
    const text = turn.texts.t("agent.waiting_added", { number: String(waiting.number) });
    emit.text(text);
    return { kind: "joined", text, routing: routing(waiting.id, waiting.team), ticketId: waiting.id };
  }
  const { team } = decision;
  const ticket = await openTicket(tickets, turn, emit, { by: "customer", team, chatReason: reason, reason });
  const text =
    decision.action === "live_help"
      ? await tickets.acknowledgement(turn.orgId, ticket.number, turn.texts)
      : turn.texts.t("agent.routed_team", { team: team ?? "", number: String(ticket.number) });
  emit.text(text);
  return { kind: "opened", text, routing: routing(ticket.id, team), ticketId: ticket.id };
}
