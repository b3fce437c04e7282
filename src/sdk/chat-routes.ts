// POST /api/sdk/chat and POST /api/sdk/chat/stream (docs/interface.md 2.5, 2.6 and 4.5; README
// "Chat").
//
// Both: widget key and SDK rate limits first (README "Widget SDK", before the body is validated),
// then the body's schema (400 with the field's path; src/sdk/chat-schemas.ts), then the turn's
// identity, session and agent, with the customer's message stored before anything is generated
// (src/sdk/chat-turn.ts). Then:
//   * /chat runs the pipeline and answers docs/interface.md 2.6 plus `sources`; the reply is stored
//     before the response leaves (nothing answered 2xx is lost). A model failure is answered 200
//     with a fallback that offers a person (confidence 0), and stored as a failed reply.
//   * /chat/stream decides who answers (triage) first, so X-Agent-Id is right, then returns the
//     streamed body at once (src/sdk/stream.ts); the reply is stored when the body is closed.
import { Elysia } from "elysia";
import { decide, runPipeline, type ChatOutcome } from "../agents/pipeline/run.ts";
import { LlmError } from "../agents/llm/errors.ts";
import { storeLater, storeReply } from "../conversations/transcript.ts";
import type { Deps } from "../deps.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import { AppError, knownError } from "../errors.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { requestMeta } from "../http/request-meta.ts";
import { requireWidgetKey } from "./auth.ts";
import { ChatAnswer, ChatBody, ChatStreamBody } from "./chat-schemas.ts";
import { prepare } from "./chat-turn.ts";
import { limitSdkRequest } from "./limits.ts";
import { chatStream, liftIdleTimeout } from "./stream.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 413: ErrorBody, 429: ErrorBody };

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
        detail: { summary: "Send a message through the agent pipeline (docs/interface.md 2.5 → 2.6, plus sources)", tags: ["Widget SDK"], security: [{ widgetKey: [] }] },
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
            // docs/interface.md 4.5: the transcript is stored after the stream completes.
            void storeLater(deps, turn.conversation.id, () => {
              if (outcome.ok) {
                const o = outcome.value;
                return storeReply(deps, turn.conversation, { text: o.text, agentId: o.agentId, actions: o.actions, sources: o.sources, confidence: o.confidence, routing: o.routing, status: "complete", ticketId: o.ticketId });
              }
              const interrupted = signal?.aborted === true;
              const error = interrupted ? { code: "cancelled", message: "The client closed the stream." } : describe(outcome.error);
              // A model's failure and our own refusals are expected; so is the database going away
              // (a warning); anything else is a bug.
              if (!interrupted && !(outcome.error instanceof LlmError) && !(outcome.error instanceof AppError)) {
                if (isDatabaseUnavailable(outcome.error)) deps.log.warn("chat stream ended: the database is unavailable", { request_id: requestMeta(request).id });
                else deps.log.error("chat stream failed", { request_id: requestMeta(request).id, error: outcome.error });
              }
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
        detail: { summary: "The same, streamed: text as it is generated, 0x1E-framed action records (docs/interface.md 4.5)", tags: ["Widget SDK"], security: [{ widgetKey: [] }] },
      },
    );
}
