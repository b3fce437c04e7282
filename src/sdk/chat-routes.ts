// POST /api/sdk/chat and POST /api/sdk/chat/stream (interface §2.5, §2.6, §4.5; issue #12).
//
// Both: widget key and SDK rate limits first (C4, before the body is validated), then the body's
// schema (400 with the field's path), identity (403 per §5), the session (403 when it is someone
// else's), the agent (404 not_found when `agent_id` is unknown, 404 no_active_agent — as
// /api/sdk/config — when the org has no active agent). The customer's
// message is stored before anything is generated. Then:
//   * /chat runs the pipeline and answers §2.6 plus `sources`; the reply is stored before the
//     response leaves (nothing answered 2xx is lost). A model failure is answered 200 with a
//     fallback that offers a person (confidence 0), and stored as a failed reply.
//   * /chat/stream decides who answers (triage) first, so X-Agent-Id is right, then returns the
//     streamed body at once (src/sdk/stream.ts); the reply is stored when the body is closed.
import { Elysia, t } from "elysia";
import { retrieve } from "../agents/pipeline/knowledge.ts";
import { decide, runPipeline, type ChatOutcome, type ChatTurn } from "../agents/pipeline/run.ts";
import { LlmError } from "../agents/llm/errors.ts";
import { getAgent, type Agent } from "../agents/service.ts";
import { CHAT_LIMITS, checkChatInput, DATA_URL_MAX, type HistoryItem } from "../conversations/input.ts";
import { type ContextEntry, type Conversation, createSession, findSession, updateSession } from "../conversations/sessions.ts";
import { type ConversationMessage, recentMessages, storeCustomerMessage, storeLater, storeReply, transcriptsSettled } from "../conversations/transcript.ts";
import type { Deps } from "../deps.ts";
import { AppError, knownError } from "../errors.ts";
import { FreeForm } from "../http/json.ts";
import { requestMeta } from "../http/request-meta.ts";
import { requireWidgetKey, type WidgetAuth } from "./auth.ts";
import { IDENTITY_LIMITS, resolveIdentity } from "./identity.ts";
import { limitSdkRequest, limitSdkTickets } from "./limits.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { noActiveAgent } from "./service.ts";
import { chatStream, liftIdleTimeout } from "./stream.ts";

const ExternalId = t.String({ minLength: 1, maxLength: IDENTITY_LIMITS.externalId });
const Mode = t.Union([t.Literal("chat"), t.Literal("voice"), t.Literal("video"), t.Literal("livehelp")], { description: "Default chat; livehelp goes straight to a person." });
const ContextMap = t.Record(
  t.String(),
  t.Object({
    label: t.String({ minLength: 1, maxLength: CHAT_LIMITS.contextLabel }),
    type: t.Optional(t.String({ maxLength: CHAT_LIMITS.contextType })),
    value: t.Unknown(),
  }),
  { maxProperties: CHAT_LIMITS.contextEntries, description: "key → { label, type?, value }; merged into the session's context, the request wins." },
);
const HistoryText = t.String({ maxLength: CHAT_LIMITS.historyText });
const History = t.Array(
  t.Object({ speaker: t.Optional(t.String({ maxLength: 32 })), role: t.Optional(t.String({ maxLength: 32 })), text: t.Optional(HistoryText), content: t.Optional(HistoryText) }),
  { maxItems: CHAT_LIMITS.historyItems, description: "Earlier turns: only seeds a session the server does not know; never taken as the agent's words." },
);

const common = {
  message: t.String({ minLength: 1, maxLength: CHAT_LIMITS.message }),
  user_id: t.Optional(ExternalId),
  user_token: t.Optional(t.String({ minLength: 1, maxLength: IDENTITY_LIMITS.token })),
  session_id: t.Optional(t.String({ minLength: 1, maxLength: CHAT_LIMITS.sessionId })),
  company_id: t.Optional(ExternalId),
  mode: t.Optional(Mode),
  custom_fields: t.Optional(FreeForm()),
  context: t.Optional(ContextMap),
  conversation_history: t.Optional(History),
  behavior_context: t.Optional(t.String({ maxLength: CHAT_LIMITS.behaviorContext })),
};

export const ChatBody = t.Object({
  ...common,
  agent_id: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  images: t.Optional(t.Array(t.String({ minLength: 1, maxLength: DATA_URL_MAX }), { maxItems: CHAT_LIMITS.images })),
});
/** §2.5: the stream takes every field but agent_id and images. */
export const ChatStreamBody = t.Object(common);

