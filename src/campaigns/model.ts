// Email series: what a campaign is — its types, limits and statuses — the validation of what
// the dashboard, the API and the automation_* tools send, and the views they answer with.
import { randomBytes } from "node:crypto";
import {
  type AudienceRule,
  campaignEnrolments,
  type CampaignSender,
  type CampaignStatus,
  type CampaignStep,
  campaigns,
  type EnrolmentState,
} from "../db/schema/index.ts";
import { AppError, type ErrorDetail } from "../errors.ts";
import { type EndUser } from "../customers/records.ts";
import { templateProblems } from "./templates.ts";

export type { AudienceRule };
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
export const SYSTEM_SENDER = "campaign-sender";

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

export function invalid(details: ErrorDetail[]): never {
  throw AppError.badRequest(details.map((d) => `${d.path} ${d.message}`).join("; "), details);
}

/**
 * Checks what a schema cannot: template variables, step ids, audience values. Callers (routes and
 * tools) validate shapes and lengths with their schemas first; this repeats the limits so the
 * service is safe whoever calls it.
 */
export function validateSteps(steps: StepInput[], current: CampaignStep[]): CampaignStep[] {
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
    if (step.subject.trim() === "" || step.subject.length > CAMPAIGN_LIMITS.subject)
      details.push({ path: `/steps/${i}/subject`, message: `must be 1 to ${CAMPAIGN_LIMITS.subject} characters` });
    if (step.body.trim() === "" || step.body.length > CAMPAIGN_LIMITS.body)
      details.push({ path: `/steps/${i}/body`, message: `must be 1 to ${CAMPAIGN_LIMITS.body} characters` });
    for (const problem of templateProblems(step.subject)) details.push({ path: `/steps/${i}/subject`, message: problem });
    for (const problem of templateProblems(step.body)) details.push({ path: `/steps/${i}/body`, message: problem });
    return {
      id: step.id ?? crypto.randomUUID(),
      delaySeconds: step.delay_seconds,
      delayFrom: step.delay_from ?? "previous",
      subject: step.subject,
      body: step.body,
    } satisfies CampaignStep;
  });
  if (details.length > 0) invalid(details);
  return result;
}

export function validateAudience(audience: AudienceInput | null | undefined): AudienceRule | null {
  if (!audience) return null;
  const details: ErrorDetail[] = [];
  if (audience.all.length === 0 || audience.all.length > CAMPAIGN_LIMITS.conditions)
    details.push({ path: "/audience/all", message: `must have 1 to ${CAMPAIGN_LIMITS.conditions} conditions` });
  audience.all.forEach((c, i) => {
    if (!TRAIT_PATH.test(c.trait))
      details.push({ path: `/audience/all/${i}/trait`, message: "must be a trait key, or a dotted path of up to 4 keys (letters, digits, _ and -)" });
    const scalar = (v: unknown) => typeof v === "number" || typeof v === "boolean" || (typeof v === "string" && v.length <= CAMPAIGN_LIMITS.value);
    if (c.op === "exists" || c.op === "not_exists") {
      if (c.value !== undefined) details.push({ path: `/audience/all/${i}/value`, message: `must be absent for ${c.op}` });
    } else if (c.op === "in") {
      if (!Array.isArray(c.value) || c.value.length === 0 || c.value.length > CAMPAIGN_LIMITS.inValues || !c.value.every(scalar))
        details.push({
          path: `/audience/all/${i}/value`,
          message: `must be a list of 1 to ${CAMPAIGN_LIMITS.inValues} strings (at most ${CAMPAIGN_LIMITS.value} characters), numbers or booleans`,
        });
    } else if (!scalar(c.value))
      details.push({ path: `/audience/all/${i}/value`, message: `must be a string (at most ${CAMPAIGN_LIMITS.value} characters), a number or a boolean` });
  });
  if (details.length > 0) invalid(details);
  return { all: audience.all.map((c) => ({ trait: c.trait, op: c.op, ...(c.value !== undefined ? { value: c.value } : {}) })) };
}

export function validateSender(sender: CampaignInput["sender"], fallback: string): CampaignSender {
  const name = (sender?.name ?? fallback)
    .replace(/[\r\n]+/g, " ")
    .trim()
    .slice(0, CAMPAIGN_LIMITS.senderName);
  const replyTo = sender?.reply_to ?? undefined;
  if (replyTo !== undefined && !/^[^\s@<>",;]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,}$/.test(replyTo))
    invalid([{ path: "/sender/reply_to", message: "must be an email address" }]);
  return replyTo ? { name, replyTo } : { name };
}

export function slugFrom(name: string): string {
  const base = name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
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
