// The email series dashboard API: /api/campaigns. Roles automation:view (read,
// preview) and automation:manage (create, edit, activate, pause, archive, enrol and remove
// customers). Every route validates with TypeBox, asks requireMember who acts for which org, and
// calls one function of src/campaigns/ (lifecycle.ts, enrolments.ts) with that org and actor.
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { findEndUser } from "../customers/records.ts";
import { CampaignOut, CampaignRef, CreateCampaign, EditCampaign, EnrolmentOut, EnrolmentPage, MessagePage, PreviewOut } from "./schemas.ts";
import { enrolCustomer, removeCustomer } from "./enrolments.ts";
import { campaignOr404, createCampaign, editCampaign, setCampaignStatus } from "./lifecycle.ts";
import { CAMPAIGN_LIMITS, CAMPAIGN_STATUSES, campaignView, ENROLMENT_STATES, enrolmentView } from "./model.ts";
import { enrolmentCounts, listCampaigns, listEnrolments, listMessages, previewCampaign } from "./queries.ts";

const tags = ["Email series"];
const Ref = t.Object({ id: CampaignRef });
const Cursor = t.String({ minLength: 1, maxLength: 128 });
const Limit = t.Integer({ minimum: 1, maximum: CAMPAIGN_LIMITS.pageSize });
const CustomerRef = t.String({ minLength: 1, maxLength: 256, description: "The customer's id or the org's user_id for them." });
const OUTBOX_STATUSES = ["pending", "sending", "parked", "sent", "held", "failed", "cancelled"] as const;

function json(value: unknown, status = 200): Response {
  return new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
}

