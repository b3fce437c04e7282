// Archiving a campaign asks first, on the kit's confirmation page: what it cancels, in numbers.
// setCampaignStatus(archived) cancels the campaign's pending and parked outbox rows in the same
// transaction; the mail sender checks the campaign again before each delivery, so a row claimed a
// moment earlier is cancelled too unless it is already being handed to the mail server.
import { setCampaignStatus } from "../campaigns/lifecycle.ts";
import { type Campaign, CAMPAIGN_LIMITS } from "../campaigns/model.ts";
import { enrolmentCounts, queuedMessageCount } from "../campaigns/queries.ts";
import { confirmPage, type DashboardContext, type FormValues, redirect } from "./kit/index.ts";
import { actor } from "./campaign-common.ts";
import { ArchiveConsequences } from "./views/campaign-archive.ts";

export async function archivePage(ctx: DashboardContext, c: Campaign, error?: string): Promise<Response> {
  if (c.status === "archived") return redirect(ctx.deps, `/dashboard/campaigns/${c.slug}`, `“${c.name}” is already archived.`);
  const [queued, counts] = await Promise.all([queuedMessageCount(ctx.deps, ctx.orgId, c.id), enrolmentCounts(ctx.deps, ctx.orgId, c.id)]);
  return confirmPage(ctx, {
    title: `Archive · ${c.name}`,
    heading: `Archive ${c.name}?`,
    active: "campaigns",
    back: { href: `/dashboard/campaigns/${c.slug}`, label: c.name },
    summary: "What archiving does",
    body: ArchiveConsequences({ queued, active: counts.active ?? 0, campaignsPerOrg: CAMPAIGN_LIMITS.campaignsPerOrg }),
    action: `/dashboard/campaigns/${c.slug}/archive`,
    word: "archive",
    button: "Archive campaign",
    busy: "Archiving…",
    error,
    status: error ? 400 : 200,
  });
}

/** Only the confirmation page's form archives; any other post gets that page, saying why. */
export async function archive(ctx: DashboardContext, c: Campaign, values: FormValues): Promise<Response> {
  if (values.confirm !== "archive") return archivePage(ctx, c, "Confirm with the Archive campaign button below.");
  await setCampaignStatus(ctx.deps, { orgId: ctx.orgId, actor: actor(ctx), ref: c.id, to: "archived" });
  return redirect(
    ctx.deps,
    `/dashboard/campaigns/${c.slug}`,
    c.status === "archived" ? `“${c.name}” is already archived.` : `“${c.name}” archived: its queued mail is cancelled and nothing more is sent.`,
  );
}
