// The TypeBox schemas of every /api/sdk payload (README "Widget SDK"). The routes validate with them and
// GET /api/openapi.json is generated from them (src/openapi.ts), so the document cannot drift from
// what is enforced. Shapes the spec leaves "not shown" follow what Intercom and Chatwoot SDK users
// expect (docs/decisions.md "Widget SDK payloads").
import { t } from "elysia";
import { FreeForm } from "../http/free-form.ts";
import { CHAT_LIMITS } from "../conversations/input.ts";
import { TICKET_LIMITS } from "../inbox/tickets.ts";
import { IDENTITY_LIMITS } from "./identity.ts";
import { WidgetVoiceConfig } from "../agents/voice-config.ts";

export const SDK_LIMITS = {
  /** Events per POST /api/sdk/events. */
  eventsPerBatch: 100,
  eventName: 100,
  /** `properties` of one event: serialised size and nesting. */
  eventPropertiesBytes: 4096,
  eventPropertiesDepth: 4,
  /** anonymous_id and session_id. */
  visitorId: 128,
  /** How far in the future `occurred_at` may be (client clocks drift). */
  futureSkewSeconds: 300,
} as const;

const SESSION_LINK =
  "A chat session id (X-Session-Id): the event is linked to that conversation. Only the conversation is stored, " +
  "never the session id; an id this organisation has no session for links nothing.";
const ExternalId = (description: string) => t.String({ minLength: 1, maxLength: IDENTITY_LIMITS.externalId, description });
const UserToken = t.String({
  minLength: 1,
  maxLength: IDENTITY_LIMITS.token,
  description:
    "JWT signed HS256 with the organisation's identity secret, carrying `user_id` (equal to the request's) and `exp`; " +
    "may carry trusted claims email, name, role, plan, company_id, which override the request's values (docs/interface.md 5).",
});
const Email = t.String({ minLength: 3, maxLength: IDENTITY_LIMITS.email, pattern: "^[^\\s@]+@[^\\s@]+$", description: "Stored lower-cased." });
const Name = t.String({ maxLength: IDENTITY_LIMITS.name });
const CustomFields = FreeForm(
  {},
  { description: "Key/value traits merged into the stored ones; the request wins on conflict. At most 8 levels deep and 16384 bytes as JSON." },
);

export const IdentifyUserBody = t.Object(
  {
    user_id: ExternalId("Your id of the user. `anonymous` is refused here: anonymous visitors need no identify."),
    user_token: t.Optional(UserToken),
    email: t.Optional(Email),
    name: t.Optional(Name),
    company_id: t.Optional(ExternalId("Your id of the user's company; the company is created when new.")),
    custom_fields: t.Optional(CustomFields),
    session_id: t.Optional(
      t.String({
        minLength: 1,
        maxLength: CHAT_LIMITS.sessionId,
        description:
          "The chat session (X-Session-Id) this visitor started before being identified: it becomes this customer's, " +
          "under the chat's session rules, and its waiting ticket (one with no customer, or only an address left at hand-off) gets this customer.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const IdentifyCompanyBody = t.Object(
  {
    company_id: ExternalId("Your id of the company."),
    name: t.Optional(Name),
    custom_fields: t.Optional(CustomFields),
    user_id: t.Optional(ExternalId("Links this user to the company (same identity rules as users/identify).")),
    user_token: t.Optional(UserToken),
  },
  {
    additionalProperties: false,
    description:
      "Identity verification off: a request without a user_token whose company_id claim names this company writes only companies nobody vouched for. " +
      "A company the organisation vouched for (created or written through the dashboard, " +
      "POST /api/customers or an import, or by such a token) is left unchanged, and the answer is the same.",
  },
);

export const SdkEvent = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: SDK_LIMITS.eventName, pattern: "^[^\\x00-\\x1f\\x7f]+$", description: "e.g. `page_viewed`, `plan_upgraded`." }),
    user_id: t.Optional(ExternalId("Whose event; defaults to the batch's user_id. A user_id other than the batch's is unverified.")),
    anonymous_id: t.Optional(t.String({ minLength: 1, maxLength: SDK_LIMITS.visitorId, description: "The widget's visitor id before identification." })),
    session_id: t.Optional(t.String({ minLength: 1, maxLength: SDK_LIMITS.visitorId, description: SESSION_LINK })),
    properties: t.Optional(FreeForm({ maxBytes: SDK_LIMITS.eventPropertiesBytes, maxDepth: SDK_LIMITS.eventPropertiesDepth })),
    occurred_at: t.Optional(
      t.String({ format: "date-time", description: `RFC 3339; default the time of receipt; at most ${SDK_LIMITS.futureSkewSeconds} s in the future.` }),
    ),
  },
  { additionalProperties: false },
);

