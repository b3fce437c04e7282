// POST /api/sdk/chat and POST /api/sdk/chat/stream (docs/interface.md 2.5, 2.6 and 4.5; README
// "Chat").
//
// Both: widget key and SDK rate limits first (README "Widget SDK", before the body is validated),
// then the body's schema (400 with the field's path; src/sdk/chat-schemas.ts), then the customer's
// identity (403 per docs/interface.md 5). The turn itself — session, agent, triage, knowledge,
// answer, the reply stored — is src/agents/turn.ts; a route only chooses its sink:
//   * /chat collects the answer and answers docs/interface.md 2.6 plus `sources` once the reply is
//     stored (nothing answered 2xx is lost). A model failure is answered 200 with a fallback that
//     offers a person (confidence 0); any other failure as the error it is.
//   * /chat/stream returns the streamed body as soon as triage has decided who answers (so
//     X-Agent-Id is right) (src/sdk/stream.ts); a failure after that ends it with an error record.
import { Elysia } from "elysia";
import type { ChatOutcome } from "../agents/pipeline/run.ts";
import { runTurn, type TurnCaller, type TurnEnd, type TurnHead, type TurnSink } from "../agents/turn.ts";
import type { TurnPorts } from "../agents/turn-ports.ts";
import { LlmError } from "../agents/llm/errors.ts";
import type { Deps } from "../deps.ts";
import { isDatabaseUnavailable } from "../db/unavailable.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { mediaResponse } from "../http/media-response.ts";
import { requestMeta } from "../http/request-meta.ts";
import { requireWidgetKey, type WidgetAuth } from "./auth.ts";
import { ChatAnswer, ChatBody, type ChatBodyValue, ChatStreamBody } from "./chat-schemas.ts";
import { resolveIdentity } from "./identity.ts";
import { limitSdkRequest, limitSdkTickets } from "./limits.ts";
import { handoffSetting } from "./settings.ts";
import { liftIdleTimeout, streamTurn } from "./stream.ts";

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 413: ErrorBody, 429: ErrorBody };

/** Who asks: the identity the body claims or proves, and this surface's ticket quota and handoff setting. */
async function callerOf(
  deps: Pick<Deps, "cipher" | "config" | "db" | "limiter" | "now">,
  auth: WidgetAuth,
  body: ChatBodyValue,
  request: Request,
): Promise<TurnCaller> {
  const customer = await resolveIdentity(deps, auth.orgId, {
    user_id: body.user_id,
    user_token: body.user_token,
    company_id: body.company_id,
    custom_fields: body.custom_fields,
  });
  return {
    orgId: auth.orgId,
    customer,
    requestId: requestMeta(request).id,
    chargeTicket: () => limitSdkTickets(deps, auth, request),
    aiAnswersDuringHandoff: async () => (await handoffSetting(deps, auth.orgId)).ai_answers_during_handoff,
  };
}

/** The collecting sink of /chat: what the turn opened with and how it ended. */
function collector(signal: AbortSignal) {
  let head: TurnHead = { sessionId: "", agentId: "", liveHelpLabel: "", unavailable: "" };
  let ended: TurnEnd | null = null;
  const sink: TurnSink = { open: (h) => (head = h), text: () => {}, action: () => {}, signal, end: (e) => (ended = e) };
  return { sink, head: () => head, ended: () => ended! };
}

/** `turns`: what a turn reaches, bound once per app (src/agents/turn-ports.ts `turnPorts`, in src/app.ts). */
export function chatRoutes(deps: Pick<Deps, "cipher" | "config" | "db" | "limiter" | "log" | "metrics" | "now" | "widgetKeys">, turns: TurnPorts) {
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
        const caller = await callerOf(deps, auth!, body, request);
        liftIdleTimeout(request);
        const collected = collector(request.signal);
        await runTurn(turns, caller, body, collected.sink);
        const { sessionId, agentId, liveHelpLabel, unavailable } = collected.head();
        const end = collected.ended();
        let outcome: ChatOutcome;
        if (end.ok) outcome = end.outcome;
        else if (end.cause instanceof LlmError)
          outcome = {
            // A fallback that offers a person, in the customer's language (the catalogue's `agent.unavailable`).
            text: unavailable,
            agentId,
            actions: [{ type: "offer_person", label: liveHelpLabel }],
            sources: [],
            confidence: 0,
            routing: null,
            ticketId: null,
          };
        else throw end.cause;
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
        detail: {
          summary: "Send a message through the agent pipeline (docs/interface.md 2.5 → 2.6, plus sources)",
          tags: ["Widget SDK"],
          security: [{ widgetKey: [] }],
        },
      },
    )
    .post(
      "/api/sdk/chat/stream",
      async ({ body, auth, request }) => {
        const caller = await callerOf(deps, auth!, body, request);
        return streamTurn(
          request,
          {
            opened: () => deps.metrics.streamOpened("chat"),
            // The body has ended; only storing the reply can still fail (the database going away is expected).
            late: (error) =>
              isDatabaseUnavailable(error)
                ? deps.log.warn("storing a chat reply failed: the database is unavailable", { request_id: caller.requestId })
                : deps.log.error("storing a chat reply failed", { request_id: caller.requestId, error }),
          },
          (sink) => runTurn(turns, caller, body, sink),
        );
      },
      {
        body: ChatStreamBody,
        detail: {
          summary: "The same, streamed: text as it is generated, 0x1E-framed action records (docs/interface.md 4.5)",
          tags: ["Widget SDK"],
          security: [{ widgetKey: [] }],
          responses: mediaResponse(
            // not for customers: the OpenAPI document
            "The answer's text (UTF-8) as it is generated; each action record in band as `0x1E __ACTION__ <json> 0x1E`, " +
              "and `0x1E __ACTIONS__ <json array> 0x1E` once at the end (docs/interface.md 4.5). The session id is in X-Session-Id",
            ["text/plain"],
          ),
        },
      },
    );
}
