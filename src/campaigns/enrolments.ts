// Email series: who is in a series — enrol (idempotent; verified customers or a confirmed
// address), remove (queued steps cancelled at once), and the end of every enrolment after an
// unsubscribe.
import { and, eq, inArray } from "drizzle-orm";
import { recordActivity } from "../activity/log.ts";
import { campaignEnrolments, campaignMessages, mailUnsubscribes } from "../db/schema/index.ts";
import type { Tx } from "../db/client.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { cancelQueued } from "../outbox/outbox.ts";
import { type EndUser } from "../customers/records.ts";
import { type Acting, outboxOf } from "./lifecycle.ts";
import { type Campaign, type Enrolment } from "./model.ts";

export async function isUnsubscribed(deps: Pick<Deps, "db">, orgId: string, endUserId: string): Promise<boolean> {
  const [row] = await deps.db
    .select({ id: mailUnsubscribes.endUserId })
    .from(mailUnsubscribes)
    .where(and(eq(mailUnsubscribes.orgId, orgId), eq(mailUnsubscribes.endUserId, endUserId)))
    .limit(1);
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
  return new AppError(409, "campaign_not_active", `Campaign ${campaign.slug} is ${campaign.status}: customers can be enrolled only in an active campaign.`, [
    { path: "/campaign", message: `is ${campaign.status}` },
  ]);
}

/**
 * Enrols a customer. Idempotent: enrolling someone already enrolled (or finished) changes nothing;
 * someone removed earlier resumes where they were (never receiving a step twice). A customer who
 * unsubscribed is answered with the state `unsubscribed` and is never mailed.
 */
export async function enrolCustomer(
  deps: Pick<Deps, "db" | "now">,
  {
    orgId,
    actor,
    campaign,
    endUser,
    source,
    addressConfirmed = false,
  }: Acting & { campaign: Campaign; endUser: EndUser; source: string; addressConfirmed?: boolean },
): Promise<{ enrolment: Enrolment; created: boolean }> {
  if (campaign.orgId !== orgId || endUser.orgId !== orgId) throw AppError.notFound();
  if (campaign.status !== "active") throw notActive(campaign);
  // Mail goes only to addresses someone vouched for: a verified token, the org itself (dashboard
  // API, import), or the address's owner through a double opt-in link (`addressConfirmed`,
  // src/campaigns/opt-in.ts). An unverified identify carries whatever address a caller of the
  // public key typed.
  if (!endUser.verified && !addressConfirmed)
    throw new AppError(
      403,
      "customer_not_verified",
      "Email series reach verified customers only: identify the customer with a user_token (identity verification), or create them through the dashboard API.",
    );
  const unsubscribed = await isUnsubscribed(deps, orgId, endUser.id);
  return deps.db.transaction(async (tx) => {
    const now = deps.now();
    const [inserted] = await tx
      .insert(campaignEnrolments)
      .values({
        orgId,
        campaignId: campaign.id,
        endUserId: endUser.id,
        state: unsubscribed ? "unsubscribed" : "active",
        source,
        enrolledAt: now,
        wakeAt: unsubscribed ? null : now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (inserted) {
      await recordActivity(
        { db: tx, now: deps.now },
        { orgId, actor, action: "campaign.enrolled", objectType: "campaign", objectId: campaign.id, summary: { end_user_id: endUser.id, source } },
      );
      return { enrolment: inserted, created: true };
    }
    const [existing] = await tx
      .select()
      .from(campaignEnrolments)
      .where(and(eq(campaignEnrolments.campaignId, campaign.id), eq(campaignEnrolments.endUserId, endUser.id)))
      .for("update");
    if (existing!.state !== "removed" || unsubscribed) return { enrolment: existing!, created: false };
    const [resumed] = await tx
      .update(campaignEnrolments)
      .set({ state: "active", wakeAt: now, updatedAt: now })
      .where(eq(campaignEnrolments.id, existing!.id))
      .returning();
    await recordActivity(
      { db: tx, now: deps.now },
      { orgId, actor, action: "campaign.enrolled", objectType: "campaign", objectId: campaign.id, summary: { end_user_id: endUser.id, source, resumed: true } },
    );
    return { enrolment: resumed!, created: false };
  });
}

/** Removes a customer from a campaign: no further step is queued, and queued ones are cancelled at once. */
export async function removeCustomer(
  deps: Pick<Deps, "db" | "now">,
  { orgId, actor, campaign, endUser }: Acting & { campaign: Campaign; endUser: EndUser },
): Promise<Enrolment | null> {
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
      : await tx
          .select()
          .from(campaignEnrolments)
          .where(and(eq(campaignEnrolments.orgId, orgId), eq(campaignEnrolments.campaignId, campaign.id), eq(campaignEnrolments.endUserId, endUser.id)));
    if (!current) return null;
    await cancelQueued(
      tx,
      outboxOf(tx, and(eq(campaignMessages.orgId, orgId), eq(campaignMessages.enrolmentId, current.id))!),
      "customer removed from the series",
      now,
    );
    if (row)
      await recordActivity(
        { db: tx, now: deps.now },
        { orgId, actor, action: "campaign.removed", objectType: "campaign", objectId: campaign.id, summary: { end_user_id: endUser.id } },
      );
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