/** §2.6 plus `sources`; the shape of `actions` items is in the README ("Chat"). */
export const ChatAnswer = t.Object({
  text: t.String(),
  session_id: t.String(),
  agent_id: t.String(),
  actions: t.Array(t.Unknown()),
  confidence: t.Number({ minimum: 0, maximum: 1 }),
  sources: t.Array(t.Object({ doc_id: t.String(), title: t.String(), url: t.Union([t.String(), t.Null()]) })),
  routing: t.Optional(t.Object({ action: t.String(), ticket_id: t.Optional(t.String()), team: t.Optional(t.String()) })),
});

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 413: ErrorBody, 429: ErrorBody };

type ChatBodyValue = typeof ChatBody.static;

interface Prepared {
  turn: ChatTurn;
  sessionId: string;
}

/**
 * The agent that answers: the pinned one (unknown, another org's or disabled: 404 not_found), else
 * the conversation's (after a handoff), else the active one (none: 404 no_active_agent).
 */
async function agentFor(deps: Deps, orgId: string, pinned: string | undefined, conversation: Conversation | null): Promise<Agent> {
  if (pinned !== undefined) {
    const agent = await getAgent(deps, orgId, pinned);
    if (!agent) throw AppError.notFound("No such agent in this organisation.");
    return agent;
  }
  const current = conversation?.agentId ? await getAgent(deps, orgId, conversation.agentId) : null;
  const agent = current ?? (await getAgent(deps, orgId));
  if (!agent) throw noActiveAgent(); // the code and message /api/sdk/config gives
  return agent;
}

/** Everything before generation: identity, session, agent, and the customer's message stored. */
async function prepare(deps: Deps, auth: WidgetAuth, body: ChatBodyValue, request: Request): Promise<Prepared> {
  const { reported } = checkChatInput(body as { message: string; images?: string[]; conversation_history?: HistoryItem[]; context?: Record<string, unknown> });
  const identity = await resolveIdentity(deps, auth.orgId, { user_id: body.user_id, user_token: body.user_token, company_id: body.company_id, custom_fields: body.custom_fields });
  const party = { endUserId: identity.endUser?.id ?? null };
  const mode = body.mode ?? "chat";
  const context = body.context as Record<string, ContextEntry> | undefined;
  let conversation = body.session_id !== undefined ? await findSession(deps, auth.orgId, body.session_id, party) : null;
  // A streamed reply of this session may still be being written: the history must include it.
  if (conversation) await transcriptsSettled(deps, conversation.id);
  const agent = await agentFor(deps, auth.orgId, body.agent_id, conversation);
  // Retrieval reads only the org's docs: it runs while the message is stored (generation waits for both).
  const knowledge = retrieve(deps, auth.orgId, body.message);
  knowledge.catch(() => {}); // awaited by the pipeline; a failure surfaces there, not as an unhandled rejection
  const images = body.images ?? [];
  const message = { text: body.message, images, mode };
  let sessionId: string;
  let history: ConversationMessage[];
  if (conversation) {
    // Server history wins: what the client says happened is ignored for a session we know.
    sessionId = body.session_id!;
    conversation = await updateSession(deps, conversation, { context, mode });
    history = await recentMessages(deps, conversation);
    await storeCustomerMessage(deps, conversation, message);
  } else {
    // A new conversation: the session, any reported turns and the message in one statement.
    ({ conversation, sessionId } = await createSession(deps, { orgId: auth.orgId, party, agentId: agent.id, mode, context, reported, firstMessage: message }));
    history = reported.length > 0 ? (await recentMessages(deps, conversation)).slice(0, -1) : [];
  }
  return {
    sessionId,
    turn: { orgId: auth.orgId, agent, conversation, customer: { ...identity, reported: (body.custom_fields as Record<string, unknown> | undefined) ?? {} }, message: body.message, images, mode, behavior: body.behavior_context, history, knowledge, chargeTicket: () => limitSdkTickets(deps, auth, request) },
  };
}

/** What a client may be told about a failure (never a stack, a statement or a key). */
function describe(error: unknown): { code: string; message: string } {
  if (error instanceof LlmError) return { code: "llm_failed", message: `The model could not answer (${error.code}). Please try again, or ask for a person.` };
  const known = knownError(error);
  if (known) return { code: known.code, message: known.message };
  if (error instanceof DOMException && error.name === "AbortError") return { code: "cancelled", message: "The answer was cancelled." };
  return { code: "internal_error", message: "Something went wrong on our side." };
}

const FALLBACK = "I'm sorry, I can't answer right now. Would you like me to connect you with a person from our team?";

