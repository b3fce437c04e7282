// The chat pipeline: triage → knowledge → answer → confidence and
// escalation, for one customer message in one conversation. The turn (src/agents/turn.ts) has
// already found or started the session and stored the customer's message; it stores the reply
// this returns (or the failure it throws).
//
// Text and actions go to `sink` as they are produced (the stream writes them at once; /chat
// collects them). A model failure (LlmError) is thrown after whatever was already emitted.
import type { Conversation } from "../../conversations/sessions.ts";
import type { ConversationMessage } from "../../conversations/transcript.ts";
import type { MessageRouting, MessageSource } from "../../db/schema/index.ts";
import type { InboxActor } from "../../inbox/ticket-model.ts";
import type { CallScope } from "../../ports/tools.ts";
import { boundCustomerOf, type EndUser } from "../../customers/records.ts";
import { forMode } from "../voice-text.ts";
import type { Agent } from "../service.ts";
import type { TurnPorts } from "../turn-ports.ts";
import { answer } from "./answer.ts";
import { chatSubject } from "./subject.ts";
import { CONFIDENCE, confidenceOf, escalationFor, frustrationIn } from "./confidence.ts";
import { knowledgeCoverage, type ScoredPassage } from "./knowledge.ts";
import { replySources } from "./sources.ts";
import type { Texts } from "../../texts/store.ts";
import { ownOrCatalogue } from "../../i18n/catalogue.ts";
import { conversationMessages, systemText } from "./prompt.ts";
import { triage, type TriageDecision } from "./triage.ts";

export interface ChatCustomer {
  endUser: EndUser | null;
  verified: boolean;
  claims: Record<string, unknown>;
  /** The custom_fields this request sent: all the model hears of a customer who is not verified. */
  reported?: Record<string, unknown>;
}

export interface ChatTurn {
  orgId: string;
  agent: Agent;
  conversation: Conversation;
  customer: ChatCustomer;
  message: string;
  /** The customer's language and the org's sentences in it (README "Languages"): every sentence of the turn. */
  texts: Texts;
  images: string[];
  mode: string;
  behavior?: string;
  /** The conversation before this message, oldest first (the server's transcript). */
  history: ConversationMessage[];
  /** Retrieval for the message and the customer's earlier turns, already under way (the turn starts it while the customer's message is being stored). */
  knowledge: Promise<ScoredPassage[]>;
  /** Charges the SDK's ticket quota before a new ticket is opened (429 past it): chat opens tickets too. */
  chargeTicket?: () => Promise<void>;
  /**
   * The org's choice (README "Live conversation"): whether the AI keeps answering while a person
   * owns the conversation. Default false: the customer's messages go to the person's ticket only.
   */
  aiAnswersDuringHandoff?: boolean;
}

export interface ChatSink {
  text(text: string): void;
  action(action: unknown): void;
  readonly signal: AbortSignal;
}

export interface ChatOutcome {
  text: string;
  agentId: string;
  actions: unknown[];
  sources: MessageSource[];
  confidence: number;
  routing: MessageRouting | null;
  /** A ticket this answer created (routing or escalation). */
  ticketId: string | null;
}

/** docs/interface.md 2.6 `actions` items written by the pipeline besides tool calls (docs/decisions.md "Chat actions"). */
export type PipelineAction =
  | { type: "ticket_created"; ticket_id: string; ticket_number: number; team: string | null; reason: "live_help" | "routing_rule" | "escalation" }
  | { type: "ticket_updated"; ticket_id: string; ticket_number: number; team: string | null; reason: "live_help" | "routing_rule" | "person_owns" }
  | { type: "handoff"; from_agent_id: string; to_agent_id: string; skill: string }
  | { type: "offer_person"; label: string }
  /** The documents the answer used (also the docs/interface.md 2.6 `sources` field), so a stream can show them. */
  | { type: "sources"; sources: MessageSource[] };

function lastAgentReply(history: readonly ConversationMessage[]) {
  for (let i = history.length - 1; i >= 0; i--) if (history[i]!.role === "agent") return history[i]!;
  return undefined;
}

const offersPerson = (m: ConversationMessage | undefined) => (m?.actions ?? []).some((a) => (a as { type?: string } | null)?.type === "offer_person");

