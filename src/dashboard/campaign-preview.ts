// A campaign's preview: every step as one customer (or a sample one) would receive it, nothing
// sent (views/campaign-preview.ts). The HTML part of each step is served on its own and shown in a
// sandboxed frame.
import { type Campaign } from "../campaigns/model.ts";
import { previewCampaign } from "../campaigns/queries.ts";
import { type EndUser, findEndUser } from "../customers/records.ts";
import { AppError } from "../errors.ts";
import { DASHBOARD_CSP, type DashboardContext, shellPage } from "./kit/index.ts";
import { CUSTOMER_REF_MAX, customerByRef, customerLabel, customerRef } from "./campaign-customers.ts";
import { formatDelay } from "./campaign-delay.ts";
import { CampaignPreview } from "./views/campaign-preview.ts";

/**
 * The preview page may frame its own origin (the HTML part of each step, served by the route
 * below); everything else is the dashboard's policy.
 */
export const PREVIEW_PAGE_CSP = DASHBOARD_CSP.replace("frame-ancestors", "frame-src 'self'; frame-ancestors");

/**
 * The HTML part of a step, shown inside the preview page. The template is the org's own markdown
 * (raw HTML allowed, as in any email tool) and values from customers are escaped by the renderer;
 * still, a member who edits templates must not run script in the browser of a member who previews
 * them. So the document is sandboxed twice: the frame has `sandbox` without allow-scripts, and the
 * response's CSP carries `sandbox` too (also when opened on its own): no script, no form, no
 * plugin, an opaque origin without the dashboard's cookies. Inline styles and https images load,
 * as in a mail client; it may be framed only by the dashboard (frame-ancestors, X-Frame-Options).
 */
export const PREVIEW_HTML_CSP =
  "sandbox; default-src 'none'; img-src https: data:; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'";

function previewHtmlResponse(markup: string): Response {
  return new Response(markup, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": PREVIEW_HTML_CSP,
      "x-frame-options": "SAMEORIGIN",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
    },
  });
}

export async function previewPage(ctx: DashboardContext, c: Campaign, customer: string | undefined): Promise<Response> {
  let user: EndUser | null = null;
  let error: string | undefined;
  const named = customer?.trim() ? customerRef(customer) : null;
  if (named?.error) error = named.error;
  else if (named) {
    user = await customerByRef(ctx.deps, ctx.orgId, named.ref);
    if (!user) error = "No customer with this email address, id or external id.";
  }
  const preview = error ? null : await previewCampaign(ctx.deps, ctx.orgId, c, user?.id);
  const htmlSrc = (stepId: string) => `/dashboard/campaigns/${c.slug}/preview/${encodeURIComponent(stepId)}${user ? `?customer=${user.id}` : ""}`;
  const body = CampaignPreview({
    campaign: c,
    customer: customer ?? "",
    error,
    refMax: CUSTOMER_REF_MAX,
    preview: preview && {
      customer: { ...preview.customer, label: customerLabel(preview.customer) },
      steps: preview.steps.map((s) => ({
        stepId: s.step_id,
        position: s.position,
        when: s.seconds_after_enrolment === 0 ? "at enrolment" : `${formatDelay(s.seconds_after_enrolment)} after enrolment`,
        subject: s.subject,
        text: s.text,
        htmlSrc: htmlSrc(s.step_id),
      })),
    },
  });
  return shellPage(ctx, {
    title: `Preview · ${c.name}`,
    active: "campaigns",
    body,
    status: !error ? 200 : named?.error ? 400 : 404,
    headers: { "content-security-policy": PREVIEW_PAGE_CSP },
  });
}

/** The HTML part of one step for a customer (or the sample one), framed by the preview page. */
export async function previewHtml(ctx: DashboardContext, c: Campaign, stepId: string, customer: string | undefined): Promise<Response> {
  let userId: string | undefined;
  if (customer !== undefined && customer !== "") {
    const user = await findEndUser(ctx.deps, ctx.orgId, customer);
    if (!user) throw AppError.notFound("No such customer.");
    userId = user.id;
  }
  const step = c.steps.find((s) => s.id === stepId);
  if (!step) throw AppError.notFound("This campaign has no such step (it may have been removed).");
  // One frame per step: render that step only (its HTML does not depend on the others).
  const [preview] = (await previewCampaign(ctx.deps, ctx.orgId, { ...c, steps: [step] }, userId)).steps;
  return previewHtmlResponse(preview!.html);
}
