// Email series (issue #13): one model behind the dashboard API (src/campaigns/routes.ts), the
// automation_* tools (src/campaigns/tools.ts) and POST /api/sdk/series
// (src/sdk/series-routes.ts). Every function takes the org explicitly; every state change takes
// an actor and is recorded in the activity log.
//
// Lifecycle: draft → active ⇄ paused → archived (archived is final). Only active campaigns send.
// Pausing parks the messages already queued and stops new ones; activating releases them and
// everyone resumes where they were. Steps keep their ids across edits and a message is unique per
// (enrolment, step), so an edit never resends a step already sent; a customer keeps their place:
// the next step is the one after the latest step they received, in the edited order.
import { randomBytes } from "node:crypto";
import { and, count, desc, eq, inArray, isNotNull, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import {
  type AudienceRule,
  campaignEnrolments,
  campaignMessages,
  type CampaignSender,
  type CampaignStatus,
  type CampaignStep,
  campaigns,
  companies,
  endUsers,
  type EnrolmentState,
  mailUnsubscribes,
  orgs,
  outbox,
} from "../db/schema/index.ts";
import type { Tx } from "../db/client.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorDetail } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import { cancelQueued, dropEnqueued, enqueue, parkPending, releaseParked } from "../outbox/outbox.ts";
import { findEndUser, type EndUser } from "../customers/records.ts";
import { renderStep, SAMPLE_CUSTOMER, type TemplateCustomer, templateProblems, UNSUBSCRIBE_MARK } from "./templates.ts";

export type Campaign = typeof campaigns.$inferSelect;
export type Enrolment = typeof campaignEnrolments.$inferSelect;

export const CAMPAIGN_STATUSES = ["draft", "active", "paused", "archived"] as const satisfies readonly CampaignStatus[];
export const ENROLMENT_STATES = ["active", "completed", "removed", "unsubscribed"] as const satisfies readonly EnrolmentState[];
export const AUDIENCE_OPS = ["eq", "neq", "exists", "not_exists", "in"] as const;

export const CAMPAIGN_LIMITS = {
  name: 200,
  slug: 64,
  steps: 20,
  subject: 200,
  body: 20_000,
  /** The longest delay: 365 days, in seconds. The shortest is 0 (delays are in seconds). */
  delaySeconds: 365 * 86_400,
  senderName: 100,
  conditions: 10,
  traitPath: 200,
  value: 200,
  inValues: 50,
  campaignsPerOrg: 200,
  pageSize: 100,
} as const;

/** Campaign slugs: lower-case letters, digits and hyphens, starting with a letter or digit. */
export const CAMPAIGN_SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
const TRAIT_PATH = /^[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9_-]{1,64}){0,3}$/;
/** The system actor of automatic enrolments (activity log). */
const SYSTEM_SENDER = "campaign-sender";

// ---------- input ----------

export interface StepInput {
  /** An existing step's id keeps that step's identity (and who has received it). */
  id?: string;
  delay_seconds: number;
  delay_from?: "enrolment" | "previous";
  subject: string;
  body: string;
}

type ScalarValue = string | number | boolean;
export interface AudienceInput {
  all: { trait: string; op: (typeof AUDIENCE_OPS)[number]; value?: ScalarValue | ScalarValue[] }[];
}

export interface CampaignInput {
  name: string;
  slug?: string;
  steps?: StepInput[];
  audience?: AudienceInput | null;
  sender?: { name: string; reply_to?: string | null };
}

export type CampaignPatch = Partial<Omit<CampaignInput, "slug">>;

function invalid(details: ErrorDetail[]): never {
  throw AppError.badRequest(details.map((d) => `${d.path} ${d.message}`).join("; "), details);
}

/**
 * Checks what a schema cannot: template variables, step ids, audience values. Callers (routes and
 * tools) validate shapes and lengths with their schemas first; this repeats the limits so the
 * service is safe whoever calls it.
 */
function validateSteps(steps: StepInput[], current: CampaignStep[]): CampaignStep[] {
  const details: ErrorDetail[] = [];
  if (steps.length > CAMPAIGN_LIMITS.steps) details.push({ path: "/steps", message: `must have at most ${CAMPAIGN_LIMITS.steps} steps` });
  const known = new Set(current.map((s) => s.id));
  const seen = new Set<string>();
  const result = steps.map((step, i) => {
    if (step.id !== undefined) {
      if (!known.has(step.id)) details.push({ path: `/steps/${i}/id`, message: "is not a step of this campaign (omit it for a new step)" });
      if (seen.has(step.id)) details.push({ path: `/steps/${i}/id`, message: "appears twice" });
      seen.add(step.id);
    }
    if (!Number.isInteger(step.delay_seconds) || step.delay_seconds < 0 || step.delay_seconds > CAMPAIGN_LIMITS.delaySeconds)
      details.push({ path: `/steps/${i}/delay_seconds`, message: `must be a whole number of seconds from 0 to ${CAMPAIGN_LIMITS.delaySeconds}` });
    if (step.subject.trim() === "" || step.subject.length > CAMPAIGN_LIMITS.subject) details.push({ path: `/steps/${i}/subject`, message: `must be 1 to ${CAMPAIGN_LIMITS.subject} characters` });
    if (step.body.trim() === "" || step.body.length > CAMPAIGN_LIMITS.body) details.push({ path: `/steps/${i}/body`, message: `must be 1 to ${CAMPAIGN_LIMITS.body} characters` });
    for (const problem of templateProblems(step.subject)) details.push({ path: `/steps/${i}/subject`, message: problem });
    for (const problem of templateProblems(step.body)) details.push({ path: `/steps/${i}/body`, message: problem });
    return { id: step.id ?? crypto.randomUUID(), delaySeconds: step.delay_seconds, delayFrom: step.delay_from ?? "previous", subject: step.subject, body: step.body } satisfies CampaignStep;
  });
  if (details.length > 0) invalid(details);
  return result;
}

