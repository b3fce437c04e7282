// What the chat pipeline (run.ts and its steps, steps/) is handed and hands back: one customer
// message in one conversation, where its text and actions go as they are produced, and the reply
// it ends with. Values only; the pipeline's I/O goes through the turn's ports (../turn-ports.ts).
import type { Conversation } from "../../conversations/sessions.ts";
import type { ConversationMessage } from "../../conversations/transcript.ts";
import type { EndUser } from "../../customers/records.ts";
import type { MessageRouting, MessageSource } from "../../db/schema/index.ts";
import type { InboxActor } from "../../inbox/ticket-model.ts";
import type { Texts } from "../../texts/store.ts";
import type { Agent } from "../service.ts";
import type { ScoredPassage } from "./knowledge.ts";
import type { TriageDecision } from "./triage.ts";

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
  /**
   * Resolves once the conversation and the customer's message are in the database: a new session's
   * are written with its reply at the turn's end (src/conversations/first-turn.ts), or here, first,
   * when a step is about to name them elsewhere (a ticket, a tool call).
   */
  persisted?: () => Promise<void>;
  /** Charges the SDK's ticket quota before a new ticket is opened (429 past it): chat opens tickets too. */
  chargeTicket?: () => Promise<void>;
  /**
   * The org's choice (README "Live conversation"): whether the AI keeps answering while a person
   * owns the conversation. Default false: the customer's messages go to the person's ticket only.
   */
  aiAnswersDuringHandoff?: boolean;
}

/** Where a step's text and actions go as they are produced (the stream writes them at once; /chat collects them). */
export interface Emit {
  text(text: string): void;
  action(action: unknown): void;
}

export interface ChatSink extends Emit {
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

/** Triage's verdict for a turn, and the agent that handles it (after a handoff, the target). */
export interface Decided {
  agent: Agent;
  decision: TriageDecision;
  /** Set when triage handed the conversation over: the agent it came from. */
  handedOffFrom?: Agent;
}

/** The agent's latest reply in the conversation before this message. */
export function lastAgentReply(history: readonly ConversationMessage[]): ConversationMessage | undefined {
  for (let i = history.length - 1; i >= 0; i--) if (history[i]!.role === "agent") return history[i]!;
  return undefined;
}

/** The customer of this turn, as the inbox records who wrote. */
export function customerActor(turn: Pick<ChatTurn, "customer" | "conversation">): InboxActor {
  return { kind: "customer", endUserId: turn.customer.endUser?.id ?? null, sessionId: turn.conversation.id };
}
