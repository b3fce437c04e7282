// GET /api/sdk/conversations/{session_id} and …/events (README "Live conversation"): the chat as
// its customer sees it, and what happens next, live (with the member's typing, never stored; the
// stream being open is the customer's presence); POST …/typing says the customer is typing. Widget key and SDK rate limits first (as every
// keyed SDK route), then who may read the conversation (src/sdk/conversation-access.ts), then — for
// the stream — its caps: SDK_STREAMS_PER_KEY_IP open streams per widget key and client IP, and
// SDK_STREAMS_MAX per process; beyond either, 429 `too_many_streams` with Retry-After.
import { Elysia, t } from "elysia";
import { CHAT_LIMITS } from "../conversations/input.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { mediaResponse } from "../http/media-response.ts";
import { requestMeta } from "../http/request-meta.ts";
import { eventStream, RETRY_MS, type StreamEvent } from "../live/event-stream.ts";
import { markRepliesSeen } from "../inbox/reply-mail.ts";
import { EVENT_LIMITS, eventsAfter, lastEventId } from "../inbox/ticket-events.ts";
import { requireWidgetKey } from "./auth.ts";
import { conversationView, type Reader, readableConversation } from "./conversation-access.ts";

import { IDENTITY_LIMITS } from "./identity.ts";
import { limitSdkRequest } from "./limits.ts";

const PREFIX = "/api/sdk/conversations/";
/** Event ids are positive integers below 2^53 (ticket_events.seq). */
const EVENT_ID = /^\d{1,15}$/;

const Params = t.Object({ session_id: t.String({ minLength: 1, maxLength: CHAT_LIMITS.sessionId, description: "The chat's X-Session-Id." }) });
const Who = {
  user_id: t.Optional(t.String({ minLength: 1, maxLength: IDENTITY_LIMITS.externalId, description: "Or the X-User-Id header." })),
  user_token: t.Optional(
    t.String({ minLength: 1, maxLength: IDENTITY_LIMITS.token, description: "Or the X-User-Token header (an EventSource cannot set headers)." }),
  ),
};
const HistoryQuery = t.Object(Who);
const Query = t.Object({
  ...Who,
  last_event_id: t.Optional(t.String({ maxLength: 15, description: "Or the Last-Event-ID header: resume after this event." })),
});
const Author = t.Object({ name: t.String(), avatar_url: t.Optional(t.String()) });
export const CustomerMessageSchema = t.Object({
  id: t.String(),
  kind: t.Union([t.Literal("customer"), t.Literal("agent"), t.Literal("person")]),
  author: Author,
  text: t.String(),
  created_at: t.String(),
});
const ConversationAnswer = t.Object({
  session_id: t.String(),
  messages: t.Array(CustomerMessageSchema),
  ticket: t.Union([t.Object({ number: t.Integer(), status: t.String() }), t.Null()]),
  last_event_id: t.String({ description: "Pass as Last-Event-ID to …/events to get exactly what happens after this answer." }),
});
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

/** A header or a query parameter, the header first; a header longer than `max` is refused like the query parameter would be. */
function fromHeaderOrQuery(request: Request, header: string, query: string | undefined, max: number, path: string): string | undefined {
  const value = request.headers.get(header) ?? query;
  if (value === undefined || value === null || value === "") return undefined;
  if (value.length > max) throw AppError.badRequest(`${header} is longer than ${max} characters.`, [{ path, message: `at most ${max} characters` }]);
  return value;
}

function readerOf(request: Request, query: typeof HistoryQuery.static): Reader {
  return {
    userId: fromHeaderOrQuery(request, "x-user-id", query.user_id, IDENTITY_LIMITS.externalId, "/user_id"),
    userToken: fromHeaderOrQuery(request, "x-user-token", query.user_token, IDENTITY_LIMITS.token, "/user_token"),
  };
}

