// One campaign's page (views/campaign-detail.ts): loads its enrolment counts and how many customers
// its audience rule matches now, and fills the steps form from the saved campaign unless a refused
// form comes back with what was typed.
import { countAudience } from "../campaigns/audience.ts";
import { type Campaign, CAMPAIGN_LIMITS } from "../campaigns/model.ts";
import { enrolmentCounts } from "../campaigns/queries.ts";
import { type DashboardContext, type FormValues, shellPage } from "./kit/index.ts";
import { audienceValues } from "./campaigns-audience.ts";
import { formatDelay } from "./campaign-delay.ts";
import { CampaignDetail, type FormState } from "./views/campaign-detail.ts";

const L = CAMPAIGN_LIMITS;

function stepValues(c: Campaign): FormValues {
  const v: FormValues = { name: c.name, sender_name: c.sender.name, reply_to: c.sender.replyTo ?? "", count: String(c.steps.length) };
  c.steps.forEach((s, i) => {
    v[`s${i}_id`] = s.id;
    v[`s${i}_delay`] = formatDelay(s.delaySeconds);
    v[`s${i}_from`] = s.delayFrom;
    v[`s${i}_subject`] = s.subject;
    v[`s${i}_body`] = s.body;
  });
  return v;
}

export async function campaignPage(ctx: DashboardContext, c: Campaign, form?: FormState, audience?: FormState): Promise<Response> {
  const counts = await enrolmentCounts(ctx.deps, ctx.orgId, c.id);
  const matching = c.audience ? await countAudience(ctx.deps, ctx.orgId, c.audience) : null;
  const canManage = ctx.can("automation:manage");
  const values = form?.values ?? stepValues(c);
  const stepCount = Math.min(Number(values.count ?? c.steps.length) || 0, L.steps);
  const body = CampaignDetail({
    campaign: c,
    counts,
    matching,
    canManage,
    manage: canManage && c.status !== "archived",
    form: { values, errors: form?.errors ?? {}, conflict: form?.conflict },
    stepCount,
    audience: { values: audience?.values ?? audienceValues(c.audience), errors: audience?.errors ?? {}, conflict: audience?.conflict },
    limits: L,
  });
  const state = form ?? audience;
  return shellPage(ctx, { title: c.name, active: "campaigns", body, status: state?.conflict ? 409 : state ? 400 : 200 });
}
