// Webhook endpoints and their delivery log for the dashboard (issue #15, role org:manage). Every
// change is recorded in the activity log. The signing secret (`whsec_` + 24 random bytes in
// base64, the Standard Webhooks form) is encrypted per field and shown once: at creation and at
// each rotation. A rotation keeps the previous secret signing for WEBHOOK_LIMITS.rotationOverlapMs,
// so receivers can switch without dropping a delivery (both signatures are sent meanwhile).
import { randomBytes } from "node:crypto";
import { and, desc, eq, gte, inArray, lt, type SQL } from "drizzle-orm";
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import type { Db } from "../db/client.ts";
import { outbox, webhookAttempts, webhookDeliveries, webhookEndpoints, webhookEvents } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import { cancelQueued, dropEnqueued, dueNow, enqueue } from "../outbox/outbox.ts";
import { BlockedUrlError, checkUrl } from "../net/guard.ts";
import { previousSecretContext, secretContext, WEBHOOK_LIMITS } from "./delivery.ts";
import { eventBody, type EventType, queueDelivery, TEST_EVENT_TYPE, WEBHOOK_KIND, webhookIdOf } from "./events.ts";

export const ENDPOINT_LIMITS = { perOrg: 20, description: 500, url: 2048, replayBatch: 1000, page: 50, pageMax: 200 };

type Endpoint = typeof webhookEndpoints.$inferSelect;

export interface EndpointInput {
  url: string;
  description?: string;
  event_types: EventType[];
  enabled?: boolean;
}

export function endpointView(row: Endpoint) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.eventTypes,
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    failing_since: row.failingSince?.toISOString() ?? null,
    previous_secret_expires_at: row.previousSecretUntil?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

const newSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

async function checkTarget(deps: Deps, url: string) {
  try {
    await checkUrl(url, deps.guard);
  } catch (error) {
    if (error instanceof BlockedUrlError) throw AppError.badRequest("The webhook URL is not allowed.", [{ path: "/url", message: error.message }]);
    throw error;
  }
}

async function endpointRow(deps: Deps, orgId: string, id: string): Promise<Endpoint> {
  if (!isUuid(id)) throw AppError.notFound("No such webhook endpoint.");
  const [row] = await deps.db.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)));
  if (!row) throw AppError.notFound("No such webhook endpoint.");
  return row;
}

export async function listEndpoints(deps: Deps, orgId: string) {
  const rows = await deps.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.orgId, orgId)).orderBy(webhookEndpoints.createdAt);
  return rows.map(endpointView);
}

export async function getEndpoint(deps: Deps, orgId: string, id: string) {
  return endpointView(await endpointRow(deps, orgId, id));
}

export async function createEndpoint(deps: Deps, orgId: string, actor: Actor, input: EndpointInput) {
  await checkTarget(deps, input.url);
  const now = deps.now();
  const id = crypto.randomUUID();
  const secret = newSecret();
  const row = await deps.db.transaction(async (tx) => {
    const existing = await tx.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(eq(webhookEndpoints.orgId, orgId));
    if (existing.length >= ENDPOINT_LIMITS.perOrg) throw new AppError(409, "limit_reached", `An organisation has at most ${ENDPOINT_LIMITS.perOrg} webhook endpoints.`);
    const [created] = await tx
      .insert(webhookEndpoints)
      .values({
        id,
        orgId,
        url: input.url,
        description: input.description ?? "",
        eventTypes: [...new Set(input.event_types)],
        enabled: input.enabled ?? true,
        secret: deps.cipher.encrypt(secret, secretContext(id)),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await recordActivity({ db: tx as unknown as Db, now: () => now }, { orgId, actor, action: "webhook_endpoint.created", objectType: "webhook_endpoint", objectId: id, summary: { host: new URL(input.url).host, event_types: created!.eventTypes } });
    return created!;
  });
  return { ...endpointView(row), secret };
}

export async function updateEndpoint(deps: Deps, orgId: string, actor: Actor, id: string, patch: Partial<EndpointInput>) {
  const row = await endpointRow(deps, orgId, id);
  if (patch.url !== undefined) await checkTarget(deps, patch.url);
  const now = deps.now();
  const set: Partial<typeof webhookEndpoints.$inferInsert> = { updatedAt: now };
  if (patch.url !== undefined) set.url = patch.url;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.event_types !== undefined) set.eventTypes = [...new Set(patch.event_types)];
  if (patch.enabled !== undefined) {
    set.enabled = patch.enabled;
    // Re-enabling starts afresh: the automatic reason and the failure streak are cleared.
    if (patch.enabled) Object.assign(set, { disabledReason: null, failingSince: null });
  }
  return deps.db.transaction(async (tx) => {
    const [updated] = await tx.update(webhookEndpoints).set(set).where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, row.id))).returning();
    await recordActivity({ db: tx as unknown as Db, now: () => now }, { orgId, actor, action: "webhook_endpoint.updated", objectType: "webhook_endpoint", objectId: row.id, summary: { fields: Object.keys(patch) } });
    return endpointView(updated!);
  });
}

