// Email series: audience rules — conditions on customers' traits, counted for the dashboard and
// applied to active campaigns at most once a minute by whichever sender claims them.
import { and, eq, inArray, isNotNull, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import { recordActivity } from "../activity/log.ts";
import { audienceMatches } from "../customers/queries.ts";
import { type AudienceRule, campaignEnrolments, campaigns, mailUnsubscribes } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { type Campaign, SYSTEM_SENDER } from "./model.ts";

/**
 * Who an audience rule can enrol in an org: verified customers with an email address who match the
 * rule (customers/queries.ts) and have not unsubscribed. One statement for the sweep and for the
 * dashboard's count, selecting `id`.
 */
function audienceEligible(orgId: string, rule: AudienceRule): SQL {
  return sql`select matched.id from (${audienceMatches(orgId, rule)}) matched
      where not exists (select 1 from ${mailUnsubscribes} where ${mailUnsubscribes.orgId} = ${orgId} and ${mailUnsubscribes.endUserId} = matched.id)`;
}

/**
 * How many customers an audience rule matches now (those it can enrol, see audienceEligible),
 * counting at most `cap`: the dashboard shows it beside the rule. It reads what one audience sweep
 * reads, and stops counting at the cap; `capped` says there are at least that many.
 */
export async function countAudience(deps: Pick<Deps, "db">, orgId: string, rule: AudienceRule, cap = 1_000): Promise<{ count: number; capped: boolean }> {
  const rows = await deps.db.execute(sql`select count(*)::int as n from (${audienceEligible(orgId, rule)} limit ${cap + 1}) eligible`);
  const [row] = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as { n: number | string }[];
  const n = Number(row?.n ?? 0);
  return { count: Math.min(n, cap), capped: n > cap };
}

/**
 * Automatic enrolment: every verified customer of the org who matches the rule, has an email address, has
 * not unsubscribed and was never enrolled in this campaign is enrolled now (one statement; a
 * customer removed earlier stays removed). Returns how many were enrolled.
 */
export async function sweepAudience(deps: Pick<Deps, "db" | "now">, campaign: Campaign): Promise<number> {
  if (!campaign.audience || campaign.status !== "active") return 0;
  const now = deps.now().toISOString();
  const rows = await deps.db.execute(sql`
    insert into ${campaignEnrolments} (org_id, campaign_id, end_user_id, state, source, enrolled_at, wake_at, updated_at)
    select ${campaign.orgId}, ${campaign.id}, eligible.id, 'active', 'audience', ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
    from (${audienceEligible(campaign.orgId, campaign.audience)}) eligible
    on conflict (campaign_id, end_user_id) do nothing
    returning id`);
  await deps.db.update(campaigns).set({ audienceSweptAt: deps.now() }).where(eq(campaigns.id, campaign.id));
  const enrolled = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows).length;
  if (enrolled > 0)
    await recordActivity(deps, {
      orgId: campaign.orgId,
      actor: { kind: "system", name: SYSTEM_SENDER },
      action: "campaign.audience_enrolled",
      objectType: "campaign",
      objectId: campaign.id,
      summary: { enrolled },
    });
  return enrolled;
}

const AUDIENCE_SWEEP_MS = 60_000;

/**
 * Applies the audience rules that are due (each active campaign's at most once a minute): one
 * campaign at a time is claimed with SKIP LOCKED and marked swept, so with several senders each
 * sweep runs once. Returns how many campaigns were swept.
 */
export async function sweepDueAudiences(deps: Pick<Deps, "db" | "now">, max = 50): Promise<number> {
  let swept = 0;
  for (; swept < max; swept++) {
    const now = deps.now();
    const due = deps.db
      .select({ id: campaigns.id })
      .from(campaigns)
      .where(
        and(
          eq(campaigns.status, "active"),
          isNotNull(campaigns.audience),
          or(isNull(campaigns.audienceSweptAt), lte(campaigns.audienceSweptAt, new Date(now.getTime() - AUDIENCE_SWEEP_MS))),
        ),
      )
      .limit(1)
      .for("update", { skipLocked: true });
    const [campaign] = await deps.db.update(campaigns).set({ audienceSweptAt: now }).where(inArray(campaigns.id, due)).returning();
    if (!campaign) break;
    await sweepAudience(deps, campaign);
  }
  return swept;
}