export function conversationRoutes(deps: Pick<Deps, "cipher" | "config" | "db" | "limiter" | "live" | "log" | "metrics" | "now" | "widgetKeys">) {
  return new Elysia({ name: "sdk-conversations" })
    .derive(async ({ request, path }) => {
      if (!path.startsWith(PREFIX)) return {};
      const auth = await requireWidgetKey(deps, request);
      await limitSdkRequest(deps, auth, request);
      return { auth };
    })
    .get(
      "/api/sdk/conversations/:session_id",
      async ({ params, query, request, auth }) => {
        const conversation = await readableConversation(deps, auth!.orgId, params.session_id, readerOf(request, query));
        const view = await conversationView(deps, conversation, params.session_id);
        await markRepliesSeen(deps, auth!.orgId, view.messages as unknown as Record<string, unknown>[]); // what the widget loaded counts as received
        return view;
      },
      {
        params: Params,
        query: HistoryQuery,
        response: { 200: ConversationAnswer, ...errors },
        detail: {
          summary: "The conversation as its customer sees it: messages, AI answers and people's replies (never notes), oldest first",
          tags: ["Widget SDK"],
          security: [{ widgetKey: [] }],
        },
      },
    )
    .post(
      "/api/sdk/conversations/:session_id/typing",
      async ({ params, query, body, request, auth }) => {
        const conversation = await readableConversation(deps, auth!.orgId, params.session_id, readerOf(request, query));
        // Never stored; the member's page of this conversation hears it (README "Typing and presence").
        return { sent: deps.live.typing(conversation.id, "customer", { typing: body.typing }) };
      },
      {
        params: Params,
        query: HistoryQuery,
        body: t.Object({ typing: t.Boolean() }, { additionalProperties: false }),
        response: {
          200: t.Object({ sent: t.Boolean({ description: "False when dropped: another signal of the same state within the last second" }) }),
          ...errors,
        },
        detail: {
          summary: "Tell the member who has the conversation that the customer is typing (or stopped); never stored, at most one a second",
          tags: ["Widget SDK"],
          security: [{ widgetKey: [] }],
        },
      },
    )
    .get(
      "/api/sdk/conversations/:session_id/events",
      async ({ params, query, request, auth }) => {
        const conversation = await readableConversation(deps, auth!.orgId, params.session_id, readerOf(request, query));
        const resume = fromHeaderOrQuery(request, "last-event-id", query.last_event_id, 15, "/last_event_id");
        if (resume !== undefined && !EVENT_ID.test(resume))
          throw AppError.badRequest("Last-Event-ID must be an event id this stream sent.", [{ path: "/last_event_id", message: "must be a decimal integer" }]);
        const after = resume === undefined ? await lastEventId(deps, auth!.orgId, conversation.id) : Number(resume);
        const { perKeyIp, max } = deps.config.sdkStreams;
        const release = deps.live.admit(`${auth!.keyId}:${requestMeta(request).ip}`, { perClient: perKeyIp, max });
        if (!release) {
          const message = `Too many open event streams: at most ${perKeyIp} per widget key and address, ${max} per server. Close one, or try again later.`;
          throw new AppError(429, "too_many_streams", message, undefined, { "retry-after": String(Math.ceil(RETRY_MS / 1000)) }, { reason: "rate_limited" });
        }
        const orgId = auth!.orgId;
        const reader = {
          kind: "customer" as const,
          delivered: (events: StreamEvent[]) =>
            void markRepliesSeen(
              deps,
              orgId,
              events.filter((e) => e.type === "message").map((e) => e.data as Record<string, unknown>),
            ),
        };
        return eventStream(deps, {
          key: conversation.id,
          reader,
          read: (from) => eventsAfter(deps, orgId, conversation.id, from),
          page: EVENT_LIMITS.page,
          after,
          request,
          release,
          signals: true,
        });
      },
      {
        params: Params,
        query: Query,
        response: { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody },
        detail: {
          summary:
            "What happens next, as Server-Sent Events: `message` (a person's reply, " +
            "or a message written elsewhere) and `ticket` (status); resume with Last-Event-ID",
          tags: ["Widget SDK"],
          security: [{ widgetKey: [] }],
          responses: mediaResponse(
            "Server-Sent Events (HTML Living Standard): `id:` (resume with Last-Event-ID), `event:` and a JSON `data:` line each; `retry: " +
              "3000` and a heartbeat comment every SDK_STREAM_HEARTBEAT_SECONDS. " +
              'A client that leaves more than 256 KiB of new events untaken is cut (README "Live conversation")',
            ["text/event-stream"],
          ),
        },
      },
    );
}