export const EventsBody = t.Object(
  {
    events: t.Array(SdkEvent, { minItems: 1, maxItems: SDK_LIMITS.eventsPerBatch }),
    user_id: t.Optional(ExternalId("The user every event without its own user_id belongs to.")),
    user_token: t.Optional(UserToken),
    anonymous_id: t.Optional(t.String({ minLength: 1, maxLength: SDK_LIMITS.visitorId })),
    session_id: t.Optional(t.String({ minLength: 1, maxLength: SDK_LIMITS.visitorId, description: SESSION_LINK })),
  },
  { additionalProperties: false },
);

export const CreateTicketBody = t.Object(
  {
    subject: t.String({ minLength: 1, maxLength: TICKET_LIMITS.subject }),
    message: t.String({ minLength: 1, maxLength: TICKET_LIMITS.body, description: "The customer's first message." }),
    user_id: t.Optional(ExternalId("The customer; same identity rules as users/identify.")),
    user_token: t.Optional(UserToken),
    email: t.Optional(Email),
    name: t.Optional(Name),
    priority: t.Optional(t.Union([t.Literal("low"), t.Literal("normal"), t.Literal("high"), t.Literal("urgent")])),
    custom_fields: t.Optional(CustomFields),
    session_id: t.Optional(t.String({ minLength: 1, maxLength: 256, description: "A chat session id (X-Session-Id): links the ticket to that conversation." })),
  },
  { additionalProperties: false },
);

export const ConfigQuery = t.Object({
  org_id: t.String({ format: "uuid", description: "The organisation's id." }),
  locale: t.Optional(
    t.String({
      maxLength: 35,
      description:
        "The customer's language as a BCP 47 tag (`es`, `pt-BR`): the snippet's `data-locale`, `identify()`'s `locale`, " +
        "else the browser's. Not a tag, or absent: the organisation's default language (README \"Languages\").",
    }),
  ),
});

// Responses

const CompanyRef = t.Object({ id: t.String({ format: "uuid" }), company_id: t.String() });

export const SdkUser = t.Object(
  {
    id: t.String({ format: "uuid", description: "Our id of the customer (or of the unverified visitor)." }),
    user_id: t.String(),
    email: t.Union([t.String(), t.Null()]),
    name: t.String(),
    custom_fields: t.Record(t.String(), t.Unknown()),
    company: t.Union([CompanyRef, t.Null()]),
    verified: t.Boolean({ description: "Whether a valid user_token proved this identity." }),
    created_at: t.String({ format: "date-time" }),
    updated_at: t.String({ format: "date-time" }),
  },
  {
    description:
      "A verified request (valid user_token) gets the customer as stored. An unverified one gets what it sent itself (email, name, custom_fields, " +
      "the company it named; created_at and updated_at the time of the request), " +
      "never what the record held before: anyone holding the public key can claim any user_id.",
  },
);

export const SdkCompany = t.Object({
  id: t.String({ format: "uuid" }),
  company_id: t.String(),
  user: t.Optional(t.Object({ id: t.String({ format: "uuid" }), user_id: t.String(), verified: t.Boolean() })),
});

export const EventsAccepted = t.Object({
  accepted: t.Integer({ minimum: 1, description: "How many events were stored (all of them: a batch is accepted whole or refused)." }),
});

export const SdkTicket = t.Object({
  id: t.String({ format: "uuid" }),
  number: t.Integer({ description: 'Per organisation, from 1: what the customer quotes ("#42").' }),
  subject: t.String(),
  status: t.String(),
  priority: t.String(),
  session_id: t.Union([t.String(), t.Null()], { description: "The chat session the ticket is linked to, when one was given." }),
  created_at: t.String({ format: "date-time" }),
});

export const SdkConfig = t.Object({
  agent: t.Object({
    id: t.String({ format: "uuid" }),
    name: t.String(),
    skills: t.Array(t.String()),
    avatar_config: t.Record(t.String(), t.Unknown()),
    voice_config: WidgetVoiceConfig,
    flow_config: t.Object({ steps: t.Array(t.Unknown()), custom_variables: t.Array(t.Unknown()) }),
    live_help_label: t.String(),
    video_display_mode: t.String(),
    status: t.String(),
  }),
  organization: t.Object({ name: t.String(), settings: t.Record(t.String(), t.Unknown()) }),
  language: t.String({ description: "The language the widget speaks (ISO 639-1): `locale` when it is a tag, else the organisation's default." }),
  dir: t.Union([t.Literal("ltr"), t.Literal("rtl")], { description: "`rtl` for a language written right to left (Arabic, Hebrew…)." }),
  texts: t.Record(t.String(), t.String(), {
    description:
      "Every `widget.*` sentence in `language` (English where there is no catalogue for it), " +
      "the organisation's overrides applied, as ICU message format with `{placeholders}` for the widget to fill.",
  }),
});
