// Dashboard: campaigns (automation:view to read, automation:manage to change). The list with a
// create form (campaign-list.ts), a campaign with its steps and its audience rule
// (campaign-page.ts, posted to campaign-saves.ts), activate or pause, archive after a confirmation
// page (campaign-archive.ts), a preview of every step for a customer (campaign-preview.ts), who is
// enrolled (campaign-enrolments.ts, campaign-enrol.ts) and the campaign's messages in the outbox
// (campaign-messages.ts). Every action goes through src/campaigns/ (lifecycle.ts, enrolments.ts), as /api/campaigns does.
import { Elysia, t } from "elysia";
import { campaignOr404, setCampaignStatus } from "../campaigns/lifecycle.ts";
import { AppError } from "../errors.ts";
import { type DashboardDeps, formBody, formValues, redirect, withMember } from "./kit/index.ts";
import { archive, archivePage } from "./campaign-archive.ts";
import { actor } from "./campaign-common.ts";
import { CUSTOMER_REF_MAX } from "./campaign-customers.ts";
import { changeEnrolment } from "./campaign-enrol.ts";
import { enrolmentsPage } from "./campaign-enrolments.ts";
import { create, listPage } from "./campaign-list.ts";
import { messagesPage } from "./campaign-messages.ts";
import { campaignPage } from "./campaign-page.ts";
import { previewHtml, previewPage } from "./campaign-preview.ts";
import { saveAudience, saveSteps } from "./campaign-saves.ts";

export { formatDelay, parseDelay } from "./campaign-delay.ts";
export { PREVIEW_HTML_CSP, PREVIEW_PAGE_CSP } from "./campaign-preview.ts";

const ListQuery = t.Object({ status: t.Optional(t.String({ maxLength: 20 })), page: t.Optional(t.String({ maxLength: 10 })) });
const Ref = t.Object({ ref: t.String({ maxLength: 64 }) });
const FormBody = formBody({ text: 40_000, item: 300, items: 50 });

export function campaignPages(deps: DashboardDeps) {
  return new Elysia({ name: "dashboard-campaigns" })
    .get("/dashboard/campaigns", ({ request, query }) => withMember(deps, request, "automation:view", (ctx) => listPage(ctx, query)), { query: ListQuery })
    .post("/dashboard/campaigns", ({ request, body }) => withMember(deps, request, "automation:manage", (ctx) => create(ctx, formValues(body))), {
      body: FormBody,
    })
    .get(
      "/dashboard/campaigns/:ref",
      ({ request, params }) => withMember(deps, request, "automation:view", async (ctx) => campaignPage(ctx, await campaignOr404(deps, ctx.orgId, params.ref))),
      { params: Ref },
    )
    .post(
      "/dashboard/campaigns/:ref",
      ({ request, params, body }) =>
        withMember(deps, request, "automation:manage", async (ctx) => saveSteps(ctx, await campaignOr404(deps, ctx.orgId, params.ref), formValues(body))),
      { params: Ref, body: FormBody },
    )
    .post(
      "/dashboard/campaigns/:ref/status",
      ({ request, params, body }) =>
        withMember(deps, request, "automation:manage", async (ctx) => {
          const c = await campaignOr404(deps, ctx.orgId, params.ref);
          const to = formValues(body).to;
          if (to !== "active" && to !== "paused") return redirect(deps, `/dashboard/campaigns/${c.slug}`, { kind: "error", text: "Choose activate or pause." });
          try {
            await setCampaignStatus(deps, { orgId: ctx.orgId, actor: actor(ctx), ref: c.id, to });
          } catch (error) {
            // Not activatable (no steps) or not pausable (not active): said in the flash.
            if (error instanceof AppError && error.status === 409)
              return redirect(deps, `/dashboard/campaigns/${c.slug}`, { kind: "error", text: error.message });
            throw error;
          }
          return redirect(
            deps,
            `/dashboard/campaigns/${c.slug}`,
            to === "active" ? "Campaign activated." : "Campaign paused: its pending mail waits until you activate it again.",
          );
        }),
      { params: Ref, body: FormBody },
    )
    .post(
      "/dashboard/campaigns/:ref/audience",
      ({ request, params, body }) =>
        withMember(deps, request, "automation:manage", async (ctx) => saveAudience(ctx, await campaignOr404(deps, ctx.orgId, params.ref), formValues(body))),
      { params: Ref, body: FormBody },
    )
    .get(
      "/dashboard/campaigns/:ref/archive",
      ({ request, params }) =>
        withMember(deps, request, "automation:manage", async (ctx) => archivePage(ctx, await campaignOr404(deps, ctx.orgId, params.ref))),
      { params: Ref },
    )
    .post(
      "/dashboard/campaigns/:ref/archive",
      ({ request, params, body }) =>
        withMember(deps, request, "automation:manage", async (ctx) => archive(ctx, await campaignOr404(deps, ctx.orgId, params.ref), formValues(body))),
      { params: Ref, body: FormBody },
    )
    .get(
      "/dashboard/campaigns/:ref/preview",
      ({ request, params, query }) =>
        withMember(deps, request, "automation:view", async (ctx) => previewPage(ctx, await campaignOr404(deps, ctx.orgId, params.ref), query.customer)),
      // Longer than a customer reference may be, so a long one is answered next to the field.
      { params: Ref, query: t.Object({ customer: t.Optional(t.String({ maxLength: 1_024 })) }) },
    )
    .get(
      "/dashboard/campaigns/:ref/preview/:step",
      ({ request, params, query }) =>
        withMember(deps, request, "automation:view", async (ctx) =>
          previewHtml(ctx, await campaignOr404(deps, ctx.orgId, params.ref), params.step, query.customer),
        ),
      {
        params: t.Object({ ref: t.String({ maxLength: 64 }), step: t.String({ maxLength: 64 }) }),
        query: t.Object({ customer: t.Optional(t.String({ maxLength: CUSTOMER_REF_MAX })) }),
      },
    )
    .get(
      "/dashboard/campaigns/:ref/enrolments",
      ({ request, params, query }) =>
        withMember(deps, request, "automation:view", async (ctx) => enrolmentsPage(ctx, await campaignOr404(deps, ctx.orgId, params.ref), query)),
      { params: Ref, query: t.Object({ state: t.Optional(t.String({ maxLength: 20 })), cursor: t.Optional(t.String({ maxLength: 128 })) }) },
    )
    .post(
      "/dashboard/campaigns/:ref/enrolments",
      ({ request, params, body }) =>
        withMember(deps, request, "automation:manage", async (ctx) => changeEnrolment(ctx, await campaignOr404(deps, ctx.orgId, params.ref), formValues(body))),
      { params: Ref, body: FormBody },
    )
    .get(
      "/dashboard/campaigns/:ref/messages",
      ({ request, params, query }) =>
        withMember(deps, request, "automation:view", async (ctx) => messagesPage(ctx, await campaignOr404(deps, ctx.orgId, params.ref), query)),
      { params: Ref, query: t.Object({ status: t.Optional(t.String({ maxLength: 20 })), cursor: t.Optional(t.String({ maxLength: 128 })) }) },
    );
}
