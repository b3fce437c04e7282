// POST /api/sdk/conversations/{session_id}/feedback ("Did that help?" on an AI answer) and
// …/rating (the customer's rating of the conversation's resolved ticket), README "Reports" and
// "CSAT". Widget key and SDK rate limits first, then who may act on the conversation: the same
// rules as reading it (src/sdk/conversation-access.ts).
import { Elysia, t } from "elysia";
import { recordFeedback } from "../conversations/feedback.ts";
import { CHAT_LIMITS } from "../conversations/input.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { CSAT_LIMITS, rateTicket, ticketRating } from "../inbox/csat.ts";
import { requireWidgetKey } from "./auth.ts";
import { readableConversation } from "./conversation-access.ts";
import { IDENTITY_LIMITS } from "./identity.ts";
import { limitSdkRequest } from "./limits.ts";
import { csatSettings } from "./csat-settings.ts";

const Params = t.Object({ session_id: t.String({ minLength: 1, maxLength: CHAT_LIMITS.sessionId, description: "The chat's X-Session-Id." }) });
const Who = {
  user_id: t.Optional(t.String({ minLength: 1, maxLength: IDENTITY_LIMITS.externalId })),
  user_token: t.Optional(t.String({ minLength: 1, maxLength: IDENTITY_LIMITS.token })),
};
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 429: ErrorBody };
const security = [{ widgetKey: [] }];

export function feedbackRoutes(deps: Pick<Deps, "cipher" | "config" | "db" | "limiter" | "now" | "widgetKeys">) {
  return new Elysia({ name: "sdk-feedback" })
    .derive(async ({ request, path }) => {
      if (!/^\/api\/sdk\/conversations\/[^/]+\/(feedback|rating)$/.test(path)) return {};
      const auth = await requireWidgetKey(deps, request);
      await limitSdkRequest(deps, auth, request);
      return { auth };
    })
    .post(
      "/api/sdk/conversations/:session_id/feedback",
      async ({ params, body, auth }) => {
        const conversation = await readableConversation(deps, auth!.orgId, params.session_id, { userId: body.user_id, userToken: body.user_token });
        return recordFeedback(deps, { orgId: auth!.orgId, conversationId: conversation.id, messageId: body.message_id, helpful: body.helpful });
      },
      {
        params: Params,
        body: t.Object({
          helpful: t.Boolean(),
          message_id: t.Optional(t.String({ minLength: 1, maxLength: 64, description: "The answer; the latest answer when left out." })),
          ...Who,
        }),
        response: { 200: t.Object({ message_id: t.String(), helpful: t.Boolean() }), ...errors },
        detail: { summary: '"Did that help?": the customer\'s yes or no on an AI answer (a yes is a confirmed resolution)', tags: ["Widget SDK"], security },
      },
    )
    .get(
      "/api/sdk/conversations/:session_id/rating",
      async ({ params, query, auth }) => {
        const conversation = await readableConversation(deps, auth!.orgId, params.session_id, { userId: query.user_id, userToken: query.user_token });
        const settings = await csatSettings(deps, auth!.orgId);
        const ticket = conversation.ticketId ? await ticketRating(deps, auth!.orgId, conversation.ticketId) : null;
        return {
          ask: settings.csat_enabled && ticket !== null && ticket.status === "resolved" && ticket.score === null,
          question: settings.csat_question,
          score: ticket?.score ?? null,
        };
      },
      {
        params: Params,
        query: t.Object(Who),
        response: {
          200: t.Object({
            ask: t.Boolean({ description: "Whether to ask now: CSAT is on and the conversation's ticket is resolved and not rated." }),
            question: t.String(),
            score: t.Union([t.Integer(), t.Null()]),
          }),
          ...errors,
        },
        detail: {
          summary: "Whether the widget should ask for a rating of the conversation's ticket now, and the org's question",
          tags: ["Widget SDK"],
          security,
        },
      },
    )
    .post(
      "/api/sdk/conversations/:session_id/rating",
      async ({ params, body, auth }) => {
        const conversation = await readableConversation(deps, auth!.orgId, params.session_id, { userId: body.user_id, userToken: body.user_token });
        const settings = await csatSettings(deps, auth!.orgId);
        if (!settings.csat_enabled) throw new AppError(409, "csat_disabled", "This organisation does not ask for ratings.");
        if (!conversation.ticketId) throw AppError.notFound("This conversation has no ticket to rate.");
        return rateTicket(deps, {
          orgId: auth!.orgId,
          ticketId: conversation.ticketId,
          conversationId: conversation.id,
          score: body.score,
          comment: body.comment ?? null,
        });
      },
      {
        params: Params,
        body: t.Object({ score: t.Integer({ minimum: 1, maximum: 5 }), comment: t.Optional(t.String({ maxLength: CSAT_LIMITS.comment })), ...Who }),
        response: {
          200: t.Object({
            ticket_id: t.String(),
            ticket_number: t.Integer(),
            score: t.Integer(),
            comment: t.Union([t.String(), t.Null()]),
            handled_by: t.String(),
            rated_at: t.String(),
            recorded: t.Boolean({ description: "False when it was rated before: nothing changed." }),
          }),
          ...errors,
        },
        detail: {
          summary: "The customer's rating (1–5, optional comment) of the conversation's resolved ticket; once — a second rating answers the first",
          tags: ["Widget SDK"],
          security,
        },
      },
    );
}