export async function deleteEndpoint(deps: Deps, orgId: string, actor: Actor, id: string) {
  const row = await endpointRow(deps, orgId, id);
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    // Queued attempts go with it; one being sent right now finds the delivery gone and stops.
    await cancelQueued(tx, tx.select({ id: webhookDeliveries.outboxId }).from(webhookDeliveries).where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.endpointId, row.id))), "the endpoint was deleted", now);
    await tx.delete(webhookEndpoints).where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, row.id)));
    await recordActivity({ db: tx as unknown as Db, now: () => now }, { orgId, actor, action: "webhook_endpoint.deleted", objectType: "webhook_endpoint", objectId: row.id, summary: { host: new URL(row.url).host } });
  });
}

/** A new secret, shown once; the current one becomes the previous and keeps signing for the overlap. */
export async function rotateSecret(deps: Deps, orgId: string, actor: Actor, id: string) {
  const row = await endpointRow(deps, orgId, id);
  const now = deps.now();
  const secret = newSecret();
  const current = deps.cipher.decrypt(row.secret, secretContext(row.id));
  const until = new Date(now.getTime() + WEBHOOK_LIMITS.rotationOverlapMs);
  return deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(webhookEndpoints)
      .set({ secret: deps.cipher.encrypt(secret, secretContext(row.id)), previousSecret: deps.cipher.encrypt(current, previousSecretContext(row.id)), previousSecretUntil: until, updatedAt: now })
      .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, row.id)))
      .returning();
    await recordActivity({ db: tx as unknown as Db, now: () => now }, { orgId, actor, action: "webhook_endpoint.secret_rotated", objectType: "webhook_endpoint", objectId: row.id, summary: { previous_secret_expires_at: until.toISOString() } });
    return { ...endpointView(updated!), secret };
  });
}

/** Queues a `webhook.test` event to this endpoint only, whatever it subscribes to; 409 when it is disabled. */
export async function sendTestEvent(deps: Deps, orgId: string, actor: Actor, id: string) {
  const row = await endpointRow(deps, orgId, id);
  if (!row.enabled) throw new AppError(409, "endpoint_disabled", "Enable the endpoint before sending it a test event.");
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const [event] = await tx
      .insert(webhookEvents)
      .values({ orgId, type: TEST_EVENT_TYPE, body: eventBody(TEST_EVENT_TYPE, { endpoint_id: row.id, message: "A test event from the dashboard.", updated_at: now.toISOString() }, now), createdAt: now })
      .returning({ id: webhookEvents.id });
    const deliveryId = await queueDelivery(tx, { orgId, endpointId: row.id, eventId: event!.id, eventType: TEST_EVENT_TYPE, now });
    await recordActivity({ db: tx as unknown as Db, now: () => now }, { orgId, actor, action: "webhook_endpoint.tested", objectType: "webhook_endpoint", objectId: row.id, summary: { delivery_id: deliveryId } });
    return { delivery_id: deliveryId, webhook_id: webhookIdOf(deliveryId) };
  });
}

// ---------- the delivery log ----------

