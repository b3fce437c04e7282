// What a chat turn (src/agents/turn.ts) reaches outside itself, one narrow port per need, bound
// to `deps` once per app (`turnPorts`, called where src/app.ts builds the chat routes). A turn's
// steps are calls on this object: reading turn.ts and this interface tells every store and
// service a turn touches. The ports take values (an org, an agent, a conversation), never `deps`:
// what a turn calls is handed what it needs, and nothing below reaches back up into the turn.
import { insertPlanned, type PlannedSession, planSession } from "../conversations/first-turn.ts";
import { type Conversation, createSession, findSession, type NewSession, updateSession } from "../conversations/sessions.ts";
import { type ConversationMessage, type CustomerMessage, recentMessages, type Reply, storeCustomerMessage, storeReply } from "../conversations/transcript.ts";
import { type ContinuedTurn, continueSession, type KnowledgeState } from "../conversations/turn-store.ts";
import type { Deps } from "../deps.ts";
import type { CreateTicketInput, InboxActor, Ticket } from "../inbox/ticket-model.ts";
import { waitingTicket } from "../inbox/ticket-queries.ts";
import { addTicketMessage, createTicket } from "../inbox/ticket-writes.ts";
import type { Logger } from "../log.ts";
import type { Timers } from "../kit/timers.ts";
import type { ChatState } from "../ports/caches.ts";
import type { ToolRuntime } from "../ports/tools.ts";
import { providerFor } from "./llm/provider.ts";
import type { LlmProvider } from "./llm/types.ts";
import { handoffAcknowledgement } from "./pipeline/handoff-note.ts";
import { retrieve, type ScoredPassage } from "./pipeline/knowledge.ts";
import type { LanguageHints } from "../knowledge/query-language.ts";
import type { Agent } from "./service.ts";
import { agentOf, createTurnSettings, type OrgTurnSettings } from "./turn-settings.ts";
import { orgDefaultLanguage } from "../tenancy/orgs.ts";
import { resolveTexts, type Texts } from "../texts/store.ts";

/** A ticket as the turn tells the customer of it. */
export interface TicketRef {
  id: string;
  number: number;
}

export interface TurnPorts {
  /** Chat sessions and their transcripts (src/conversations/). */
  sessions: {
    /** The session `sessionId` names, checked against who is chatting (403 when it is someone else's); null when the org has none. */
    find(orgId: string, sessionId: string, party: { endUserId: string | null }): Promise<Conversation | null>;
    /** A new session with any reported turns and the customer's first message, in one statement. */
    start(input: NewSession): Promise<{ conversation: Conversation; sessionId: string; knowledge: KnowledgeState }>;
    /** A new session planned in memory, written later with its first reply (src/conversations/first-turn.ts). */
    plan(input: NewSession & { firstMessage: CustomerMessage }): PlannedSession;
    /** The planned session and its first message, with `reply` when given, in one statement. */
    insertPlanned(plan: PlannedSession, reply: Reply | null): Promise<void>;
    /**
     * A known session's turn in one statement — the message stored, the session, its history and the knowledge state read — or null for the general
     * path (src/conversations/turn-store.ts).
     */
    continue(input: {
      orgId: string;
      sessionId: string;
      party: { endUserId: string | null };
      message: CustomerMessage;
      language?: string | null;
    }): Promise<ContinuedTurn | null>;
    /** The request's context and mode merged into the session (the request wins). */
    update(conversation: Conversation, patch: { context?: NewSession["context"]; mode: string; language?: string }): Promise<Conversation>;
    /** The latest messages, oldest first. */
    history(conversation: Conversation): Promise<ConversationMessage[]>;
    storeMessage(conversation: Conversation, message: CustomerMessage): Promise<void>;
    storeReply(conversation: Conversation, reply: Reply): Promise<void>;
  };
  /** Replies still being written, per conversation (src/agents/turn.ts "replies still being written"). */
  pending: ChatState;
  /** The org's agents and model override, cached exactly (src/agents/turn-settings.ts). */
  settings(orgId: string): Promise<OrgTurnSettings>;
  /** The org's agents: one by id, the active one without, or all (src/agents/service.ts). Disabled ones are never returned by `get`. */
  agents: {
    get(orgId: string, agentId?: string | null): Promise<Agent | null>;
    list(orgId: string): Promise<Agent[]>;
  };
  /** The best passages of the org's published docs (src/agents/pipeline/knowledge.ts). */
  retrieve(orgId: string, question: string, earlier?: readonly string[], hints?: LanguageHints, known?: KnowledgeState): Promise<ScoredPassage[]>;
  /** The model that answers for this org and agent, its usage counted (src/agents/llm/provider.ts). */
  model(orgId: string, agent: Agent): Promise<LlmProvider>;
  /** The agent's tools, as a customer's chat may call them (src/tools/runtime.ts). */
  tools: Pick<ToolRuntime, "list" | "call">;
  /** The support inbox (src/inbox/): the ticket a conversation waits on, a message added to one, a new one. */
  tickets: {
    waiting(orgId: string, ticketId: string): Promise<(Ticket & { personHas: boolean }) | null>;
    addMessage(orgId: string, actor: InboxActor, ticketId: string, body: string, verified: boolean): Promise<void>;
    create(orgId: string, actor: InboxActor, input: CreateTicketInput): Promise<TicketRef>;
    /** What the customer is told when a person is asked to take over (business hours), in their language. */
    acknowledgement(orgId: string, ticketNumber: number, texts: Texts): Promise<string>;
  };
  /** The customer's languages: the org's default, and the org's sentences in one language (src/texts/). */
  languages: {
    orgDefault(orgId: string): Promise<string>;
    texts(orgId: string, language: string): Promise<Texts>;
  };
  /** Deadlines (deps.timers): a new session's question is written by QUESTION_STORED_WITHIN_MS (src/agents/first-turn-writes.ts). */
  timers: Pick<Timers, "deadline">;
  log: Logger;
}

