// The wire shapes of campaigns, once, for the dashboard API (Elysia/TypeBox, published in the
// OpenAPI document) and the automation_* tools (src/campaigns/tools.ts declares its arguments with them).
import { t, type TSchema } from "elysia";
import { AUDIENCE_OPS, CAMPAIGN_LIMITS, CAMPAIGN_SLUG } from "./model.ts";

const Scalar = t.Union([t.String({ maxLength: CAMPAIGN_LIMITS.value }), t.Number(), t.Boolean()]);

export const StepInput = t.Object(
  {
    id: t.Optional(
      t.String({
        minLength: 1,
        maxLength: 64,
        description: "An existing step's id, to keep that step (and who received it) across an edit. Omit for a new step.",
      }),
    ),
    delay_seconds: t.Integer({
      minimum: 0,
      maximum: CAMPAIGN_LIMITS.delaySeconds,
      description: "Seconds to wait, after the anchor named by delay_from (0 to 365 days).",
    }),
    delay_from: t.Optional(
      t.Union([t.Literal("enrolment"), t.Literal("previous")], {
        description: "enrolment: after the customer was enrolled; previous (default): after the previous step was queued.",
      }),
    ),
    subject: t.String({
      minLength: 1,
      maxLength: CAMPAIGN_LIMITS.subject,
      description: 'Subject line; variables allowed, e.g. "Welcome, {{first_name | \\"friend\\"}}".',
    }),
    body: t.String({
      minLength: 1,
      maxLength: CAMPAIGN_LIMITS.body,
      description:
        "Markdown. Variables: {{name}}, {{first_name}}, {{email}}, {{user_id}}, {{company.name}}, " +
        '{{traits.<key>}}, {{company.traits.<key>}}, each with an optional fallback: {{name | "there"}}.',
    }),
  },
  { additionalProperties: false },
);

export const AudienceInput = t.Object(
  {
    all: t.Array(
      t.Object(
        {
          trait: t.String({ minLength: 1, maxLength: CAMPAIGN_LIMITS.traitPath, description: "A trait key, or a dotted path such as plan.tier." }),
          op: t.Union(AUDIENCE_OPS.map((o) => t.Literal(o))),
          value: t.Optional(
            t.Union([Scalar, t.Array(Scalar, { minItems: 1, maxItems: CAMPAIGN_LIMITS.inValues })], {
              description: "Absent for exists/not_exists; a list for in.",
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: CAMPAIGN_LIMITS.conditions },
    ),
  },
  {
    additionalProperties: false,
    description: "Automatic enrolment: customers (with an email address) whose traits satisfy every condition are enrolled while the campaign is active.",
  },
);

export const SenderInput = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: CAMPAIGN_LIMITS.senderName, description: "Display name in From: (the address is the operator's MAIL_FROM)." }),
    reply_to: t.Optional(t.Union([t.String({ maxLength: 320 }), t.Null()], { description: "Where replies go." })),
  },
  { additionalProperties: false },
);

const Steps = t.Array(StepInput, { maxItems: CAMPAIGN_LIMITS.steps, description: "The ordered steps. On edit, the full new list." });

export const CreateCampaign = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: CAMPAIGN_LIMITS.name }),
    slug: t.Optional(
      t.String({
        pattern: CAMPAIGN_SLUG.source,
        maxLength: CAMPAIGN_LIMITS.slug,
        description: "Stable name for the SDK; derived from the name when omitted. Never changes.",
      }),
    ),
    steps: t.Optional(Steps),
    audience: t.Optional(t.Union([AudienceInput, t.Null()])),
    sender: t.Optional(SenderInput),
  },
  { additionalProperties: false },
);

export const EditCampaign = t.Object(
  {
    name: t.Optional(t.String({ minLength: 1, maxLength: CAMPAIGN_LIMITS.name })),
    steps: t.Optional(Steps),
    audience: t.Optional(t.Union([AudienceInput, t.Null()])),
    sender: t.Optional(SenderInput),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const CampaignRef = t.String({ minLength: 1, maxLength: 64, description: "The campaign's id or slug." });

const Step = t.Object({ id: t.String(), position: t.Integer(), delay_seconds: t.Integer(), delay_from: t.String(), subject: t.String(), body: t.String() });
export const CampaignOut = t.Object({
  id: t.String(),
  slug: t.String(),
  name: t.String(),
  status: t.String({ description: "draft, active, paused or archived" }),
  sender: t.Object({ name: t.String(), reply_to: t.Union([t.String(), t.Null()]) }),
  audience: t.Union([t.Object({ all: t.Array(t.Object({ trait: t.String(), op: t.String(), value: t.Optional(t.Unknown()) })) }), t.Null()]),
  steps: t.Array(Step),
  enrolments: t.Optional(t.Record(t.String(), t.Integer(), { description: "Enrolments by state." })),
  created_at: t.String(),
  updated_at: t.String(),
});

const Nullable = (schema: TSchema) => t.Union([schema, t.Null()]);

export const EnrolmentOut = t.Object({
  id: t.String(),
  campaign_id: t.String(),
  customer: t.Object({ id: t.String(), email: t.Optional(Nullable(t.String())), user_id: t.Optional(Nullable(t.String())), name: t.Optional(t.String()) }),
  state: t.String({ description: "active, completed, removed or unsubscribed" }),
  source: t.String({
    description: "api, sdk, tool, audience, or opt-in (requested by email through the SDK, confirmed through the link mailed to the address)",
  }),
  enrolled_at: t.String(),
  last_step_at: Nullable(t.String()),
  next_check_at: Nullable(t.String({ description: "When the next step is due (or the sender looks again)." })),
});

export const EnrolmentPage = t.Object({ enrolments: t.Array(EnrolmentOut), next_cursor: Nullable(t.String()) });

export const MessageOut = t.Object({
  id: t.String(),
  message_id: t.String({ description: "The Message-ID header, stable across retries." }),
  customer_id: t.String(),
  to: Nullable(t.String()),
  step_id: t.String(),
  subject: t.String(),
  text: t.String(),
  html: t.String(),
  status: t.String({ description: "pending, sending, parked, sent, held, failed or cancelled" }),
  reason: Nullable(t.String({ description: 'Why it is not sent, e.g. "not sent: no SMTP configured", or why the last attempt failed.' })),
  attempts: t.Integer(),
  next_attempt_at: Nullable(t.String()),
  created_at: t.String(),
  sent_at: Nullable(t.String()),
});

export const MessagePage = t.Object({ messages: t.Array(MessageOut), next_cursor: Nullable(t.String()) });

export const PreviewOut = t.Object({
  campaign_id: t.String(),
  customer: t.Object({ sample: t.Boolean(), id: t.Optional(t.String()), name: t.String(), email: Nullable(t.String()) }),
  steps: t.Array(
    t.Object({ step_id: t.String(), position: t.Integer(), seconds_after_enrolment: t.Number(), subject: t.String(), text: t.String(), html: t.String() }),
  ),
});
