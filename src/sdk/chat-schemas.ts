// The bodies of POST /api/sdk/chat and /api/sdk/chat/stream and the answer of /chat
// (docs/interface.md 2.5 and 2.6; README "Chat"), as TypeBox schemas: the routes validate with them
// and the OpenAPI document is generated from them. Their own module so the routes
// (src/sdk/chat-routes.ts) stay about the key, the identity and the sink.
import { t } from "elysia";
import { CHAT_LIMITS, DATA_URL_MAX } from "../conversations/input.ts";
import { FreeForm } from "../http/free-form.ts";
import { IDENTITY_LIMITS } from "./identity.ts";

const ExternalId = t.String({ minLength: 1, maxLength: IDENTITY_LIMITS.externalId });
const Mode = t.Union([t.Literal("chat"), t.Literal("voice"), t.Literal("video"), t.Literal("livehelp")], {
  description: "Default chat; livehelp goes straight to a person.",
});
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
  t.Object({
    speaker: t.Optional(t.String({ maxLength: 32 })),
    role: t.Optional(t.String({ maxLength: 32 })),
    text: t.Optional(HistoryText),
    content: t.Optional(HistoryText),
  }),
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
  locale: t.Optional(
    t.String({
      maxLength: 35,
      description:
        "The widget's locale (BCP 47: the snippet's, identify()'s or the browser's). The customer's language is their message's when it can be told, " +
        "else the conversation's, else this, else the organisation's default (README \"Languages\").",
    }),
  ),
};

export const ChatBody = t.Object({
  ...common,
  agent_id: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  images: t.Optional(t.Array(t.String({ minLength: 1, maxLength: DATA_URL_MAX }), { maxItems: CHAT_LIMITS.images })),
});
/** docs/interface.md 2.5: the stream takes every field but agent_id and images. */
export const ChatStreamBody = t.Object(common);

/** docs/interface.md 2.6 plus `sources`; the shape of `actions` items is in the README ("Chat"). */
export const ChatAnswer = t.Object({
  text: t.String(),
  session_id: t.String(),
  agent_id: t.String(),
  actions: t.Array(t.Unknown()),
  confidence: t.Number({ minimum: 0, maximum: 1 }),
  sources: t.Array(t.Object({ doc_id: t.String(), title: t.String(), url: t.Union([t.String(), t.Null()]) })),
  routing: t.Optional(t.Object({ action: t.String(), ticket_id: t.Optional(t.String()), team: t.Optional(t.String()) })),
});

/** A /chat body as validated (a /chat/stream body is the same without agent_id and images). */
export type ChatBodyValue = typeof ChatBody.static;
