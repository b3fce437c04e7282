// Email series: a campaign's lifecycle — create, edit, and draft → active ⇄ paused → archived
// (archived is final; only active campaigns send). Pausing parks the messages already queued and
// stops new ones; activating releases them and everyone resumes where they were. Steps keep their
// ids across edits and a message is unique per (enrolment, step), so an edit never resends a step
// already sent. Every change takes an actor and is recorded in the activity log.
import { and, count, eq, type SQL } from "drizzle-orm";
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import { campaignEnrolments, campaignMessages, campaigns } from "../db/schema/index.ts";
import type { Tx } from "../db/client.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import { cancelQueued, parkPending, releaseParked } from "../outbox/outbox.ts";
import { sweepAudience } from "./audience.ts";
import { lockedOrgName } from "../tenancy/orgs.ts";
import {
  CAMPAIGN_LIMITS,
  CAMPAIGN_SLUG,
  type Campaign,
  type CampaignInput,
  type CampaignPatch,
  invalid,
  slugFrom,
  validateAudience,
  validateSender,
  validateSteps,
} from "./model.ts";

// ---------- reading ----------

/** A campaign by id or slug, in this org only. */
export async function findCampaign(deps: Pick<Deps, "db">, orgId: string, ref: string): Promise<Campaign | null> {
  if (ref.length === 0 || ref.length > 64) return null;
  const key = isUuid(ref) ? eq(campaigns.id, ref) : eq(campaigns.slug, ref);
  const [row] = await deps.db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.orgId, orgId), key))
    .limit(1);
  return row ?? null;
}

export async function campaignOr404(deps: Pick<Deps, "db">, orgId: string, ref: string): Promise<Campaign> {
  const campaign = await findCampaign(deps, orgId, ref);
  if (!campaign) throw AppError.notFound(`No campaign ${ref.slice(0, 64)}.`);
  return campaign;
}

// ---------- writing ----------

export interface Acting {
  orgId: string;
  actor: Actor;
}

export async function createCampaign(deps: Pick<Deps, "db" | "now">, { orgId, actor, input }: Acting & { input: CampaignInput }): Promise<Campaign> {
  if (input.name.trim() === "" || input.name.length > CAMPAIGN_LIMITS.name)
    invalid([{ path: "/name", message: `must be 1 to ${CAMPAIGN_LIMITS.name} characters` }]);
  if (input.slug !== undefined && !CAMPAIGN_SLUG.test(input.slug)) invalid([{ path: "/slug", message: `must match ${CAMPAIGN_SLUG.source}` }]);
  const steps = validateSteps(input.steps ?? [], []);
  const audience = validateAudience(input.audience);
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    // Serialise creations per org on the org row, so the per-org limit holds under concurrency.
    const orgName = await lockedOrgName(tx, orgId);
    if (orgName === null) throw AppError.notFound("No such organisation.");
    // Without a sender, mail comes from the org's name.
    const sender = validateSender(input.sender, orgName);
    const [{ n }] = (await tx.select({ n: count() }).from(campaigns).where(eq(campaigns.orgId, orgId))) as [{ n: number }];
    if (Number(n) >= CAMPAIGN_LIMITS.campaignsPerOrg)
      throw new AppError(409, "limit_reached", `An organisation has at most ${CAMPAIGN_LIMITS.campaignsPerOrg} campaigns (archived ones count).`);
    const slug = input.slug ?? slugFrom(input.name);
    const [row] = await tx
      .insert(campaigns)
      .values({ orgId, slug, name: input.name.trim(), status: "draft", steps, audience, sender, createdAt: now, updatedAt: now })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new AppError(409, "conflict", `A campaign with slug ${slug} exists.`, [{ path: "/slug", message: "is already used" }]);
    await recordActivity(
      { db: tx, now: deps.now },
      { orgId, actor, action: "campaign.created", objectType: "campaign", objectId: row.id, summary: { name: row.name, slug, steps: steps.length } },
    );
    return row;
  });
}

/** Re-examine every active enrolment of a campaign at the next tick (after an edit or activation). */
async function wakeEnrolments(tx: Tx, campaign: Campaign, now: Date) {
  await tx
    .update(campaignEnrolments)
    .set({ wakeAt: now })
    .where(and(eq(campaignEnrolments.orgId, campaign.orgId), eq(campaignEnrolments.campaignId, campaign.id), eq(campaignEnrolments.state, "active")));
}

