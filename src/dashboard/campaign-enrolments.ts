// Who is enrolled in a campaign (views/campaign-enrolments.ts): the state filter read from the query,
// one cursor page of enrolments, each customer named.
import { type Campaign } from "../campaigns/model.ts";
import { listEnrolments } from "../campaigns/queries.ts";
import { type DashboardContext, type Refused, shellPage } from "./kit/index.ts";
import { CUSTOMER_REF_MAX, customerLabel } from "./campaign-customers.ts";
import { CampaignEnrolments } from "./views/campaign-enrolments.ts";

const ENROLMENT_STATES = ["active", "completed", "removed", "unsubscribed"] as const;
const ENROLMENT_PAGE = 25;

export function enrolmentsPath(c: Campaign, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  if (query.state) params.set("state", query.state);
  if (query.cursor) params.set("cursor", query.cursor);
  const qs = params.toString();
  return `/dashboard/campaigns/${c.slug}/enrolments${qs ? `?${qs}` : ""}`;
}

export async function enrolmentsPage(ctx: DashboardContext, c: Campaign, query: Record<string, string | undefined>, form?: Refused): Promise<Response> {
  const state = (ENROLMENT_STATES as readonly string[]).includes(query.state ?? "") ? (query.state as (typeof ENROLMENT_STATES)[number]) : undefined;
  const page = await listEnrolments(ctx.deps, ctx.orgId, c.id, { state, cursor: query.cursor || undefined, limit: ENROLMENT_PAGE });
  const manage = ctx.can("automation:manage") && c.status !== "archived";
  const rows = page.enrolments.map((enrolment) => ({ enrolment, label: customerLabel(enrolment.customer as { name?: string; email?: string | null }) }));
  const body = CampaignEnrolments({
    campaign: c,
    states: ENROLMENT_STATES,
    state,
    query,
    rows,
    nextCursor: page.next_cursor,
    manage,
    values: form?.values ?? {},
    errors: form?.errors ?? {},
    refMax: CUSTOMER_REF_MAX,
  });
  return shellPage(ctx, { title: `Enrolled · ${c.name}`, active: "campaigns", body, status: form?.status ?? 200 });
}
