// Step 3, escalate: how sure the answer is (../confidence.ts), and what that asks for — nothing, a
// person offered (an `offer_person` action, and a line saying so unless the reply already does),
// or a ticket opened by the agent (high priority for a frustrated customer). While the
// conversation waits on a ticket nothing more is offered or opened.
import { ownOrCatalogue } from "../../../i18n/catalogue.ts";
import type { Agent } from "../../service.ts";
import type { ChatTurn, Emit, PipelineAction } from "../chat-turn.ts";
import { lastAgentReply } from "../chat-turn.ts";
import { CONFIDENCE, confidenceOf, escalationFor, frustrationIn } from "../confidence.ts";
import { knowledgeCoverage } from "../knowledge.ts";
import type { Answered } from "./answer-step.ts";
import { openTicket, type TicketPorts, type WaitingTicket } from "./ticket.ts";

/** The answer's confidence, and the line added to the reply (empty for none). */
export type Escalated =
  | { kind: "none"; confidence: number; note: "" }
  | { kind: "offer"; confidence: number; note: string }
  | { kind: "ticket"; confidence: number; note: string; ticketId: string };

export async function escalate(
  tickets: Pick<TicketPorts, "create">,
  turn: ChatTurn,
  agent: Agent,
  { passages, result }: Answered,
  waiting: WaitingTicket | null,
  emit: Emit,
): Promise<Escalated> {
  const frustrated = frustrationIn(turn.behavior, turn.message);
  const confidence = confidenceOf({
    coverage: knowledgeCoverage(passages),
    question: turn.message,
    toolCalls: result.toolCalls,
    toolFailures: result.toolFailures,
    frustrated,
    answered: result.answered,
  });
  const previous = lastAgentReply(turn.history);
  const previousLow = previous !== undefined && previous.routing === null && previous.confidence !== null && previous.confidence < CONFIDENCE.offerBelow;
  const escalation = waiting ? "none" : escalationFor(confidence, frustrated, previousLow);
  if (escalation === "ticket") {
    const ticket = await openTicket(tickets, turn, emit, {
      by: agent,
      team: null,
      priority: frustrated ? "high" : "normal",
      chatReason: frustrated ? "frustration" : "low_confidence",
      reason: "escalation",
    });
    const note = `\n\n${turn.texts.t("agent.ticket_opened", { number: String(ticket.number) })}`;
    emit.text(note);
    return { kind: "ticket", confidence, note, ticketId: ticket.id };
  }
  if (escalation === "offer") {
    const label = ownOrCatalogue(agent.liveHelpLabel, "widget.live_help", turn.texts.language, turn.texts.overrides);
    emit.action({ type: "offer_person", label } satisfies PipelineAction);
    // A no-answer reply already offers a person (the catalogue's `agent.no_answer*`): no second offer.
    const note = result.answered ? `\n\n${turn.texts.t("agent.offer_person")}` : "";
    if (note) emit.text(note);
    return { kind: "offer", confidence, note };
  }
  return { kind: "none", confidence, note: "" };
}
