// Email series: progress — each tick the sender queues the steps that are due, one outbox row per
// message, rendered before anything is sent. A customer's next step is the one after the latest
// step they received, in the campaign's current order.
import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { campaignEnrolments, campaignMessages, type CampaignStep, campaigns, mailUnsubscribes } from "../db/schema/index.ts";
import type { Tx } from "../db/client.ts";
import type { Deps } from "../deps.ts";
import { dropEnqueued, enqueue } from "../outbox/outbox.ts";
import { companyById, endUserById } from "../customers/lookups.ts";
import { type EndUser } from "../customers/records.ts";
import { renderStep, type TemplateCustomer } from "./templates.ts";
import { type Enrolment } from "./model.ts";

/** How long a sender holds an enrolment it is working on before another may take it. */
const ENROLMENT_LEASE_MS = 60_000;

export async function templateCustomer(db: Deps["db"] | Tx, user: EndUser): Promise<TemplateCustomer> {
  const company = user.companyId ? await companyById(db, user.orgId, user.companyId) : null;
  return {
    name: user.name,
    email: user.email,
    externalId: user.externalId,
    traits: user.traits,
    company: company ? { name: company.name, traits: company.traits } : null,
  };
}

export function dueAt(step: CampaignStep, enrolment: Pick<Enrolment, "enrolledAt" | "lastStepAt">): Date {
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
export async function queueDueSteps(deps: Pick<Deps, "db" | "now">, batch = 100): Promise<number> {
  let queued = 0;
  for (;;) {
    const { claimed, messages } = await queueDueBatch(deps, batch);
    queued += messages;
    if (claimed < batch) return queued;
  }
}

async function queueDueBatch(deps: Pick<Deps, "db" | "now">, limit: number): Promise<{ claimed: number; messages: number }> {
  const now = deps.now();
  const due = deps.db
    .select({ id: campaignEnrolments.id })
    .from(campaignEnrolments)
    .innerJoin(campaigns, eq(campaigns.id, campaignEnrolments.campaignId))
    .where(
      and(
        eq(campaignEnrolments.state, "active"),
        eq(campaigns.status, "active"),
        isNotNull(campaignEnrolments.wakeAt),
        sql`${campaignEnrolments.wakeAt} <= ${now.toISOString()}::timestamptz`,
      ),
    )
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

async function advanceEnrolment(deps: Pick<Deps, "db" | "now">, claimed: Enrolment): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const now = deps.now();
    const [enrolment] = await tx.select().from(campaignEnrolments).where(eq(campaignEnrolments.id, claimed.id)).for("update");
    const [campaign] = await tx.select().from(campaigns).where(eq(campaigns.id, claimed.campaignId));
    if (!enrolment || !campaign || enrolment.state !== "active" || campaign.status !== "active") return 0;
    const user = await endUserById(tx, enrolment.orgId, enrolment.endUserId);
    const [unsub] = await tx
      .select({ id: mailUnsubscribes.endUserId })
      .from(mailUnsubscribes)
      .where(and(eq(mailUnsubscribes.orgId, enrolment.orgId), eq(mailUnsubscribes.endUserId, enrolment.endUserId)));
    if (!user || unsub) {
      await tx
        .update(campaignEnrolments)
        .set({ state: unsub ? "unsubscribed" : "removed", wakeAt: null, updatedAt: now })
        .where(eq(campaignEnrolments.id, enrolment.id));
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
      const outboxId = await enqueue(tx, {
        orgId: enrolment.orgId,
        kind: CAMPAIGN_MAIL_KIND,
        lane: enrolment.id,
        payload: { message_id: messageId },
        runAt: now,
        now,
      });
      const [message] = await tx
        .insert(campaignMessages)
        .values({
          id: messageId,
          orgId: enrolment.orgId,
          campaignId: campaign.id,
          enrolmentId: enrolment.id,
          endUserId: user.id,
          stepId: next.step.id,
          outboxId,
          toEmail: user.email,
          ...mail,
          createdAt: now,
        })
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
