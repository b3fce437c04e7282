// The delivery log of a webhook endpoint and its replays, for the dashboard and /api/webhooks
// (role org:manage): every delivery with its attempts, filtered and paged; a replay sends a
// finished delivery again, or brings one waiting for its retry forward (README "Webhooks").
import {} from "node:crypto";
import { and, desc, eq, gte, inArray, lt, type SQL } from "drizzle-orm";
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import type { Db } from "../db/client.ts";
import { webhookAttempts, webhookDeliveries } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import { dropEnqueued, dueNow, enqueue } from "../outbox/outbox.ts";
import { lockedState, outboxStates } from "../outbox/states.ts";
import { WEBHOOK_LIMITS } from "./delivery.ts";
import { WEBHOOK_KIND, webhookIdOf } from "./events.ts";
import { ENDPOINT_LIMITS, endpointRow } from "./service.ts";

export type DeliveryStatus = "pending" | "succeeded" | "failed" | "cancelled";
const OUTBOX_STATUSES: Record<DeliveryStatus, string[]> = {
  pending: ["pending", "sending", "parked"],
  succeeded: ["sent"],
  failed: ["failed", "held"],
  cancelled: ["cancelled"],
};
function deliveryStatus(outboxStatus: string): DeliveryStatus {
  if (outboxStatus === "sent") return "succeeded";
  if (outboxStatus === "failed" || outboxStatus === "held") return "failed";
  if (outboxStatus === "cancelled") return "cancelled";
  return "pending";
}

export interface DeliveryFilters {
  status?: DeliveryStatus;
  eventType?: string;
  since?: Date;
  before?: Date;
  limit?: number;
}

/** Deliveries of one endpoint, newest first, each with every attempt (status, duration, truncated answer) and the next retry. */
export async function listDeliveries(deps: Pick<Deps, "db">, orgId: string, endpointId: string, filters: DeliveryFilters = {}) {
  const endpoint = await endpointRow(deps, orgId, endpointId);
  const where: SQL[] = [eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.endpointId, endpoint.id)];
  if (filters.status) where.push(inArray(outboxStates.status, OUTBOX_STATUSES[filters.status] as never[]));
  if (filters.eventType) where.push(eq(webhookDeliveries.eventType, filters.eventType));
  if (filters.since) where.push(gte(webhookDeliveries.createdAt, filters.since));
  if (filters.before) where.push(lt(webhookDeliveries.createdAt, filters.before));
  const rows = await deps.db
    .select({ delivery: webhookDeliveries, status: outboxStates.status, runAt: outboxStates.runAt, lastError: outboxStates.lastError })
    .from(webhookDeliveries)
    .innerJoin(outboxStates, eq(outboxStates.id, webhookDeliveries.outboxId))
    .where(and(...where))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(Math.min(filters.limit ?? ENDPOINT_LIMITS.page, ENDPOINT_LIMITS.pageMax));
  const attempts = rows.length
    ? await deps.db
        .select()
        .from(webhookAttempts)
        .where(
          and(
            eq(webhookAttempts.orgId, orgId),
            inArray(
              webhookAttempts.deliveryId,
              rows.map((r) => r.delivery.id),
            ),
          ),
        )
        .orderBy(webhookAttempts.attemptedAt, webhookAttempts.id)
    : [];
  const byDelivery = Map.groupBy(attempts, (a) => a.deliveryId);
  return rows.map(({ delivery, status, runAt, lastError }) => {
    const state = deliveryStatus(status);
    const tried = byDelivery.get(delivery.id) ?? [];
    return {
      id: delivery.id,
      webhook_id: webhookIdOf(delivery.id),
      event_id: delivery.eventId,
      event_type: delivery.eventType,
      status: state,
      last_error: lastError,
      next_retry_at: state === "pending" && tried.length > 0 ? runAt.toISOString() : null,
      created_at: delivery.createdAt.toISOString(),
      attempts: tried.map((a) => ({
        attempted_at: a.attemptedAt.toISOString(),
        status_code: a.statusCode,
        success: a.success,
        duration_ms: a.durationMs,
        error: a.error,
        response_body: a.responseBody,
      })),
    };
  });
}

/**
 * Gives each delivery a new outbox row. Compare-and-set on the delivery's current outbox row: of two
 * concurrent replays of one delivery only one takes effect (the other's row is dropped), so a
 * replay never sends the same delivery twice at once. Returns how many took effect.
 */