function validateAudience(audience: AudienceInput | null | undefined): AudienceRule | null {
  if (!audience) return null;
  const details: ErrorDetail[] = [];
  if (audience.all.length === 0 || audience.all.length > CAMPAIGN_LIMITS.conditions) details.push({ path: "/audience/all", message: `must have 1 to ${CAMPAIGN_LIMITS.conditions} conditions` });
  audience.all.forEach((c, i) => {
    if (!TRAIT_PATH.test(c.trait)) details.push({ path: `/audience/all/${i}/trait`, message: "must be a trait key, or a dotted path of up to 4 keys (letters, digits, _ and -)" });
    const scalar = (v: unknown) => typeof v === "number" || typeof v === "boolean" || (typeof v === "string" && v.length <= CAMPAIGN_LIMITS.value);
    if (c.op === "exists" || c.op === "not_exists") {
      if (c.value !== undefined) details.push({ path: `/audience/all/${i}/value`, message: `must be absent for ${c.op}` });
    } else if (c.op === "in") {
      if (!Array.isArray(c.value) || c.value.length === 0 || c.value.length > CAMPAIGN_LIMITS.inValues || !c.value.every(scalar))
        details.push({ path: `/audience/all/${i}/value`, message: `must be a list of 1 to ${CAMPAIGN_LIMITS.inValues} strings (at most ${CAMPAIGN_LIMITS.value} characters), numbers or booleans` });
    } else if (!scalar(c.value)) details.push({ path: `/audience/all/${i}/value`, message: `must be a string (at most ${CAMPAIGN_LIMITS.value} characters), a number or a boolean` });
  });
  if (details.length > 0) invalid(details);
  return { all: audience.all.map((c) => ({ trait: c.trait, op: c.op, ...(c.value !== undefined ? { value: c.value } : {}) })) };
}

function validateSender(sender: CampaignInput["sender"], fallback: string): CampaignSender {
  const name = (sender?.name ?? fallback).replace(/[\r\n]+/g, " ").trim().slice(0, CAMPAIGN_LIMITS.senderName);
  const replyTo = sender?.reply_to ?? undefined;
  if (replyTo !== undefined && !/^[^\s@<>",;]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,}$/.test(replyTo)) invalid([{ path: "/sender/reply_to", message: "must be an email address" }]);
  return replyTo ? { name, replyTo } : { name };
}

function slugFrom(name: string): string {
  const base = name.toLowerCase().normalize("NFKD").replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 48);
  return `${base || "campaign"}-${randomBytes(3).toString("hex")}`;
}

// ---------- views ----------

export function stepView(step: CampaignStep, position: number) {
  return { id: step.id, position, delay_seconds: step.delaySeconds, delay_from: step.delayFrom, subject: step.subject, body: step.body };
}

export function campaignView(c: Campaign, enrolments?: Record<string, number>) {
  return {
    id: c.id,
    slug: c.slug,
    name: c.name,
    status: c.status,
    sender: { name: c.sender.name, reply_to: c.sender.replyTo ?? null },
    audience: c.audience ?? null,
    steps: c.steps.map(stepView),
    ...(enrolments ? { enrolments } : {}),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

export function enrolmentView(e: Enrolment, user?: Pick<EndUser, "id" | "email" | "externalId" | "name">) {
  return {
    id: e.id,
    campaign_id: e.campaignId,
    customer: user ? { id: user.id, email: user.email, user_id: user.externalId, name: user.name } : { id: e.endUserId },
    state: e.state,
    source: e.source,
    enrolled_at: e.enrolledAt.toISOString(),
    last_step_at: e.lastStepAt?.toISOString() ?? null,
    next_check_at: e.state === "active" ? (e.wakeAt?.toISOString() ?? null) : null,
  };
}

// ---------- reading ----------

/** A campaign by id or slug, in this org only. */
export async function findCampaign(deps: Pick<Deps, "db">, orgId: string, ref: string): Promise<Campaign | null> {
  if (ref.length === 0 || ref.length > 64) return null;
  const key = isUuid(ref) ? eq(campaigns.id, ref) : eq(campaigns.slug, ref);
  const [row] = await deps.db.select().from(campaigns).where(and(eq(campaigns.orgId, orgId), key)).limit(1);
  return row ?? null;
}

export async function campaignOr404(deps: Pick<Deps, "db">, orgId: string, ref: string): Promise<Campaign> {
  const campaign = await findCampaign(deps, orgId, ref);
  if (!campaign) throw AppError.notFound(`No campaign ${ref.slice(0, 64)}.`);
  return campaign;
}

export async function enrolmentCounts(deps: Pick<Deps, "db">, orgId: string, campaignId: string): Promise<Record<string, number>> {
  const rows = await deps.db
    .select({ state: campaignEnrolments.state, n: count() })
    .from(campaignEnrolments)
    .where(and(eq(campaignEnrolments.orgId, orgId), eq(campaignEnrolments.campaignId, campaignId)))
    .groupBy(campaignEnrolments.state);
  const counts: Record<string, number> = Object.fromEntries(ENROLMENT_STATES.map((s) => [s, 0]));
  for (const r of rows) counts[r.state] = Number(r.n);
  return counts;
}

export async function listCampaigns(deps: Pick<Deps, "db">, orgId: string, status?: CampaignStatus): Promise<Campaign[]> {
  return deps.db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.orgId, orgId), status ? eq(campaigns.status, status) : undefined))
    .orderBy(desc(campaigns.createdAt), desc(campaigns.id));
}