/** Triage's verdict for a turn, and the agent that handles it (after a handoff, the target). */
export interface Decided {
  agent: Agent;
  decision: TriageDecision;
  /** Set when triage handed the conversation over: the agent it came from. */
  handedOffFrom?: Agent;
}

/**
 * Stage 1, without side effects: who handles this message and how. The stream calls it before
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
    personOffered: offersPerson(lastAgentReply(turn.history)),
  });
  if (decision.kind === "handoff") {
    const target = await agents.get(turn.orgId, decision.agentId);
    if (target) return { agent: target, decision, handedOffFrom: agent };
  }
  return { agent, decision };
}

/** The whole pipeline for one message: triage, then either routing or knowledge, answer and confidence. */
export async function runPipeline(ports: TurnPorts, turn: ChatTurn, decided: Decided, sink: ChatSink): Promise<ChatOutcome> {
  const actions: unknown[] = [];
  const emit = {
    text: (text: string) => sink.text(text),
    action(action: unknown) {
      actions.push(action);
      sink.action(action);
    },
  };
  const { orgId, conversation, customer } = turn;
  const endUserId = customer.endUser?.id ?? null;
  const { agent, decision, handedOffFrom } = decided;
  const previous = lastAgentReply(turn.history);

  // 1. Triage — no model call when it routes.
  const customerActor: InboxActor = { kind: "customer", endUserId, sessionId: conversation.id };
  // A person owns the conversation while its ticket is open or pending and a person has it (the
  // customer asked for one, or a member acted on it): the message is theirs, and the AI stays quiet
  // unless the org chose otherwise. A resolved or closed ticket hands it back. A ticket the AI opened
  // on its own only waits: the AI goes on answering, and opens or offers nothing more meanwhile.
  const { tickets } = ports;
  const waiting = conversation.ticketId ? await tickets.waiting(orgId, conversation.ticketId) : null;
  if (decision.kind !== "route" && !turn.aiAnswersDuringHandoff && waiting?.personHas) {
    const owned = waiting;
    {
      await tickets.addMessage(orgId, customerActor, owned.id, turn.message, customer.verified);
      emit.action({
        type: "ticket_updated",
        ticket_id: owned.id,
        ticket_number: owned.number,
        team: owned.team,
        reason: "person_owns",
      } satisfies PipelineAction);
      return { text: "", agentId: agent.id, actions, sources: [], confidence: 1, routing: { action: "person_owns", ticket_id: owned.id }, ticketId: owned.id };
    }
  }
  if (decision.kind === "route") {
    const team = decision.team;
    const reason = decision.action === "live_help" ? "live_help" : "routing_rule";
    // A conversation already waiting on a person keeps its ticket: the message joins it, so asking
    // again (or a script asking a thousand times) never opens a ticket per message.
    if (waiting) {
      await tickets.addMessage(orgId, customerActor, waiting.id, turn.message, customer.verified);
      emit.action({ type: "ticket_updated", ticket_id: waiting.id, ticket_number: waiting.number, team: waiting.team, reason } satisfies PipelineAction);
      const text = turn.texts.t("agent.waiting_added", { number: String(waiting.number) });
      emit.text(text);
      const routing: MessageRouting = { action: decision.action, ticket_id: waiting.id, ...(waiting.team ? { team: waiting.team } : {}) };
      return { text, agentId: agent.id, actions, sources: [], confidence: 1, routing, ticketId: waiting.id };
    }
    await turn.chargeTicket?.();
    const ticket = await tickets.create(orgId, customerActor, {
      subject: chatSubject(turn.history, turn.message, team ? { team } : undefined),
      message: turn.message,
      customerId: endUserId,
      team: team ?? undefined,
      source: "chat",
      conversationId: conversation.id,
      verified: customer.verified,
      chatReason: decision.action === "live_help" ? "live_help" : "routing_rule",
      language: turn.texts.language,
    });
    emit.action({
      type: "ticket_created",
      ticket_id: ticket.id,
      ticket_number: ticket.number,
      team,
      reason: decision.action === "live_help" ? "live_help" : "routing_rule",
    } satisfies PipelineAction);
    const text =
      decision.action === "live_help"
        ? await tickets.acknowledgement(orgId, ticket.number, turn.texts)
        : turn.texts.t("agent.routed_team", { team: team ?? "", number: String(ticket.number) });
    emit.text(text);
    const routing: MessageRouting = { action: decision.action, ticket_id: ticket.id, ...(team ? { team } : {}) };
    return { text, agentId: agent.id, actions, sources: [], confidence: 1, routing, ticketId: ticket.id };
  }
  if (handedOffFrom && decision.kind === "handoff")
    emit.action({ type: "handoff", from_agent_id: handedOffFrom.id, to_agent_id: agent.id, skill: decision.skill } satisfies PipelineAction);

  // 2. Knowledge.
  const passages = await turn.knowledge;

  // 3. Answer, with the agent's tools bound to this customer.
  const scope: CallScope = {
    actor: { kind: "customer", endUserId, sessionId: conversation.id },
    orgId,
    agentId: agent.id,
    customer: customer.endUser ? boundCustomerOf(customer.endUser) : undefined,
    channel: "chat",
  };
  const [model, listed] = await Promise.all([ports.model(orgId, agent), ports.tools.list(scope)]);
  // Voice and video: the reply is written for the ear (src/agents/voice-text.ts).
  const provider = forMode(turn.mode, model, turn.message);
  const endUser = customer.endUser;
  const result = await answer({
    provider,
    system: systemText({
      instructions: agent.instructions,
      agentName: agent.name,
      // What is stored under a merely claimed id was written by whoever claimed it before: the
      // model hears it only for a verified customer, otherwise only what this request says.
      customer: endUser
        ? customer.verified
          ? { name: endUser.name || null, email: endUser.email, verified: true, claims: customer.claims, traits: endUser.traits }
          : { name: null, email: null, verified: false, claims: {}, traits: customer.reported ?? {} }
        : null,
      context: conversation.context,
      behavior: turn.behavior,
      language: turn.texts.language,
    }),
    messages: conversationMessages(turn.history, { text: turn.message, images: turn.images.length }),
    passages,
    // The runtime lists only what a customer's chat may call (src/tools/registry.ts `denial`).
    tools: listed,
    callTool: (name, args) => ports.tools.call(scope, name, args),
    signal: sink.signal,
    language: turn.texts.language,
    say: turn.texts.t,
    emit,
  });

  // 4. Confidence and escalation.
  const frustrated = frustrationIn(turn.behavior, turn.message);
  const confidence = confidenceOf({
    coverage: knowledgeCoverage(passages),
    question: turn.message,
    toolCalls: result.toolCalls,
    toolFailures: result.toolFailures,
    frustrated,
    answered: result.answered,
  });
  const previousLow = previous !== undefined && previous.routing === null && previous.confidence !== null && previous.confidence < CONFIDENCE.offerBelow;
  const escalation = waiting ? "none" : escalationFor(confidence, frustrated, previousLow);
  let text = result.text;
  let ticketId: string | null = null;
  if (escalation === "ticket") {
    await turn.chargeTicket?.();
    const ticket = await tickets.create(
      orgId,
      { kind: "agent", agentId: agent.id, name: agent.name },
      {
        subject: chatSubject(turn.history, turn.message),
        message: turn.message, // the chat before it shows turn by turn on the ticket page
        customerId: endUserId,
        priority: frustrated ? "high" : "normal",
        source: "chat",
        conversationId: conversation.id,
        verified: customer.verified,
        chatReason: frustrated ? "frustration" : "low_confidence",
        language: turn.texts.language,
      },
    );
    ticketId = ticket.id;
    emit.action({ type: "ticket_created", ticket_id: ticket.id, ticket_number: ticket.number, team: null, reason: "escalation" } satisfies PipelineAction);
    const note = `\n\n${turn.texts.t("agent.ticket_opened", { number: String(ticket.number) })}`;
    emit.text(note);
    text += note;
  } else if (escalation === "offer") {
    emit.action({
      type: "offer_person",
      label: ownOrCatalogue(agent.liveHelpLabel, "widget.live_help", turn.texts.language, turn.texts.overrides),
    } satisfies PipelineAction);
    // A no-answer reply already offers a person (the catalogue's `agent.no_answer*`): no second offer.
    if (result.answered) {
      const note = `\n\n${turn.texts.t("agent.offer_person")}`;
      emit.text(note);
      text += note;
    }
  }

  const sources: MessageSource[] = replySources(passages, result, provider.kind);
  if (sources.length > 0) emit.action({ type: "sources", sources } satisfies PipelineAction);
  return { text, agentId: agent.id, actions, sources, confidence, routing: null, ticketId };
}