/** The ports of every chat turn of this app, each bound to `deps` here once. */
export function turnPorts(
  deps: Pick<
    Deps,
    | "chat"
    | "cipher"
    | "config"
    | "db"
    | "guard"
    | "invalidation"
    | "knowledge"
    | "live"
    | "log"
    | "metrics"
    | "now"
    | "statements"
    | "texts"
    | "timers"
    | "tools"
  >,
): TurnPorts {
  const settings = createTurnSettings(deps, deps.invalidation);
  return {
    sessions: {
      find: (orgId, sessionId, party) => findSession(deps, orgId, sessionId, party),
      start: (input) => createSession(deps, input),
      plan: (input) => planSession(deps, input),
      insertPlanned: (plan, reply) => insertPlanned(deps, plan, reply),
      continue: (input) => continueSession(deps, input),
      update: (conversation, patch) => updateSession(deps, conversation, patch),
      history: (conversation) => recentMessages(deps, conversation),
      storeMessage: (conversation, message) => storeCustomerMessage(deps, conversation, message),
      storeReply: (conversation, reply) => storeReply(deps, conversation, reply),
    },
    pending: deps.chat,
    settings: (orgId) => settings.get(orgId),
    agents: {
      // One missed, the org's settings are read again once (an agent newer than the entry), rather than answering 404 from the cache.
      async get(orgId, agentId) {
        const found = agentOf(await settings.get(orgId), agentId);
        if (found) return found;
        settings.delete(orgId);
        return agentOf(await settings.get(orgId), agentId);
      },
      list: async (orgId) => [...(await settings.get(orgId)).agents],
    },
    retrieve: (orgId, question, earlier, hints, known) => retrieve(deps, orgId, question, earlier, hints, known),
    model: async (orgId, agent) => providerFor(deps, orgId, agent, { row: (await settings.get(orgId)).llm }),
    tools: deps.tools,
    tickets: {
      waiting: (orgId, ticketId) => waitingTicket(deps, orgId, ticketId),
      async addMessage(orgId, actor, ticketId, body, verified) {
        await addTicketMessage(deps, { orgId, actor, ticketId, kind: "customer", body, verified });
      },
      async create(orgId, actor, input) {
        const ticket = await createTicket(deps, { orgId, actor, input });
        return { id: ticket.id, number: ticket.number };
      },
      acknowledgement: (orgId, ticketNumber, texts) => handoffAcknowledgement(deps, orgId, ticketNumber, texts),
    },
    languages: { orgDefault: (orgId) => orgDefaultLanguage(deps.db, orgId), texts: (orgId, language) => resolveTexts(deps, orgId, language) },
    timers: deps.timers,
    log: deps.log,
  };
}
