// One chat turn from start to end, for both chat endpoints (docs/interface.md 2.5, 2.6 and 4.5;
// README "Chat"). The route has checked the widget key and the rate limits and resolved who the
// customer is; it hands over the validated body and a sink, which either collects the answer
// (/chat) or streams it (/chat/stream). Whatever a step reads or writes outside this file it
// reaches through the turn's ports (src/agents/turn-ports.ts), bound once by the composition root;
// the pipeline's own stages take plain values. Every step, in order:
//
//   1. session    the body's checks beyond its schema; the session found (403 when it is someone
//                 else's) after any reply of it still being written, or started
//   2. agent      the pinned one, else the conversation's, else the org's active one (404)
//   3. message    a known session: the message stored before anything is generated, in ONE
//                 statement with what the turn reads (conversations/turn-store.ts); a new one:
//                 planned in memory, written by first-turn-writes.ts. Meanwhile the knowledge is
//                 looked up, after the org's cached settings (src/agents/turn-settings.ts)
//   4. triage     who answers and how (pipeline/run.ts `decide`); the sink opens with the session
//                 and the agent that really answers — a stream sends its headers here
//   5. answer     the pipeline's steps (pipeline/run.ts): route to a person, or knowledge (under
//                 way since step 3) → answer → escalate → sources; text and actions to the sink as they come
//   6. store      the reply (complete, failed or interrupted, what was produced and why it stopped),
//                 after the sink is told how the turn ended
//
// A failure before step 4 is thrown (the route answers it as an HTTP error); from step 4 on it is
// the same for both sinks: one public code, one stored state (docs/decisions.md "One chat turn").
import type { ContextEntry, Conversation } from "../conversations/sessions.ts";
import { checkChatInput, type HistoryItem } from "../conversations/input.ts";
import type { ContinuedTurn, KnowledgeState } from "../conversations/turn-store.ts";
import type { PlannedSession } from "../conversations/first-turn.ts";
import type { ConversationMessage, Reply } from "../conversations/transcript.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import type { Deps } from "../deps.ts";
import { AppError, knownError } from "../errors.ts";
import { detectLanguage, normalizeLanguage } from "../kit/language.ts";
import { ownOrCatalogue } from "../i18n/catalogue.ts";
import { LlmError } from "./llm/errors.ts";
import { earlierCustomerTurns } from "./pipeline/knowledge.ts";
import { type ChatCustomer, type ChatOutcome, type ChatTurn, decide, runPipeline } from "./pipeline/run.ts";
import { type Agent, noActiveAgent } from "./service.ts";
import { repliesWritten, sessionKey } from "./reply-order.ts";
import { knownWrites, plannedWrites } from "./first-turn-writes.ts";
import type { TurnPorts } from "./turn-ports.ts";
import { agentOf } from "./turn-settings.ts";

/** The validated body of either chat endpoint, as on the wire (src/sdk/chat-schemas.ts). */
export interface TurnBody {
  message: string;
  session_id?: string;
  agent_id?: string;
  mode?: string;
  images?: string[];
  context?: Record<string, unknown>;
  conversation_history?: HistoryItem[];
  behavior_context?: string;
  custom_fields?: unknown;
  /** The widget's locale (snippet, identify(), the browser): a fallback for the customer's language. */
  locale?: string;
}

/** Who asks, and what the route's surface decides for the turn. */
export interface TurnCaller {
  orgId: string;
  customer: ChatCustomer;
  /** For log lines only. */
  requestId: string;
  /** Charges the caller's ticket quota before a ticket is opened (429 past it). */
  chargeTicket(): Promise<void>;
  /** Whether the AI keeps answering while a person owns the conversation (README "Live conversation"). */
  aiAnswersDuringHandoff(): Promise<boolean>;
}

/** What a client may be told about a failure (never a stack, a statement or a key). */
export interface PublicError {
  code: string;
  message: string;
}

export type TurnEnd = { ok: true; outcome: ChatOutcome } | { ok: false; error: PublicError; cause: unknown; interrupted: boolean };

/** The session and the answering agent (after a handoff, the target), with its live-help label. */
export interface TurnHead {
  sessionId: string;
  agentId: string;
  liveHelpLabel: string;
  /** What the customer is told when the model fails, in their language (the catalogue's `agent.unavailable`). */
  unavailable: string;
}

/** Where a turn's answer goes: collected for /chat, streamed for /chat/stream. */
export interface TurnSink {
  /** Step 4: the session and the answering agent are known; nothing is generated yet. */
  open(head: TurnHead): void;
  /** Opening answers 2xx (a stream's headers): a new session is stored before it (first-turn-writes.ts). */
  readonly acknowledgesAtOpen?: boolean;
  text(text: string): void;
  action(action: unknown): void;
  /** Aborted when the client goes away: the model request stops and the reply is stored as interrupted. */
  readonly signal: AbortSignal;
  /** How the turn ended; called before the reply is stored. */
  end(end: TurnEnd): void;
}

