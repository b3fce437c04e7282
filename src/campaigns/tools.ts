// Built-in family: email series (`automation_*`, docs/interface.md 2.3). Reads need
// automation:read, writes automation:write. They call the same functions as the dashboard API
// (src/campaigns/ (lifecycle.ts, enrolments.ts)) with the token (or agent) as the actor, so they land in the same
// tables and the same activity log, and their input schemas are the API's own (one source).
// Annotations are honest: activation starts mailing customers (destructiveHint); creating, editing
// and pausing a campaign reach no one.
//
// Customer binding: a call bound to a customer may preview only for that customer (a preview
// shows the customer's name and traits).
import { CampaignRef, CreateCampaign, EditCampaign } from "./schemas.ts";
import { campaignOr404, createCampaign, editCampaign, setCampaignStatus } from "./lifecycle.ts";
import { CAMPAIGN_STATUSES, campaignView } from "./model.ts";
import { enrolmentCounts, listCampaigns, previewCampaign } from "./queries.ts";
import { Arg, defineTool } from "../tools/define.ts";
import { type ToolContext, type ToolDefinition, ToolError } from "../tools/types.ts";

const source = { kind: "builtin" as const, label: "Email series" };
// The dashboard API's own schemas (one source), as the tools' arguments.
const campaign = CampaignRef;

async function detail(ctx: ToolContext, ref: string) {
  const found = await campaignOr404(ctx.deps, ctx.orgId, ref);
  return campaignView(found, await enrolmentCounts(ctx.deps, ctx.orgId, found.id));
}

/** outputSchema (2025-06-18+): a campaign as campaignView gives it. */
const campaignOutput = {
  type: "object" as const,
  properties: {
    id: { type: "string" },
    slug: { type: "string" },
    name: { type: "string" },
    status: { type: "string", enum: [...CAMPAIGN_STATUSES] },
    sender: { type: "object" },
    steps: { type: "array", items: { type: "object" } },
    enrolments: { type: "object", additionalProperties: { type: "integer" } },
    created_at: { type: "string", format: "date-time" },
    updated_at: { type: "string", format: "date-time" },
  },
  required: ["id", "slug", "name", "status", "sender", "steps", "created_at", "updated_at"],
};
const campaignsOutput = { type: "object" as const, properties: { campaigns: { type: "array", items: campaignOutput } }, required: ["campaigns"] };

export const automationTools: ToolDefinition[] = [
  defineTool({
    name: "automation_list_campaigns",
    description: "List the organisation's email series (campaigns) with their status and steps, newest first.",
    input: Arg.object({ status: Arg.optional(Arg.choice(CAMPAIGN_STATUSES)) }, { additionalProperties: false }),
    title: "List campaigns",
    readOnly: true,
    outputSchema: campaignsOutput,
    scope: "automation:read",
    source,
    async execute(ctx, args) {
      const rows = await listCampaigns(ctx.deps, ctx.orgId, args.status);
      return { value: { campaigns: rows.map((c) => campaignView(c)) } };
    },
  }),
  defineTool({
    name: "automation_get_campaign",
    description: "Get one campaign by id or slug: steps, audience rule, sender and how many customers are in each enrolment state.",
    input: Arg.object({ campaign }, { additionalProperties: false }),
    title: "Get a campaign",
    readOnly: true,
    outputSchema: campaignOutput,
    scope: "automation:read",
    source,
    async execute(ctx, args) {
      return { value: await detail(ctx, args.campaign) };
    },
  }),
  defineTool({
    name: "automation_create_campaign",
    description:
      "Create an email series as a draft (it sends nothing until activated). Steps are ordered; " +
      "each waits delay_seconds after enrolment or after the previous step; " +
      'bodies are markdown with variables such as {{first_name | "there"}} or {{traits.plan}}.',
    input: Arg.object(CreateCampaign.properties, { additionalProperties: false }),
    title: "Create a campaign",
    scope: "automation:write",
    source,
    async execute(ctx, args) {
      const created = await createCampaign(ctx.deps, { orgId: ctx.orgId, actor: ctx.actor, input: args });
      return { value: campaignView(created) };
    },
  }),
  defineTool({
    name: "automation_edit_campaign",
    description:
      "Edit a campaign's name, steps, audience rule or sender. steps replaces the whole list: " +
      "keep a step's id to keep it (a customer never receives a step twice); omit the id for a new step.",
    input: Arg.object({ campaign, ...EditCampaign.properties }, { minProperties: 2, additionalProperties: false }),
    title: "Edit a campaign",
    idempotent: true,
    scope: "automation:write",
    source,
    async execute(ctx, args) {
      const { campaign: ref, ...patch } = args;
      await editCampaign(ctx.deps, { orgId: ctx.orgId, actor: ctx.actor, ref, patch });
      return { value: await detail(ctx, ref) };
    },
  }),
  defineTool({
    name: "automation_preview_campaign",
    description: "Render every step of a campaign (subject, text and HTML) for a given customer, or a sample one, without sending anything.",
    input: Arg.object(
      {
        campaign,
        customer_id: Arg.optional(Arg.string({ minLength: 1, maxLength: 256, description: "A customer's id or user_id; a sample customer when omitted." })),
      },
      { additionalProperties: false },
    ),
    title: "Preview a campaign",
    readOnly: true,
    scope: "automation:read",
    source,
    async execute(ctx, args) {
      const found = await campaignOr404(ctx.deps, ctx.orgId, args.campaign);
      let customer = args.customer_id;
      if (ctx.boundCustomer) {
        if (customer !== undefined && customer !== ctx.boundCustomer.id && customer !== ctx.boundCustomer.externalId)
          throw new ToolError("not_found", `No customer ${customer}.`);
        customer = ctx.boundCustomer.id;
      }
      return { value: await previewCampaign(ctx.deps, ctx.orgId, found, customer) };
    },
  }),
  defineTool({
    name: "automation_activate_campaign",
    description: "Activate (or resume) a campaign: it starts emailing enrolled customers, and customers matching its audience rule are enrolled.",
    input: Arg.object({ campaign }, { additionalProperties: false }),
    title: "Activate a campaign",
    destructive: true,
    openWorld: true,
    scope: "automation:write",
    source,
    async execute(ctx, args) {
      const updated = await setCampaignStatus(ctx.deps, { orgId: ctx.orgId, actor: ctx.actor, ref: args.campaign, to: "active" });
      return { value: campaignView(updated, await enrolmentCounts(ctx.deps, ctx.orgId, updated.id)) };
    },
  }),
  defineTool({
    name: "automation_pause_campaign",
    description: "Pause an active campaign: nothing more is sent, and every customer keeps their place until it is activated again.",
    input: Arg.object({ campaign }, { additionalProperties: false }),
    title: "Pause a campaign",
    idempotent: true,
    scope: "automation:write",
    source,
    async execute(ctx, args) {
      const updated = await setCampaignStatus(ctx.deps, { orgId: ctx.orgId, actor: ctx.actor, ref: args.campaign, to: "paused" });
      return { value: campaignView(updated, await enrolmentCounts(ctx.deps, ctx.orgId, updated.id)) };
    },
  }),
];