export async function editCampaign(
  deps: Pick<Deps, "db" | "now">,
  { orgId, actor, ref, patch }: Acting & { ref: string; patch: CampaignPatch },
): Promise<Campaign> {
  return deps.db.transaction(async (tx) => {
    const found = await campaignOr404({ db: tx }, orgId, ref);
    const [campaign] = await tx.select().from(campaigns).where(eq(campaigns.id, found.id)).for("update");
    if (!campaign) throw AppError.notFound();
    if (campaign.status === "archived") throw new AppError(409, "campaign_archived", "An archived campaign cannot be edited.");
    if (patch.name !== undefined && (patch.name.trim() === "" || patch.name.length > CAMPAIGN_LIMITS.name))
      invalid([{ path: "/name", message: `must be 1 to ${CAMPAIGN_LIMITS.name} characters` }]);
    const steps = patch.steps !== undefined ? validateSteps(patch.steps, campaign.steps) : campaign.steps;
    if (campaign.status !== "draft" && steps.length === 0)
      invalid([{ path: "/steps", message: "must keep at least one step once the campaign has been activated" }]);
    const audience = patch.audience !== undefined ? validateAudience(patch.audience) : campaign.audience;
    const sender = patch.sender !== undefined ? validateSender(patch.sender, campaign.name) : campaign.sender;
    const now = deps.now();
    const [row] = await tx
      .update(campaigns)
      .set({
        name: patch.name?.trim() ?? campaign.name,
        steps,
        audience,
        sender,
        updatedAt: now,
        ...(patch.audience !== undefined ? { audienceSweptAt: null } : {}),
      })
      .where(eq(campaigns.id, campaign.id))
      .returning();
    if (patch.steps !== undefined) await wakeEnrolments(tx, campaign, now);
    await recordActivity(
      { db: tx, now: deps.now },
      {
        orgId,
        actor,
        action: "campaign.updated",
        objectType: "campaign",
        objectId: campaign.id,
        summary: {
          changed: Object.keys(patch).filter((k) => (patch as Record<string, unknown>)[k] !== undefined),
          steps: { before: campaign.steps.length, after: steps.length },
        },
      },
    );
    return row!;
  });
}

/** The outbox rows of the messages matching `where` (a campaign's, an enrolment's, a customer's), to park, release or cancel. */
export function outboxOf(tx: Tx, where: SQL) {
  return tx.select({ id: campaignMessages.outboxId }).from(campaignMessages).where(where);
}

export async function setCampaignStatus(
  deps: Pick<Deps, "db" | "now">,
  { orgId, actor, ref, to }: Acting & { ref: string; to: "active" | "paused" | "archived" },
): Promise<Campaign> {
  const campaign = await deps.db.transaction(async (tx) => {
    const found = await campaignOr404({ db: tx }, orgId, ref);
    const [current] = await tx.select().from(campaigns).where(eq(campaigns.id, found.id)).for("update");
    if (!current) throw AppError.notFound();
    if (current.status === to) return current; // idempotent
    if (current.status === "archived") throw new AppError(409, "campaign_archived", "An archived campaign cannot change status.");
    if (to === "paused" && current.status !== "active")
      throw new AppError(409, "campaign_not_active", `Only an active campaign can be paused (this one is ${current.status}).`);
    if (to === "active" && current.steps.length === 0)
      throw new AppError(409, "campaign_empty", "Add at least one step before activating the campaign.", [{ path: "/steps", message: "must not be empty" }]);
    const now = deps.now();
    const [row] = await tx
      .update(campaigns)
      .set({ status: to, updatedAt: now, ...(to === "active" ? { audienceSweptAt: null } : {}) })
      .where(eq(campaigns.id, current.id))
      .returning();
    const mine = and(eq(campaignMessages.orgId, orgId), eq(campaignMessages.campaignId, current.id))!;
    if (to === "active") {
      await releaseParked(tx, outboxOf(tx, mine), now);
      await wakeEnrolments(tx, current, now);
    } else if (to === "paused") await parkPending(tx, outboxOf(tx, mine), "campaign paused", now);
    else await cancelQueued(tx, outboxOf(tx, mine), "campaign archived", now);
    await recordActivity(
      { db: tx, now: deps.now },
      {
        orgId,
        actor,
        action: `campaign.${to === "active" ? "activated" : to}`,
        objectType: "campaign",
        objectId: current.id,
        summary: { from: current.status, to },
      },
    );
    return row!;
  });
  if (to === "active" && campaign.audience) await sweepAudience(deps, campaign);
  return campaign;
}