function describeFailure(error: unknown, interrupted = false): PublicError {
  if (interrupted) return { code: "cancelled", message: "The client closed the stream." };
  if (error instanceof LlmError) return { code: "llm_failed", message: `The model could not answer (${error.code}). Please try again, or ask for a person.` };
  const known = knownError(error);
  if (known) return { code: known.code, message: known.message };
  if (error instanceof DOMException && error.name === "AbortError") return { code: "cancelled", message: "The answer was cancelled." };
  return { code: "internal_error", message: "Something went wrong on our side." };
}

/** Runs one turn into `sink`. Resolves once the reply is stored; throws what failed before the sink opened, or the store's own failure. */
export async function runTurn(ports: TurnPorts, caller: TurnCaller, body: TurnBody, sink: TurnSink): Promise<void> {
  const { orgId } = caller;
  const { sessions } = ports;
  // 1. Session.
  const { reported } = checkChatInput(body);
  const party = { endUserId: caller.customer.endUser?.id ?? null };
  const mode = body.mode ?? "chat";
  const context = body.context as Record<string, ContextEntry> | undefined;
  // The customer's language (README "Languages"): the message's own when it can be told, else the
  // conversation's, the widget's locale, the org's default — stored with the writes this turn makes
  // anyway (the org's default is read only when nothing else says it).
  const detected = await detectLanguage(body.message);
  const languageOf = async (conversation: Conversation | null): Promise<string> =>
    detected ?? normalizeLanguage(conversation?.language) ?? normalizeLanguage(body.locale) ?? (await ports.languages.orgDefault(orgId));
  const images = body.images ?? [];
  const message = { text: body.message, images, mode };
  // The common path: the agent from the cached settings, then one statement that stores the
  // message and reads what the turn needs (src/conversations/turn-store.ts). A pinned agent that
  // is unknown, or no active agent, is decided by the general path (its 404 before anything is stored).
  const settings = await ports.settings(orgId);
  const fast = agentOf(settings, body.agent_id) !== null;
  let continued: ContinuedTurn | null = null;
  if (fast && body.session_id !== undefined && context === undefined) {
    await repliesWritten(ports.pending, sessionKey(body.session_id));
    continued = await sessions.continue({ orgId, sessionId: body.session_id, party, message, language: detected });
  }
  let conversation = continued?.conversation ?? null;
  if (!continued && body.session_id !== undefined) {
    conversation = await sessions.find(orgId, body.session_id, party);
    if (conversation) await repliesWritten(ports.pending, conversation.id);
  }
  // 2. Agent.
  const agent = await agentFor(ports, orgId, body.agent_id, conversation);
  const aiAnswersDuringHandoff = conversation?.ticketId ? await caller.aiAnswersDuringHandoff() : false;
  // 3. The customer's message. Server history wins: what the client says happened is ignored for a session we know.
  let sessionId: string;
  let history: ConversationMessage[];
  let stored: Promise<void>;
  let known: KnowledgeState | undefined;
  let planned: PlannedSession | null = null;
  if (continued) {
    sessionId = body.session_id!;
    ({ conversation, history, knowledge: known } = continued);
    stored = Promise.resolve();
  } else if (conversation) {
    sessionId = body.session_id!;
    conversation = await sessions.update(conversation, { context, mode, language: await languageOf(conversation) });
    history = await sessions.history(conversation);
    stored = sessions.storeMessage(conversation, message);
  } else if (fast && reported.length === 0) {
    // A new conversation on the common path: planned here, written in one statement with its reply
    // (step 6), or before a ticket or a tool names it (src/conversations/first-turn.ts).
    planned = sessions.plan({ orgId, party, agentId: agent.id, mode, context, firstMessage: message, language: await languageOf(null) });
    ({ conversation, sessionId } = planned);
    history = [];
    stored = Promise.resolve();
  } else {
    // A new conversation: the session, any reported turns and the message in one statement.
    const language = await languageOf(null);
    const started = await sessions.start({ orgId, party, agentId: agent.id, mode, context, reported, firstMessage: message, language });
    ({ conversation, sessionId, knowledge: known } = started);
    history = reported.length > 0 ? (await sessions.history(conversation)).slice(0, -1) : [];
    stored = Promise.resolve();
  }
  const writes = planned ? plannedWrites(ports, planned, sink.acknowledgesAtOpen) : knownWrites(ports, conversation, sessionId);
  // A stream's headers acknowledge the session: written now, beside retrieval and triage; they wait for it.
  const acknowledged = sink.acknowledgesAtOpen ? writes.persisted() : null;
  acknowledged?.catch(() => {}); // awaited before the sink opens, where a failure surfaces
  try {
    const texts = languageOf(conversation).then((language) => ports.languages.texts(orgId, language));
    texts.catch(() => {}); // awaited below; a failure surfaces there
    // Retrieval reads only the org's docs: it runs while the message is stored, for the message and the customer's earlier turns.
    const knowledge = ports.retrieve(orgId, body.message, earlierCustomerTurns(history), { conversation: conversation.language }, known);
    knowledge.catch(() => {}); // awaited in step 5; a failure surfaces there, not as an unhandled rejection
    await stored;
    const turn: ChatTurn = {
      orgId,
      agent,
      conversation,
      customer: { ...caller.customer, reported: (body.custom_fields as Record<string, unknown> | undefined) ?? {} },
      message: body.message,
      texts: await texts,
      images,
      mode,
      behavior: body.behavior_context,
      history,
      knowledge,
      persisted: writes.persisted,
      chargeTicket: () => caller.chargeTicket(),
      aiAnswersDuringHandoff,
    };
    await answerAndStore(ports, caller.requestId, turn, sessionId, sink, writes.store, acknowledged);
  } finally {
    writes.release();
  }
}

