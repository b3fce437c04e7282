// Email series: reads for the dashboard and the API — campaign lists and enrolment counts, the
// preview of every step, enrolments and messages page by page.
import { and, count, desc, eq, inArray, sql, type SQL } from "drizzle-orm";
import { afterRow, decodeCursor, type KeysetOrder, newestFirst, pageOf } from "../db/keyset.ts";
import { campaignEnrolments, campaignMessages, type CampaignStatus, campaigns, type EnrolmentState } from "../db/schema/index.ts";
import { type OutboxState, outboxStates } from "../outbox/states.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { messageIdFor } from "../mail/message-id.ts";
import { endUsersByIds } from "../customers/lookups.ts";
import { findEndUser } from "../customers/records.ts";
import { renderStep, SAMPLE_CUSTOMER, UNSUBSCRIBE_MARK } from "./templates.ts";
import { CAMPAIGN_LIMITS, type Campaign, ENROLMENT_STATES, enrolmentView } from "./model.ts";
import { dueAt, templateCustomer } from "./progress.ts";

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

// ---------- preview ----------

/** Every step rendered for a customer of the org (or a sample one), without sending anything. */
export async function previewCampaign(deps: Pick<Deps, "config" | "db">, orgId: string, campaign: Campaign, customerRef?: string) {
  let customer = SAMPLE_CUSTOMER;
  let customerOut: { sample: boolean; id?: string; name: string; email: string | null } = {
    sample: true,
    name: SAMPLE_CUSTOMER.name,
    email: SAMPLE_CUSTOMER.email,
  };
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
      return {
        step_id: step.id,
        position: i,
        seconds_after_enrolment: offset,
        subject: mail.subject,
        text: mail.text.replaceAll(UNSUBSCRIBE_MARK, unsubscribe),
        html: mail.html.replaceAll(UNSUBSCRIBE_MARK, unsubscribe),
      };
    }),
  };
}

// ---------- listings ----------

// Newest first, ties by id (src/db/keyset.ts).
const ENROLMENTS: KeysetOrder = {
  table: campaignEnrolments,
  scope: campaignEnrolments.orgId,
  id: campaignEnrolments.id,
  keys: [campaignEnrolments.enrolledAt, campaignEnrolments.id],
};
const MESSAGES: KeysetOrder = {
  table: campaignMessages,
  scope: campaignMessages.orgId,
  id: campaignMessages.id,
  keys: [campaignMessages.createdAt, campaignMessages.id],
};

function afterCursor(order: KeysetOrder, orgId: string, cursor: string): SQL {
  const after = decodeCursor(cursor);
  if (!after) throw AppError.badCursor();
  return afterRow(order, orgId, after);
}

export async function listEnrolments(
  deps: Pick<Deps, "db">,
  orgId: string,
  campaignId: string,
  query: { state?: EnrolmentState; limit?: number; cursor?: string },
) {
  const limit = Math.min(query.limit ?? 50, CAMPAIGN_LIMITS.pageSize);
  const where: SQL[] = [eq(campaignEnrolments.orgId, orgId), eq(campaignEnrolments.campaignId, campaignId)];
  if (query.state) where.push(eq(campaignEnrolments.state, query.state));
  if (query.cursor) where.push(afterCursor(ENROLMENTS, orgId, query.cursor));
  const rows = await deps.db
    .select()
    .from(campaignEnrolments)
    .where(and(...where))
    .orderBy(...newestFirst(ENROLMENTS))
    .limit(limit + 1);
  const { page, nextCursor } = pageOf(rows, limit, (e) => e.id);
  // An enrolment goes with its customer (the foreign key cascades), so every one has its customer.
  const users = await endUsersByIds(
    deps.db,
    orgId,
    page.map((e) => e.endUserId),
  );
  return { enrolments: page.flatMap((e) => (users.has(e.endUserId) ? [enrolmentView(e, users.get(e.endUserId))] : [])), next_cursor: nextCursor };
}

/**
 * How many of a campaign's messages wait in the outbox (pending, including those retrying after a
 * temporary failure, or parked while paused), counting at most `cap`: what archiving cancels.
 */
export async function queuedMessageCount(deps: Pick<Deps, "db">, orgId: string, campaignId: string, cap = 1_000): Promise<{ count: number; capped: boolean }> {
  const queued = deps.db
    .select({ one: sql`1` })
    .from(campaignMessages)
    .innerJoin(outboxStates, eq(outboxStates.id, campaignMessages.outboxId))
    .where(and(eq(campaignMessages.orgId, orgId), eq(campaignMessages.campaignId, campaignId), inArray(outboxStates.status, ["pending", "parked"])))
    .limit(cap + 1)
    .as("queued");
  const [row] = await deps.db.select({ n: count() }).from(queued);
  const n = Number(row?.n ?? 0);
  return { count: Math.min(n, cap), capped: n > cap };
}

/** The Message-ID of an outbox row's email: stable across retries, so a duplicate after a crash is recognisable. */
export async function listMessages(
  deps: Pick<Deps, "config" | "db">,
  orgId: string,
  campaignId: string,
  query: { status?: string; customerId?: string; limit?: number; cursor?: string },
) {
  const limit = Math.min(query.limit ?? 50, CAMPAIGN_LIMITS.pageSize);
  const where: SQL[] = [eq(campaignMessages.orgId, orgId), eq(campaignMessages.campaignId, campaignId)];
  if (query.status) where.push(eq(outboxStates.status, query.status as never));
  if (query.customerId) where.push(eq(campaignMessages.endUserId, query.customerId));
  if (query.cursor) where.push(afterCursor(MESSAGES, orgId, query.cursor));
  const rows = await deps.db
    .select({
      m: campaignMessages,
      o: {
        id: outboxStates.id,
        status: outboxStates.status,
        runAt: outboxStates.runAt,
        lastError: outboxStates.lastError,
        attempts: outboxStates.attempts,
        doneAt: outboxStates.doneAt,
      },
    })
    .from(campaignMessages)
    .innerJoin(outboxStates, eq(outboxStates.id, campaignMessages.outboxId))
    .where(and(...where))
    .orderBy(...newestFirst(MESSAGES))
    .limit(limit + 1);
  const { page, nextCursor } = pageOf(rows, limit, (r) => r.m.id);
  const link = `${deps.config.baseUrl}/u/…`;
  return {
    messages: page.map(({ m, o }) => messageView(m, o, deps.config.mailFrom, link)),
    next_cursor: nextCursor,
  };
}

export function messageView(m: typeof campaignMessages.$inferSelect, o: OutboxState, mailFrom: string, link: string) {
  return {
    id: m.id,
    message_id: messageIdFor(o.id, mailFrom),
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