function ticketOf(actions: readonly unknown[]): string | null {
  for (const a of actions) {
    const action = a as { type?: string; ticket_id?: string } | null;
    if (action?.type === "ticket_created" && typeof action.ticket_id === "string") return action.ticket_id;
  }
  return null;
}

export function chatRoutes(deps: Deps) {
  return new Elysia({ name: "chat" })
    .derive(async ({ request, path }) => {
      if (path !== "/api/sdk/chat" && path !== "/api/sdk/chat/stream") return {};
      const auth = await requireWidgetKey(deps, request);
      await limitSdkRequest(deps, auth, request);
      return { auth };
    })
    .post(
      "/api/sdk/chat",
      async ({ body, auth, request }) => {
        const { turn, sessionId } = await prepare(deps, auth!, body, request);
        liftIdleTimeout(request);
        const texts: string[] = [];
        const sink = { text: (text: string) => texts.push(text), action: () => {}, signal: request.signal };
        let outcome: ChatOutcome;
        let failure: { code: string; message: string } | null = null;
        try {
          outcome = await runPipeline(deps, turn, sink);
        } catch (error) {
          if (!(error instanceof LlmError)) {
            await storeReply(deps, turn.conversation, { text: texts.join(""), agentId: turn.agent.id, actions: [], sources: [], confidence: null, routing: null, status: "failed", error: describe(error) }).catch(() => {});
            throw error;
          }
          failure = describe(error);
          deps.log.warn("chat model failed", { request_id: requestMeta(request).id, code: error.code, status: error.status });
          const offer = { type: "offer_person", label: turn.agent.liveHelpLabel };
          outcome = { text: FALLBACK, agentId: turn.agent.id, actions: [offer], sources: [], confidence: 0, routing: null, ticketId: null };
        }
        await storeReply(deps, turn.conversation, {
          text: outcome.text,
          agentId: outcome.agentId,
          actions: outcome.actions,
          sources: outcome.sources,
          confidence: outcome.confidence,
          routing: outcome.routing,
          status: failure ? "failed" : "complete",
          error: failure,
          ticketId: outcome.ticketId,
        });
        return {
          text: outcome.text,
          session_id: sessionId,
          agent_id: outcome.agentId,
          actions: outcome.actions,
          confidence: outcome.confidence,
          sources: outcome.sources,
          ...(outcome.routing ? { routing: outcome.routing } : {}),
        };
      },
      {
        body: ChatBody,
        response: { 200: ChatAnswer, ...errors },
        detail: { summary: "Send a message through the agent pipeline (§2.5 → §2.6, plus sources)", tags: ["Widget SDK"], security: [{ widgetKey: [] }] },
      },
    )
    .post(
      "/api/sdk/chat/stream",
      async ({ body, auth, request }) => {
        const { turn, sessionId } = await prepare(deps, auth!, body, request);
        const decided = await decide(deps, turn);
        let text = "";
        let signal: AbortSignal | undefined;
        return chatStream<ChatOutcome>({
          opened: () => deps.metrics.streamOpened("chat"),
          sessionId,
          agentId: decided.agent.id,
          request,
          describe,
          run: (sink) => {
            signal = sink.signal;
            return runPipeline(
              deps,
              turn,
              {
                text(piece) {
                  text += piece;
                  sink.text(piece);
                },
                action: (action) => sink.action(action),
                signal: sink.signal,
              },
              decided,
            );
          },
          after(outcome) {
            // §4.5: the transcript is stored after the stream completes.
            void storeLater(deps, turn.conversation.id, () => {
              if (outcome.ok) {
                const o = outcome.value;
                return storeReply(deps, turn.conversation, { text: o.text, agentId: o.agentId, actions: o.actions, sources: o.sources, confidence: o.confidence, routing: o.routing, status: "complete", ticketId: o.ticketId });
              }
              const interrupted = signal?.aborted === true;
              const error = interrupted ? { code: "cancelled", message: "The client closed the stream." } : describe(outcome.error);
              if (!interrupted && !(outcome.error instanceof LlmError) && !(outcome.error instanceof AppError))
                deps.log.error("chat stream failed", { request_id: requestMeta(request).id, error: outcome.error });
              return storeReply(deps, turn.conversation, {
                text,
                agentId: decided.agent.id,
                actions: outcome.actions,
                sources: [],
                confidence: null,
                routing: null,
                status: interrupted ? "interrupted" : "failed",
                error,
                ticketId: ticketOf(outcome.actions),
              });
            });
          },
        });
      },
      {
        body: ChatStreamBody,
        detail: { summary: "The same, streamed: text as it is generated, 0x1E-framed action records (§4.5)", tags: ["Widget SDK"], security: [{ widgetKey: [] }] },
      },
    );
}
