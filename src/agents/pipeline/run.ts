// The chat pipeline for one customer message in one conversation. The turn (src/agents/turn.ts)
// has already found or started the conversation and stored the customer's message, and triage
// (`decide`, below) has said who answers; it stores the reply this returns (or the failure it
// throws). Every step, in order, each over the narrow part of the turn's ports it uses and
// returning its outcome as data (steps/):
//
//   1. route     the message to a person instead (a person owns the conversation; a person or a
//                team asked for: the waiting ticket joined, else one opened) and the turn ends
//                there, no model called; or on to the answer (a handoff said)
//   2. answer    knowledge → the model's answer, with the agent's tools bound to this customer
//   3. escalate  confidence → nothing, a person offered, or a ticket opened by the agent
//   4. sources   the documents the reply used
//
// Text and actions go to `sink` as they are produced (the stream writes them at once; /chat
// collects them). A model failure (LlmError) is thrown after whatever was already emitted.
import type { TurnPorts } from "../turn-ports.ts";
import { type ChatOutcome, type ChatSink, type ChatTurn, type Decided, lastAgentReply } from "./chat-turn.ts";
import { answerStep } from "./steps/answer-step.ts";
import { escalate } from "./steps/escalate.ts";
import { route } from "./steps/route.ts";
import { sourcesStep } from "./steps/sources-step.ts";
import { triage } from "./triage.ts";

export type { ChatCustomer, ChatOutcome, ChatSink, ChatTurn, Decided, PipelineAction } from "./chat-turn.ts";

const offersPerson = (turn: ChatTurn) => (lastAgentReply(turn.history)?.actions ?? []).some((a) => (a as { type?: string } | null)?.type === "offer_person");

/**
 * Triage, without side effects: who handles this message and how. The stream calls it before
 * its headers go out, so `X-Agent-Id` names the agent that really answers.
 */
export async function decide(agents: TurnPorts["agents"], turn: ChatTurn): Promise<Decided> {
  const agent = turn.agent;
  const hasHandoff = agent.routingRules.some((r) => r.action === "handoff");
  const decision = triage({
    message: turn.message,
    mode: turn.mode,
    agent,
    agents: hasHandoff ? await agents.list(turn.orgId) : [],
    personOffered: offersPerson(turn),
  });
  if (decision.kind === "handoff") {
    const target = await agents.get(turn.orgId, decision.agentId);
    if (target) return { agent: target, decision, handedOffFrom: agent };
  }
  return { agent, decision };
}

/** The steps for one message: route, or answer → escalate → sources. */
export async function runPipeline(ports: TurnPorts, turn: ChatTurn, decided: Decided, sink: ChatSink): Promise<ChatOutcome> {
  const actions: unknown[] = [];
  const out: ChatSink = {
    text: (text) => sink.text(text),
    action(action) {
      actions.push(action);
      sink.action(action);
    },
    signal: sink.signal,
  };
  const agentId = decided.agent.id;
  // 1. Route.
  const routed = await route(ports.tickets, turn, decided, out);
  if (routed.kind !== "answer") return { text: routed.text, agentId, actions, sources: [], confidence: 1, routing: routed.routing, ticketId: routed.ticketId };
  // 2. Answer.
  const answered = await answerStep(ports, turn, decided.agent, out);
  // 3. Escalate.
  const escalated = await escalate(ports.tickets, turn, decided.agent, answered, routed.waiting, out);
  // 4. Sources.
  const sources = sourcesStep(answered, out);
  const ticketId = escalated.kind === "ticket" ? escalated.ticketId : null;
  return { text: answered.result.text + escalated.note, agentId, actions, sources, confidence: escalated.confidence, routing: null, ticketId };
}