export type DeliveryStatus = "pending" | "succeeded" | "failed" | "cancelled";
const OUTBOX_STATUSES: Record<DeliveryStatus, string[]> = { pending: ["pending", "sending", "parked"], succeeded: ["sent"], failed: ["failed", "held"], cancelled: ["cancelled"] };
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
export async function listDeliveries(deps: Deps, orgId: string, endpointId: string, filters: DeliveryFilters = {}) {
  const endpoint = await endpointRow(deps, orgId, endpointId);
  const where: SQL[] = [eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.endpointId, endpoint.id)];
  if (filters.status) where.push(inArray(outbox.status, OUTBOX_STATUSES[filters.status] as never[]));
  if (filters.eventType) where.push(eq(webhookDeliveries.eventType, filters.eventType));
  if (filters.since) where.push(gte(webhookDeliveries.createdAt, filters.since));
  if (filters.before) where.push(lt(webhookDeliveries.createdAt, filters.before));
  const rows = await deps.db
    .select({ delivery: webhookDeliveries, status: outbox.status, runAt: outbox.runAt, lastError: outbox.lastError })
    .from(webhookDeliveries)
    .innerJoin(outbox, eq(outbox.id, webhookDeliveries.outboxId))
    .where(and(...where))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(Math.min(filters.limit ?? ENDPOINT_LIMITS.page, ENDPOINT_LIMITS.pageMax));
  const attempts = rows.length
    ? await deps.db
        .select()
        .from(webhookAttempts)
        .where(and(eq(webhookAttempts.orgId, orgId), inArray(webhookAttempts.deliveryId, rows.map((r) => r.delivery.id))))
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
export async function replayDelivery(deps: Deps, orgId: string, actor: Actor, endpointId: string, deliveryId: string) {
  const endpoint = await endpointRow(deps, orgId, endpointId);
  if (!isUuid(deliveryId)) throw AppError.notFound("No such delivery.");
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const db = tx as unknown as Db;
    // The outbox row is locked, so a sender's claim or outcome waits for this decision (or this for it).
    const [found] = await db
      .select({ id: webhookDeliveries.id, outboxId: webhookDeliveries.outboxId, status: outbox.status, lockedUntil: outbox.lockedUntil })
      .from(webhookDeliveries)
      .innerJoin(outbox, eq(outbox.id, webhookDeliveries.outboxId))
      .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.endpointId, endpoint.id), eq(webhookDeliveries.id, deliveryId)))
      .for("update", { of: outbox });
    if (!found) throw AppError.notFound("No such delivery.");
    if (found.status === "sending" && found.lockedUntil && found.lockedUntil > now)
      throw new AppError(409, "delivery_in_flight", `An attempt of this delivery is under way right now; its outcome is in the delivery log within ${WEBHOOK_LIMITS.timeoutMs / 1000} s.`);
    if (deliveryStatus(found.status) === "pending") {
      // Waiting for a retry, parked, or left `sending` by a sender that died: due now.
      await dueNow(db, found.outboxId, now);
    } else await replayRows(db, orgId, endpoint.id, [found], now);
    await recordActivity({ db, now: () => now }, { orgId, actor, action: "webhook_delivery.replayed", objectType: "webhook_endpoint", objectId: endpoint.id, summary: { delivery_id: found.id } });
    return { replayed: 1 };
  });
}

/** Sends again every failed delivery of the endpoint created at or after `since` (at most ENDPOINT_LIMITS.replayBatch per call). */
export async function replayFailed(deps: Deps, orgId: string, actor: Actor, endpointId: string, since: Date) {
  const endpoint = await endpointRow(deps, orgId, endpointId);
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const failed = await tx
      .select({ id: webhookDeliveries.id, outboxId: webhookDeliveries.outboxId })
      .from(webhookDeliveries)
      .innerJoin(outbox, eq(outbox.id, webhookDeliveries.outboxId))
      .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.endpointId, endpoint.id), inArray(outbox.status, ["failed", "held"]), gte(webhookDeliveries.createdAt, since)))
      .orderBy(webhookDeliveries.createdAt)
      .limit(ENDPOINT_LIMITS.replayBatch);
    const replayed = await replayRows(tx as unknown as Db, orgId, endpoint.id, failed, now);
    await recordActivity({ db: tx as unknown as Db, now: () => now }, { orgId, actor, action: "webhook_delivery.replayed", objectType: "webhook_endpoint", objectId: endpoint.id, summary: { since: since.toISOString(), count: replayed } });
    return { replayed };
  });
}