export function campaignRoutes(deps: Pick<Deps, "config" | "db" | "now">) {
  const member = async (request: Request, role: "automation:view" | "automation:manage") => {
    const { principal, orgId } = await requireMember(deps, request, role);
    return { orgId, actor: memberActor(principal.member.id) };
  };
  const detail = async (orgId: string, campaign: Parameters<typeof campaignView>[0]) => campaignView(campaign, await enrolmentCounts(deps, orgId, campaign.id));
  const customerOr404 = async (orgId: string, ref: string) => {
    const user = await findEndUser(deps, orgId, ref);
    if (!user) throw AppError.notFound(`No customer ${ref.slice(0, 256)}.`);
    return user;
  };

  return new Elysia({ name: "campaigns" })
    .get(
      "/api/campaigns",
      async ({ query, request }) => {
        const { orgId } = await member(request, "automation:view");
        return { campaigns: (await listCampaigns(deps, orgId, query.status)).map((c) => campaignView(c)) };
      },
      {
        query: t.Object({ status: t.Optional(t.Union(CAMPAIGN_STATUSES.map((s) => t.Literal(s)))) }),
        response: { 200: t.Object({ campaigns: t.Array(CampaignOut) }) },
        detail: { summary: "List campaigns", description: `Newest first; an org has at most ${CAMPAIGN_LIMITS.campaignsPerOrg}. Role automation:view.`, tags },
      },
    )
    .post(
      "/api/campaigns",
      async ({ body, request }) => {
        const { orgId, actor } = await member(request, "automation:manage");
        return json(await detail(orgId, await createCampaign(deps, { orgId, actor, input: body })), 201);
      },
      {
        body: CreateCampaign,
        response: { 201: CampaignOut },
        detail: { summary: "Create a campaign (as a draft)", description: "Role automation:manage.", tags },
      },
    )
    .get(
      "/api/campaigns/:id",
      async ({ params, request }) => {
        const { orgId } = await member(request, "automation:view");
        return detail(orgId, await campaignOr404(deps, orgId, params.id));
      },
      { params: Ref, response: { 200: CampaignOut }, detail: { summary: "Read a campaign with its steps and enrolment counts", tags } },
    )
    .patch(
      "/api/campaigns/:id",
      async ({ params, body, request }) => {
        const { orgId, actor } = await member(request, "automation:manage");
        return detail(orgId, await editCampaign(deps, { orgId, actor, ref: params.id, patch: body }));
      },
      {
        params: Ref,
        body: EditCampaign,
        response: { 200: CampaignOut },
        detail: {
          summary: "Edit a campaign",
          description:
            "Steps are replaced by the list given; a step keeps its identity by its id, so an edit never resends a step already sent. Archived campaigns cannot be edited.",
          tags,
        },
      },
    )
    .post(
      "/api/campaigns/:id/preview",
      async ({ params, body, request }) => {
        const { orgId } = await member(request, "automation:view");
        return previewCampaign(deps, orgId, await campaignOr404(deps, orgId, params.id), body?.customer_id);
      },
      {
        params: Ref,
        body: t.Optional(t.Object({ customer_id: t.Optional(CustomerRef) }, { additionalProperties: false })),
        response: { 200: PreviewOut },
        detail: { summary: "Render every step for a customer (or a sample one) without sending", tags },
      },
    )
    .post(
      "/api/campaigns/:id/activate",
      async ({ params, request }) => {
        const { orgId, actor } = await member(request, "automation:manage");
        return detail(orgId, await setCampaignStatus(deps, { orgId, actor, ref: params.id, to: "active" }));
      },
      { params: Ref, response: { 200: CampaignOut }, detail: { summary: "Activate (or resume) a campaign: it starts sending", tags } },
    )
    .post(
      "/api/campaigns/:id/pause",
      async ({ params, request }) => {
        const { orgId, actor } = await member(request, "automation:manage");
        return detail(orgId, await setCampaignStatus(deps, { orgId, actor, ref: params.id, to: "paused" }));
      },
      { params: Ref, response: { 200: CampaignOut }, detail: { summary: "Pause a campaign: nothing is sent, everyone keeps their place", tags } },
    )
    .post(
      "/api/campaigns/:id/archive",
      async ({ params, request }) => {
        const { orgId, actor } = await member(request, "automation:manage");
        return detail(orgId, await setCampaignStatus(deps, { orgId, actor, ref: params.id, to: "archived" }));
      },
      { params: Ref, response: { 200: CampaignOut }, detail: { summary: "Archive a campaign for good: queued messages are cancelled", tags } },
    )
    .get(
      "/api/campaigns/:id/enrolments",
      async ({ params, query, request }) => {
        const { orgId } = await member(request, "automation:view");
        const campaign = await campaignOr404(deps, orgId, params.id);
        return listEnrolments(deps, orgId, campaign.id, { state: query.state, limit: query.limit, cursor: query.cursor });
      },
      {
        params: Ref,
        query: t.Object({ state: t.Optional(t.Union(ENROLMENT_STATES.map((s) => t.Literal(s)))), limit: t.Optional(Limit), cursor: t.Optional(Cursor) }),
        response: { 200: EnrolmentPage },
        detail: { summary: "The customers enrolled, with their state (active, completed, removed, unsubscribed)", tags },
      },
    )
    .post(
      "/api/campaigns/:id/enrolments",
      async ({ params, body, request }) => {
        const { orgId, actor } = await member(request, "automation:manage");
        const campaign = await campaignOr404(deps, orgId, params.id);
        const { enrolment, created } = await enrolCustomer(deps, {
          orgId,
          actor,
          campaign,
          endUser: await customerOr404(orgId, body.customer_id),
          source: "api",
        });
        return json(enrolmentView(enrolment), created ? 201 : 200);
      },
      {
        params: Ref,
        body: t.Object({ customer_id: CustomerRef }, { additionalProperties: false }),
        response: { 200: EnrolmentOut, 201: EnrolmentOut },
        detail: { summary: "Enrol a customer (idempotent); only active campaigns accept enrolments", tags },
      },
    )
    .delete(
      "/api/campaigns/:id/enrolments/:customer",
      async ({ params, request }) => {
        const { orgId, actor } = await member(request, "automation:manage");
        const campaign = await campaignOr404(deps, orgId, params.id);
        const enrolment = await removeCustomer(deps, { orgId, actor, campaign, endUser: await customerOr404(orgId, params.customer) });
        if (!enrolment) throw AppError.notFound("That customer is not enrolled in this campaign.");
        return enrolmentView(enrolment);
      },
      {
        params: t.Object({ id: CampaignRef, customer: CustomerRef }),
        response: { 200: EnrolmentOut },
        detail: { summary: "Remove a customer: no further step is sent", tags },
      },
    )
    .get(
      "/api/campaigns/:id/messages",
      async ({ params, query, request }) => {
        const { orgId } = await member(request, "automation:view");
        const campaign = await campaignOr404(deps, orgId, params.id);
        const customer = query.customer ? (await customerOr404(orgId, query.customer)).id : undefined;
        return listMessages(deps, orgId, campaign.id, { status: query.status, customerId: customer, limit: query.limit, cursor: query.cursor });
      },
      {
        params: Ref,
        query: t.Object({
          status: t.Optional(t.Union(OUTBOX_STATUSES.map((s) => t.Literal(s)))),
          customer: t.Optional(CustomerRef),
          limit: t.Optional(Limit),
          cursor: t.Optional(Cursor),
        }),
        response: { 200: MessagePage },
        detail: {
          summary: "The campaign's outbox: every rendered message with its delivery status",
          description:
            'status is pending, sending, parked (campaign paused), sent, held (not sent on purpose; reason e.g. "not sent: no SMTP configured"), failed or cancelled; reason says why.',
          tags,
        },
      },
    );
}