// ---------- writing ----------

export interface Acting {
  orgId: string;
  actor: Actor;
}

export async function createCampaign(deps: Deps, { orgId, actor, input }: Acting & { input: CampaignInput }): Promise<Campaign> {
  if (input.name.trim() === "" || input.name.length > CAMPAIGN_LIMITS.name) invalid([{ path: "/name", message: `must be 1 to ${CAMPAIGN_LIMITS.name} characters` }]);
  if (input.slug !== undefined && !CAMPAIGN_SLUG.test(input.slug)) invalid([{ path: "/slug", message: `must match ${CAMPAIGN_SLUG.source}` }]);
  const steps = validateSteps(input.steps ?? [], []);
  const audience = validateAudience(input.audience);
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    // Serialise creations per org on the org row, so the per-org limit holds under concurrency.
    const [org] = await tx.select({ name: orgs.name }).from(orgs).where(eq(orgs.id, orgId)).for("update");
    if (!org) throw AppError.notFound("No such organisation.");
    // Without a sender, mail comes from the org's name.
    const sender = validateSender(input.sender, org.name);
    const [{ n }] = (await tx.select({ n: count() }).from(campaigns).where(eq(campaigns.orgId, orgId))) as [{ n: number }];
    if (Number(n) >= CAMPAIGN_LIMITS.campaignsPerOrg) throw new AppError(409, "limit_reached", `An organisation has at most ${CAMPAIGN_LIMITS.campaignsPerOrg} campaigns (archived ones count).`);
    const slug = input.slug ?? slugFrom(input.name);
    const [row] = await tx
      .insert(campaigns)
      .values({ orgId, slug, name: input.name.trim(), status: "draft", steps, audience, sender, createdAt: now, updatedAt: now })
      .onConflictDoNothing()
      .returning();
    if (!row) throw new AppError(409, "conflict", `A campaign with slug ${slug} exists.`, [{ path: "/slug", message: "is already used" }]);
    await recordActivity({ db: tx, now: deps.now }, { orgId, actor, action: "campaign.created", objectType: "campaign", objectId: row.id, summary: { name: row.name, slug, steps: steps.length } });
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

export async function editCampaign(deps: Deps, { orgId, actor, ref, patch }: Acting & { ref: string; patch: CampaignPatch }): Promise<Campaign> {
  return deps.db.transaction(async (tx) => {
    const found = await campaignOr404({ db: tx }, orgId, ref);
    const [campaign] = await tx.select().from(campaigns).where(eq(campaigns.id, found.id)).for("update");
    if (!campaign) throw AppError.notFound();
    if (campaign.status === "archived") throw new AppError(409, "campaign_archived", "An archived campaign cannot be edited.");
    if (patch.name !== undefined && (patch.name.trim() === "" || patch.name.length > CAMPAIGN_LIMITS.name)) invalid([{ path: "/name", message: `must be 1 to ${CAMPAIGN_LIMITS.name} characters` }]);
    const steps = patch.steps !== undefined ? validateSteps(patch.steps, campaign.steps) : campaign.steps;
    if (campaign.status !== "draft" && steps.length === 0) invalid([{ path: "/steps", message: "must keep at least one step once the campaign has been activated" }]);
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
    await recordActivity({ db: tx, now: deps.now }, {
      orgId,
      actor,
      action: "campaign.updated",
      objectType: "campaign",
      objectId: campaign.id,
      summary: { changed: Object.keys(patch).filter((k) => (patch as Record<string, unknown>)[k] !== undefined), steps: { before: campaign.steps.length, after: steps.length } },
    });
    return row!;
  });
}

/** The outbox rows of the messages matching `where` (a campaign's, an enrolment's, a customer's), to park, release or cancel. */
function outboxOf(tx: Tx, where: SQL) {
  return tx.select({ id: campaignMessages.outboxId }).from(campaignMessages).where(where);
}

export async function setCampaignStatus(deps: Deps, { orgId, actor, ref, to }: Acting & { ref: string; to: "active" | "paused" | "archived" }): Promise<Campaign> {
  const campaign = await deps.db.transaction(async (tx) => {
    const found = await campaignOr404({ db: tx }, orgId, ref);
    const [current] = await tx.select().from(campaigns).where(eq(campaigns.id, found.id)).for("update");
    if (!current) throw AppError.notFound();
    if (current.status === to) return current; // idempotent
    if (current.status === "archived") throw new AppError(409, "campaign_archived", "An archived campaign cannot change status.");
    if (to === "paused" && current.status !== "active") throw new AppError(409, "campaign_not_active", `Only an active campaign can be paused (this one is ${current.status}).`);
    if (to === "active" && current.steps.length === 0) throw new AppError(409, "campaign_empty", "Add at least one step before activating the campaign.", [{ path: "/steps", message: "must not be empty" }]);
    const now = deps.now();
    const [row] = await tx.update(campaigns).set({ status: to, updatedAt: now, ...(to === "active" ? { audienceSweptAt: null } : {}) }).where(eq(campaigns.id, current.id)).returning();
    const mine = and(eq(campaignMessages.orgId, orgId), eq(campaignMessages.campaignId, current.id))!;
    if (to === "active") {
      await releaseParked(tx, outboxOf(tx, mine), now);
      await wakeEnrolments(tx, current, now);
    } else if (to === "paused") await parkPending(tx, outboxOf(tx, mine), "campaign paused", now);
    else await cancelQueued(tx, outboxOf(tx, mine), "campaign archived", now);
    await recordActivity({ db: tx, now: deps.now }, { orgId, actor, action: `campaign.${to === "active" ? "activated" : to}`, objectType: "campaign", objectId: current.id, summary: { from: current.status, to } });
    return row!;
  });
  if (to === "active" && campaign.audience) await sweepAudience(deps, campaign);
  return campaign;
}

// ---------- audience ----------

/** The SQL condition of one audience rule on end_users.traits (keys are restricted, values bound as parameters). */
export function audienceCondition(rule: AudienceRule): SQL {
  const parts = rule.all.map((c) => {
    const path = `{${c.trait.split(".").join(",")}}`;
    const value = sql`(${endUsers.traits} #> ${path}::text[])`;
    switch (c.op) {
      case "eq":
        return sql`${value} = ${JSON.stringify(c.value)}::jsonb`;
      case "neq":
        return sql`${value} is distinct from ${JSON.stringify(c.value)}::jsonb`;
      case "exists":
        return sql`coalesce(jsonb_typeof(${value}), 'null') <> 'null'`;
      case "not_exists":
        return sql`coalesce(jsonb_typeof(${value}), 'null') = 'null'`;
      case "in":
        return sql`${JSON.stringify(c.value)}::jsonb @> jsonb_build_array(${value})`;
    }
  });
  return and(...parts)!;
}

/**
 * Who an audience rule can enrol in an org: verified customers with an email address who match the
 * rule and have not unsubscribed. One condition for the sweep and for the dashboard's count.
 */
function audienceEligible(orgId: string, rule: AudienceRule): SQL {
  return sql`${endUsers.orgId} = ${orgId} and ${endUsers.verified} and ${endUsers.email} is not null and ${audienceCondition(rule)}
      and not exists (select 1 from ${mailUnsubscribes} where ${mailUnsubscribes.orgId} = ${orgId} and ${mailUnsubscribes.endUserId} = ${endUsers.id})`;
}

/**
 * How many customers an audience rule matches now (those it can enrol, see audienceEligible),
 * counting at most `cap`: the dashboard shows it beside the rule. It reads what one audience sweep
 * reads, and stops counting at the cap; `capped` says there are at least that many.
 */
export async function countAudience(deps: Pick<Deps, "db">, orgId: string, rule: AudienceRule, cap = 1_000): Promise<{ count: number; capped: boolean }> {
  const rows = await deps.db.execute(sql`select count(*)::int as n from (select 1 from ${endUsers} where ${audienceEligible(orgId, rule)} limit ${cap + 1}) matched`);
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
    select ${campaign.orgId}, ${campaign.id}, ${endUsers.id}, 'active', 'audience', ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz
    from ${endUsers}
    where ${audienceEligible(campaign.orgId, campaign.audience)}
    on conflict (campaign_id, end_user_id) do nothing
    returning id`);
  await deps.db.update(campaigns).set({ audienceSweptAt: deps.now() }).where(eq(campaigns.id, campaign.id));
  const enrolled = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows).length;
  if (enrolled > 0)
    await recordActivity(deps, { orgId: campaign.orgId, actor: { kind: "system", name: SYSTEM_SENDER }, action: "campaign.audience_enrolled", objectType: "campaign", objectId: campaign.id, summary: { enrolled } });
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
      .where(and(eq(campaigns.status, "active"), isNotNull(campaigns.audience), or(isNull(campaigns.audienceSweptAt), lte(campaigns.audienceSweptAt, new Date(now.getTime() - AUDIENCE_SWEEP_MS)))))
      .limit(1)
      .for("update", { skipLocked: true });
    const [campaign] = await deps.db.update(campaigns).set({ audienceSweptAt: now }).where(inArray(campaigns.id, due)).returning();
    if (!campaign) break;
    await sweepAudience(deps, campaign);
  }
  return swept;
}

// ---------- enrolments ----------

export async function isUnsubscribed(deps: Pick<Deps, "db">, orgId: string, endUserId: string): Promise<boolean> {
  const [row] = await deps.db.select({ id: mailUnsubscribes.endUserId }).from(mailUnsubscribes).where(and(eq(mailUnsubscribes.orgId, orgId), eq(mailUnsubscribes.endUserId, endUserId))).limit(1);
  return row !== undefined;
}

/** One customer's enrolment in a campaign, if any (the dashboard says what an enrol or remove changed). */
export async function enrolmentOf(deps: Pick<Deps, "db">, orgId: string, campaignId: string, endUserId: string): Promise<Enrolment | null> {
  const [row] = await deps.db
    .select()
    .from(campaignEnrolments)
    .where(and(eq(campaignEnrolments.orgId, orgId), eq(campaignEnrolments.campaignId, campaignId), eq(campaignEnrolments.endUserId, endUserId)))
    .limit(1);
  return row ?? null;
}

export function notActive(campaign: Campaign): AppError {
  return new AppError(409, "campaign_not_active", `Campaign ${campaign.slug} is ${campaign.status}: customers can be enrolled only in an active campaign.`, [{ path: "/campaign", message: `is ${campaign.status}` }]);
}

/**
 * Enrols a customer. Idempotent: enrolling someone already enrolled (or finished) changes nothing;
 * someone removed earlier resumes where they were (never receiving a step twice). A customer who
 * unsubscribed is answered with the state `unsubscribed` and is never mailed.
 */
export async function enrolCustomer(
  deps: Deps,
  { orgId, actor, campaign, endUser, source, addressConfirmed = false }: Acting & { campaign: Campaign; endUser: EndUser; source: string; addressConfirmed?: boolean },
): Promise<{ enrolment: Enrolment; created: boolean }> {
  if (campaign.orgId !== orgId || endUser.orgId !== orgId) throw AppError.notFound();
  if (campaign.status !== "active") throw notActive(campaign);
  // Mail goes only to addresses someone vouched for: a verified token, the org itself (dashboard
  // API, import), or the address's owner through a double opt-in link (`addressConfirmed`,
  // src/campaigns/opt-in.ts). An unverified identify carries whatever address a caller of the
  // public key typed.
  if (!endUser.verified && !addressConfirmed)
    throw new AppError(403, "customer_not_verified", "Email series reach verified customers only: identify the customer with a user_token (identity verification), or create them through the dashboard API.");
  const unsubscribed = await isUnsubscribed(deps, orgId, endUser.id);
  return deps.db.transaction(async (tx) => {
    const now = deps.now();
    const [inserted] = await tx
      .insert(campaignEnrolments)
      .values({ orgId, campaignId: campaign.id, endUserId: endUser.id, state: unsubscribed ? "unsubscribed" : "active", source, enrolledAt: now, wakeAt: unsubscribed ? null : now, updatedAt: now })
      .onConflictDoNothing()
      .returning();
    if (inserted) {
      await recordActivity({ db: tx, now: deps.now }, { orgId, actor, action: "campaign.enrolled", objectType: "campaign", objectId: campaign.id, summary: { end_user_id: endUser.id, source } });
      return { enrolment: inserted, created: true };
    }
    const [existing] = await tx
      .select()
      .from(campaignEnrolments)
      .where(and(eq(campaignEnrolments.campaignId, campaign.id), eq(campaignEnrolments.endUserId, endUser.id)))
      .for("update");
    if (existing!.state !== "removed" || unsubscribed) return { enrolment: existing!, created: false };
    const [resumed] = await tx.update(campaignEnrolments).set({ state: "active", wakeAt: now, updatedAt: now }).where(eq(campaignEnrolments.id, existing!.id)).returning();
    await recordActivity({ db: tx, now: deps.now }, { orgId, actor, action: "campaign.enrolled", objectType: "campaign", objectId: campaign.id, summary: { end_user_id: endUser.id, source, resumed: true } });
    return { enrolment: resumed!, created: false };
  });
}

/** Removes a customer from a campaign: no further step is queued, and queued ones are cancelled at once. */
export async function removeCustomer(deps: Deps, { orgId, actor, campaign, endUser }: Acting & { campaign: Campaign; endUser: EndUser }): Promise<Enrolment | null> {
  if (campaign.orgId !== orgId || endUser.orgId !== orgId) throw AppError.notFound();
  return deps.db.transaction(async (tx) => {
    const now = deps.now();
    const [row] = await tx
      .update(campaignEnrolments)
      .set({ state: "removed", wakeAt: null, updatedAt: now })
      .where(
        and(
          eq(campaignEnrolments.orgId, orgId),
          eq(campaignEnrolments.campaignId, campaign.id),
          eq(campaignEnrolments.endUserId, endUser.id),
          // completed too: its last steps may still be queued
          inArray(campaignEnrolments.state, ["active", "completed"]),
        ),
      )
      .returning();
    const [current] = row
      ? [row]
      : await tx.select().from(campaignEnrolments).where(and(eq(campaignEnrolments.orgId, orgId), eq(campaignEnrolments.campaignId, campaign.id), eq(campaignEnrolments.endUserId, endUser.id)));
    if (!current) return null;
    await cancelQueued(tx, outboxOf(tx, and(eq(campaignMessages.orgId, orgId), eq(campaignMessages.enrolmentId, current.id))!), "customer removed from the series", now);
    if (row) await recordActivity({ db: tx, now: deps.now }, { orgId, actor, action: "campaign.removed", objectType: "campaign", objectId: campaign.id, summary: { end_user_id: endUser.id } });
    return current;
  });
}

/**
 * After an unsubscribe (src/campaigns/unsubscribe.ts records it, in the same transaction): every
 * enrolment of the customer ends and every queued message to them is cancelled.
 */
export async function endEnrolmentsOf(tx: Tx, { orgId, endUserId, now }: { orgId: string; endUserId: string; now: Date }): Promise<void> {
  await tx
    .update(campaignEnrolments)
    .set({ state: "unsubscribed", wakeAt: null, updatedAt: now })
    .where(and(eq(campaignEnrolments.orgId, orgId), eq(campaignEnrolments.endUserId, endUserId), inArray(campaignEnrolments.state, ["active", "completed"])));
  await cancelQueued(tx, outboxOf(tx, and(eq(campaignMessages.orgId, orgId), eq(campaignMessages.endUserId, endUserId))!), "customer unsubscribed", now);
}

// ---------- progress: queueing due steps ----------

/** How long a sender holds an enrolment it is working on before another may take it. */
const ENROLMENT_LEASE_MS = 60_000;

async function templateCustomer(db: Deps["db"] | Tx, user: EndUser): Promise<TemplateCustomer> {
  const [company] = user.companyId ? await db.select().from(companies).where(and(eq(companies.orgId, user.orgId), eq(companies.id, user.companyId))) : [];
  return { name: user.name, email: user.email, externalId: user.externalId, traits: user.traits, company: company ? { name: company.name, traits: company.traits } : null };
}

function dueAt(step: CampaignStep, enrolment: Pick<Enrolment, "enrolledAt" | "lastStepAt">): Date {
  const anchor = step.delayFrom === "enrolment" ? enrolment.enrolledAt : (enrolment.lastStepAt ?? enrolment.enrolledAt);
  return new Date(anchor.getTime() + step.delaySeconds * 1000);
}

/** The step after the latest one this enrolment received, in the campaign's current order. */
function nextStep(steps: CampaignStep[], sent: Set<string>, after = -1): { step: CampaignStep; index: number } | null {
  let last = after;
  steps.forEach((s, i) => {
    if (sent.has(s.id) && i > last) last = i;
  });
  const step = steps[last + 1];
  return step ? { step, index: last + 1 } : null;
}

/**
 * Claims enrolments whose time has come (FOR UPDATE SKIP LOCKED, then a short lease in `wake_at`,
 * so concurrent senders take different ones) and queues each due step as one outbox row with its
 * rendered message. Returns how many messages were queued.
 */
export async function queueDueSteps(deps: Deps, batch = 100): Promise<number> {
  let queued = 0;
  for (;;) {
    const { claimed, messages } = await queueDueBatch(deps, batch);
    queued += messages;
    if (claimed < batch) return queued;
  }
}

async function queueDueBatch(deps: Deps, limit: number): Promise<{ claimed: number; messages: number }> {
  const now = deps.now();
  const due = deps.db
    .select({ id: campaignEnrolments.id })
    .from(campaignEnrolments)
    .innerJoin(campaigns, eq(campaigns.id, campaignEnrolments.campaignId))
    .where(and(eq(campaignEnrolments.state, "active"), eq(campaigns.status, "active"), isNotNull(campaignEnrolments.wakeAt), sql`${campaignEnrolments.wakeAt} <= ${now.toISOString()}::timestamptz`))
    .orderBy(campaignEnrolments.wakeAt)
    .limit(limit)
    .for("update", { of: campaignEnrolments, skipLocked: true });
  const claimed = await deps.db
    .update(campaignEnrolments)
    .set({ wakeAt: new Date(now.getTime() + ENROLMENT_LEASE_MS) })
    .where(inArray(campaignEnrolments.id, due))
    .returning();
  let messages = 0;
  for (const enrolment of claimed) messages += await advanceEnrolment(deps, enrolment);
  return { claimed: claimed.length, messages };
}

async function advanceEnrolment(deps: Deps, claimed: Enrolment): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const now = deps.now();
    const [enrolment] = await tx.select().from(campaignEnrolments).where(eq(campaignEnrolments.id, claimed.id)).for("update");
    const [campaign] = await tx.select().from(campaigns).where(eq(campaigns.id, claimed.campaignId));
    if (!enrolment || !campaign || enrolment.state !== "active" || campaign.status !== "active") return 0;
    const [user] = await tx.select().from(endUsers).where(and(eq(endUsers.orgId, enrolment.orgId), eq(endUsers.id, enrolment.endUserId)));
    const [unsub] = await tx.select({ id: mailUnsubscribes.endUserId }).from(mailUnsubscribes).where(and(eq(mailUnsubscribes.orgId, enrolment.orgId), eq(mailUnsubscribes.endUserId, enrolment.endUserId)));
    if (!user || unsub) {
      await tx.update(campaignEnrolments).set({ state: unsub ? "unsubscribed" : "removed", wakeAt: null, updatedAt: now }).where(eq(campaignEnrolments.id, enrolment.id));
      return 0;
    }
    const sentRows = await tx.select({ stepId: campaignMessages.stepId }).from(campaignMessages).where(eq(campaignMessages.enrolmentId, enrolment.id));
    const sent = new Set(sentRows.map((r) => r.stepId));
    const customer = await templateCustomer(tx, user);
    let lastStepAt = enrolment.lastStepAt;
    let queued = 0;
    let next = nextStep(campaign.steps, sent);
    let wakeAt: Date | null = null;
    while (next) {
      const at = dueAt(next.step, { enrolledAt: enrolment.enrolledAt, lastStepAt });
      if (at.getTime() > now.getTime()) {
        wakeAt = at;
        break;
      }
      const mail = renderStep(next.step, customer, campaign.name);
      const messageId = crypto.randomUUID();
      // The enrolment is the lane: its emails go out one after another, in the order queued.
      const outboxId = await enqueue(tx, { orgId: enrolment.orgId, kind: CAMPAIGN_MAIL_KIND, lane: enrolment.id, payload: { message_id: messageId }, runAt: now, now });
      const [message] = await tx
        .insert(campaignMessages)
        .values({ id: messageId, orgId: enrolment.orgId, campaignId: campaign.id, enrolmentId: enrolment.id, endUserId: user.id, stepId: next.step.id, outboxId, toEmail: user.email, ...mail, createdAt: now })
        .onConflictDoNothing()
        .returning({ id: campaignMessages.id });
      if (message) queued++;
      else await dropEnqueued(tx, outboxId); // already queued for this customer (a step is never sent twice)
      lastStepAt = now;
      next = nextStep(campaign.steps, sent, next.index);
    }
    await tx
      .update(campaignEnrolments)
      .set({ lastStepAt, wakeAt, state: next ? "active" : "completed", updatedAt: now })
      .where(eq(campaignEnrolments.id, enrolment.id));
    return queued;
  });
}

/** The outbox kind of a campaign email (src/campaigns/mail.ts delivers it). */
export const CAMPAIGN_MAIL_KIND = "campaign.email";

// ---------- preview ----------

/** Every step rendered for a customer of the org (or a sample one), without sending anything. */
export async function previewCampaign(deps: Deps, orgId: string, campaign: Campaign, customerRef?: string) {
  let customer = SAMPLE_CUSTOMER;
  let customerOut: { sample: boolean; id?: string; name: string; email: string | null } = { sample: true, name: SAMPLE_CUSTOMER.name, email: SAMPLE_CUSTOMER.email };
  if (customerRef !== undefined) {
    const user = await findEndUser(deps, orgId, customerRef);
    if (!user) throw AppError.notFound(`No customer ${customerRef.slice(0, 256)}.`);
    customer = await templateCustomer(deps.db, user);
    customerOut = { sample: false, id: user.id, name: user.name, email: user.email };
  }
  const unsubscribe = `${deps.config.baseUrl}/u/…`;
  const enrolment = { enrolledAt: new Date(0), lastStepAt: null as Date | null };
  return {
    campaign_id: campaign.id,
    customer: customerOut,
    steps: campaign.steps.map((step, i) => {
      const mail = renderStep(step, customer, campaign.name);
      const offset = dueAt(step, enrolment).getTime() / 1000;
      enrolment.lastStepAt = new Date(offset * 1000);
      return { step_id: step.id, position: i, seconds_after_enrolment: offset, subject: mail.subject, text: mail.text.replaceAll(UNSUBSCRIBE_MARK, unsubscribe), html: mail.html.replaceAll(UNSUBSCRIBE_MARK, unsubscribe) };
    }),
  };
}

// ---------- listings ----------

function encodeCursor(at: Date, id: string): string {
  return Buffer.from(`${at.toISOString()}|${id}`).toString("base64url");
}

function decodeCursor(cursor: string): { at: Date; id: string } {
  const [at, id] = Buffer.from(cursor, "base64url").toString().split("|");
  const date = new Date(at ?? "");
  if (!id || !isUuid(id) || Number.isNaN(date.getTime())) throw AppError.badRequest("The cursor is invalid.", [{ path: "/cursor", message: "must be a next_cursor returned by this endpoint" }]);
  return { at: date, id };
}

export async function listEnrolments(deps: Deps, orgId: string, campaignId: string, query: { state?: EnrolmentState; limit?: number; cursor?: string }) {
  const limit = Math.min(query.limit ?? 50, CAMPAIGN_LIMITS.pageSize);
  const where: SQL[] = [eq(campaignEnrolments.orgId, orgId), eq(campaignEnrolments.campaignId, campaignId)];
  if (query.state) where.push(eq(campaignEnrolments.state, query.state));
  if (query.cursor) {
    const c = decodeCursor(query.cursor);
    where.push(or(lt(campaignEnrolments.enrolledAt, c.at), and(eq(campaignEnrolments.enrolledAt, c.at), lt(campaignEnrolments.id, c.id)))!);
  }
  const rows = await deps.db
    .select({ e: campaignEnrolments, user: { id: endUsers.id, email: endUsers.email, externalId: endUsers.externalId, name: endUsers.name } })
    .from(campaignEnrolments)
    .innerJoin(endUsers, eq(endUsers.id, campaignEnrolments.endUserId))
    .where(and(...where))
    .orderBy(desc(campaignEnrolments.enrolledAt), desc(campaignEnrolments.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { enrolments: page.map((r) => enrolmentView(r.e, r.user)), next_cursor: rows.length > limit && last ? encodeCursor(last.e.enrolledAt, last.e.id) : null };
}

/**
 * How many of a campaign's messages wait in the outbox (pending, including those retrying after a
 * temporary failure, or parked while paused), counting at most `cap`: what archiving cancels.
 */
export async function queuedMessageCount(deps: Pick<Deps, "db">, orgId: string, campaignId: string, cap = 1_000): Promise<{ count: number; capped: boolean }> {
  const queued = deps.db
    .select({ one: sql`1` })
    .from(campaignMessages)
    .innerJoin(outbox, eq(outbox.id, campaignMessages.outboxId))
    .where(and(eq(campaignMessages.orgId, orgId), eq(campaignMessages.campaignId, campaignId), inArray(outbox.status, ["pending", "parked"])))
    .limit(cap + 1)
    .as("queued");
  const [row] = await deps.db.select({ n: count() }).from(queued);
  const n = Number(row?.n ?? 0);
  return { count: Math.min(n, cap), capped: n > cap };
}

/** The Message-ID of an outbox row's email: stable across retries, so a duplicate after a crash is recognisable. */
export function messageIdOf(outboxId: string, mailFrom: string): string {
  return `<${outboxId}@${mailFrom.split("@")[1]}>`;
}

export async function listMessages(deps: Deps, orgId: string, campaignId: string, query: { status?: string; customerId?: string; limit?: number; cursor?: string }) {
  const limit = Math.min(query.limit ?? 50, CAMPAIGN_LIMITS.pageSize);
  const where: SQL[] = [eq(campaignMessages.orgId, orgId), eq(campaignMessages.campaignId, campaignId)];
  if (query.status) where.push(eq(outbox.status, query.status as never));
  if (query.customerId) where.push(eq(campaignMessages.endUserId, query.customerId));
  if (query.cursor) {
    const c = decodeCursor(query.cursor);
    where.push(or(lt(campaignMessages.createdAt, c.at), and(eq(campaignMessages.createdAt, c.at), lt(campaignMessages.id, c.id)))!);
  }
  const rows = await deps.db
    .select({ m: campaignMessages, o: outbox })
    .from(campaignMessages)
    .innerJoin(outbox, eq(outbox.id, campaignMessages.outboxId))
    .where(and(...where))
    .orderBy(desc(campaignMessages.createdAt), desc(campaignMessages.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const link = `${deps.config.baseUrl}/u/…`;
  return {
    messages: page.map(({ m, o }) => messageView(m, o, deps.config.mailFrom, link)),
    next_cursor: rows.length > limit && last ? encodeCursor(last.m.createdAt, last.m.id) : null,
  };
}

export function messageView(m: typeof campaignMessages.$inferSelect, o: typeof outbox.$inferSelect, mailFrom: string, link: string) {
  return {
    id: m.id,
    message_id: messageIdOf(o.id, mailFrom),
    customer_id: m.endUserId,
    to: m.toEmail,
    step_id: m.stepId,
    subject: m.subject,
    text: m.text.replaceAll(UNSUBSCRIBE_MARK, link),
    html: m.html.replaceAll(UNSUBSCRIBE_MARK, link),
    /** pending, sending, parked (campaign paused), sent, held (not sent on purpose), failed, cancelled. */
    status: o.status,
    /** Why it is not sent (held, failed, cancelled, parked) or why the last attempt failed. */
    reason: o.lastError,
    attempts: o.attempts,
    next_attempt_at: o.status === "pending" ? o.runAt.toISOString() : null,
    created_at: m.createdAt.toISOString(),
    sent_at: o.status === "sent" ? (o.doneAt?.toISOString() ?? null) : null,
  };
}