async function replayRows(db: Db, orgId: string, endpointId: string, deliveries: { id: string; outboxId: string }[], now: Date): Promise<number> {
  let replayed = 0;
  for (const d of deliveries) {
    // The endpoint is the row's lane: its replays share its slots, not other endpoints'.
    const outboxId = await enqueue(db, { orgId, kind: WEBHOOK_KIND, lane: endpointId, payload: { delivery_id: d.id }, runAt: now, now });
    const moved = await db
      .update(webhookDeliveries)
      .set({ outboxId })
      .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.id, d.id), eq(webhookDeliveries.outboxId, d.outboxId)))
      .returning({ id: webhookDeliveries.id });
    if (moved.length === 1) replayed++;
    else await dropEnqueued(db, outboxId);
  }
  return replayed;
}

/**
 * Sends one delivery again now, with the same webhook-id (README "Webhooks"). A finished delivery
 * gets a fresh retry schedule. One still waiting for its next retry is made due now instead,
 * keeping its attempts: the receiver was fixed and the event is wanted now, not hours later, and if
 * this attempt fails too its schedule goes on from where it was. An attempt under way at this
 * moment is the "now" already: 409 `delivery_in_flight`, never a second send of one delivery at
 * once. Replays racing each other all succeed and send once.
 */
export async function replayDelivery(deps: Pick<Deps, "db" | "now">, orgId: string, actor: Actor, endpointId: string, deliveryId: string) {
  const endpoint = await endpointRow(deps, orgId, endpointId);
  if (!isUuid(deliveryId)) throw AppError.notFound("No such delivery.");
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const db = tx;
    // The outbox row is locked, so a sender's claim or outcome waits for this decision (or this for it).
    const [delivery] = await db
      .select({ id: webhookDeliveries.id, outboxId: webhookDeliveries.outboxId })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.id, deliveryId)));
    const state = delivery ? await lockedState(db, delivery.outboxId) : null;
    if (!delivery || !state) throw AppError.notFound("No such delivery.");
    const found = { ...delivery, ...state };
    if (found.status === "sending" && found.lockedUntil && found.lockedUntil > now)
      throw new AppError(
        409,
        "delivery_in_flight",
        `An attempt of this delivery is under way right now; its outcome is in the delivery log within ${WEBHOOK_LIMITS.timeoutMs / 1000} s.`,
      );
    if (deliveryStatus(found.status) === "pending") {
      // Waiting for a retry, parked, or left `sending` by a sender that died: due now.
      await dueNow(db, found.outboxId, now);
    } else await replayRows(db, orgId, endpoint.id, [found], now);
    await recordActivity(
      { db, now: () => now },
      { orgId, actor, action: "webhook_delivery.replayed", objectType: "webhook_endpoint", objectId: endpoint.id, summary: { delivery_id: found.id } },
    );
    return { replayed: 1 };
  });
}

/** Sends again every failed delivery of the endpoint created at or after `since` (at most ENDPOINT_LIMITS.replayBatch per call). */
export async function replayFailed(deps: Pick<Deps, "db" | "now">, orgId: string, actor: Actor, endpointId: string, since: Date) {
  const endpoint = await endpointRow(deps, orgId, endpointId);
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const failed = await tx
      .select({ id: webhookDeliveries.id, outboxId: webhookDeliveries.outboxId })
      .from(webhookDeliveries)
      .innerJoin(outboxStates, eq(outboxStates.id, webhookDeliveries.outboxId))
      .where(
        and(
          eq(webhookDeliveries.orgId, orgId),
          eq(webhookDeliveries.endpointId, endpoint.id),
          inArray(outboxStates.status, ["failed", "held"]),
          gte(webhookDeliveries.createdAt, since),
        ),
      )
      .orderBy(webhookDeliveries.createdAt)
      .limit(ENDPOINT_LIMITS.replayBatch);
    const replayed = await replayRows(tx, orgId, endpoint.id, failed, now);
    await recordActivity(
      { db: tx, now: () => now },
      {
        orgId,
        actor,
        action: "webhook_delivery.replayed",
        objectType: "webhook_endpoint",
        objectId: endpoint.id,
        summary: { since: since.toISOString(), count: replayed },
      },
    );
    return { replayed };
  });
}