/** Steps 4–6 of a turn whose session and message are settled: triage, the answer into the sink, the reply stored. */
async function answerAndStore(
  ports: TurnPorts,
  requestId: string,
  turn: ChatTurn,
  sessionId: string,
  sink: TurnSink,
  store: (reply: Reply) => Promise<void>,
  acknowledged: Promise<void> | null,
): Promise<void> {
  // 4. Triage.
  const decided = await decide(ports.agents, turn);
  await acknowledged;
  sink.open({
    sessionId,
    agentId: decided.agent.id,
    liveHelpLabel: ownOrCatalogue(decided.agent.liveHelpLabel, "widget.live_help", turn.texts.language, turn.texts.overrides),
    unavailable: turn.texts.t("agent.unavailable"),
  });
  // 5. Answer.
  let text = "";
  const actions: unknown[] = [];
  const emit = {
    text(piece: string) {
      text += piece;
      sink.text(piece);
    },
    action(action: unknown) {
      actions.push(action);
      sink.action(action);
    },
    get signal() {
      return sink.signal;
    },
  };
  let end: TurnEnd;
  try {
    end = { ok: true, outcome: await runPipeline(ports, turn, decided, emit) };
  } catch (cause) {
    const interrupted = sink.signal.aborted;
    end = { ok: false, error: describeFailure(cause, interrupted), cause, interrupted };
    if (!interrupted) logFailure(ports.log, requestId, cause);
  }
  // 6. Store: the sink is told first (docs/interface.md 4.5: the transcript is stored after the stream completes).
  sink.end(end);
  const reply: Reply = end.ok
    ? { ...end.outcome, status: "complete" }
    : {
        text,
        agentId: decided.agent.id,
        actions,
        sources: [],
        confidence: null,
        routing: null,
        status: end.interrupted ? "interrupted" : "failed",
        error: end.error,
        ticketId: ticketOf(actions),
      };
  await store(reply);
}

/** The pinned agent (else 404 not_found), else the conversation's, else the active one (else 404 no_active_agent). */
async function agentFor({ agents }: Pick<TurnPorts, "agents">, orgId: string, pinned: string | undefined, conversation: Conversation | null): Promise<Agent> {
  if (pinned !== undefined) {
    const agent = await agents.get(orgId, pinned);
    if (!agent) throw AppError.notFound("No such agent in this organisation.");
    return agent;
  }
  const current = conversation?.agentId ? await agents.get(orgId, conversation.agentId) : null;
  const agent = current ?? (await agents.get(orgId));
  if (!agent) throw noActiveAgent();
  return agent;
}

/** A model's failure and our own refusals are expected; so is the database going away (a warning); anything else is a bug. */
function logFailure(log: Deps["log"], requestId: string, error: unknown): void {
  if (error instanceof LlmError) log.warn("chat model failed", { request_id: requestId, code: error.code, status: error.status });
  else if (error instanceof AppError) return;
  else if (isDatabaseUnavailable(error)) log.warn("chat turn ended: the database is unavailable", { request_id: requestId });
  else log.error("chat turn failed", { request_id: requestId, error });
}

function ticketOf(actions: readonly unknown[]): string | null {
  for (const a of actions) {
    const action = a as { type?: string; ticket_id?: string } | null;
    if (action?.type === "ticket_created" && typeof action.ticket_id === "string") return action.ticket_id;
  }
  return null;
}

// A streamed reply is stored after its body closed: the next turn waits for it (reply-order.ts).
export { createChatState, transcriptsSettled } from "./reply-order.ts";
