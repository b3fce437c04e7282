// Webhook endpoints and their delivery log for the dashboard (role org:manage). Every
// change is recorded in the activity log. The signing secret (`whsec_` + 24 random bytes in
// base64, the Standard Webhooks form) is encrypted per field and shown once: at creation and at
// each rotation. A rotation keeps the previous secret signing for WEBHOOK_LIMITS.rotationOverlapMs,
// so receivers can switch without dropping a delivery (both signatures are sent meanwhile).
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import { cancelQueued } from "../outbox/outbox.ts";
import { BlockedUrlError, checkUrl } from "../net/guard.ts";
import { previousSecretContext, secretContext, WEBHOOK_LIMITS } from "./delivery.ts";
import { eventBody, type EventType, queueDelivery, TEST_EVENT_TYPE, webhookIdOf } from "./events.ts";

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

async function checkTarget(deps: Pick<Deps, "guard">, url: string) {
  try {
    await checkUrl(url, deps.guard);
  } catch (error) {
    if (error instanceof BlockedUrlError) throw AppError.badRequest("The webhook URL is not allowed.", [{ path: "/url", message: error.message }]);
    throw error;
  }
}

export async function endpointRow(deps: Pick<Deps, "db">, orgId: string, id: string): Promise<Endpoint> {
  if (!isUuid(id)) throw AppError.notFound("No such webhook endpoint.");
  const [row] = await deps.db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, id)));
  if (!row) throw AppError.notFound("No such webhook endpoint.");
  return row;
}

export async function listEndpoints(deps: Pick<Deps, "db">, orgId: string) {
  const rows = await deps.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.orgId, orgId)).orderBy(webhookEndpoints.createdAt);
  return rows.map(endpointView);
}

export async function getEndpoint(deps: Pick<Deps, "db">, orgId: string, id: string) {
  return endpointView(await endpointRow(deps, orgId, id));
}

export async function createEndpoint(deps: Pick<Deps, "cipher" | "db" | "guard" | "now">, orgId: string, actor: Actor, input: EndpointInput) {
  await checkTarget(deps, input.url);
  const now = deps.now();
  const id = crypto.randomUUID();
  const secret = newSecret();
  const row = await deps.db.transaction(async (tx) => {
    const existing = await tx.select({ id: webhookEndpoints.id }).from(webhookEndpoints).where(eq(webhookEndpoints.orgId, orgId));
    if (existing.length >= ENDPOINT_LIMITS.perOrg)
      throw new AppError(409, "limit_reached", `An organisation has at most ${ENDPOINT_LIMITS.perOrg} webhook endpoints.`);
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
    await recordActivity(
      { db: tx, now: () => now },
      {
        orgId,
        actor,
        action: "webhook_endpoint.created",
        objectType: "webhook_endpoint",
        objectId: id,
        summary: { host: new URL(input.url).host, event_types: created!.eventTypes },
      },
    );
    return created!;
  });
  return { ...endpointView(row), secret };
}

export async function updateEndpoint(deps: Pick<Deps, "db" | "guard" | "now">, orgId: string, actor: Actor, id: string, patch: Partial<EndpointInput>) {
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
    const [updated] = await tx
      .update(webhookEndpoints)
      .set(set)
      .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, row.id)))
      .returning();
    await recordActivity(
      { db: tx, now: () => now },
      { orgId, actor, action: "webhook_endpoint.updated", objectType: "webhook_endpoint", objectId: row.id, summary: { fields: Object.keys(patch) } },
    );
    return endpointView(updated!);
  });
}

export async function deleteEndpoint(deps: Pick<Deps, "db" | "now">, orgId: string, actor: Actor, id: string) {
  const row = await endpointRow(deps, orgId, id);
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    // Queued attempts go with it; one being sent right now finds the delivery gone and stops.
    await cancelQueued(
      tx,
      tx
        .select({ id: webhookDeliveries.outboxId })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.endpointId, row.id))),
      "the endpoint was deleted",
      now,
    );
    await tx.delete(webhookEndpoints).where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, row.id)));
    await recordActivity(
      { db: tx, now: () => now },
      { orgId, actor, action: "webhook_endpoint.deleted", objectType: "webhook_endpoint", objectId: row.id, summary: { host: new URL(row.url).host } },
    );
  });
}

/** A new secret, shown once; the current one becomes the previous and keeps signing for the overlap. */
export async function rotateSecret(deps: Pick<Deps, "cipher" | "db" | "now">, orgId: string, actor: Actor, id: string) {
  const row = await endpointRow(deps, orgId, id);
  const now = deps.now();
  const secret = newSecret();
  const current = deps.cipher.decrypt(row.secret, secretContext(row.id));
  const until = new Date(now.getTime() + WEBHOOK_LIMITS.rotationOverlapMs);
  return deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(webhookEndpoints)
      .set({
        secret: deps.cipher.encrypt(secret, secretContext(row.id)),
        previousSecret: deps.cipher.encrypt(current, previousSecretContext(row.id)),
        previousSecretUntil: until,
        updatedAt: now,
      })
      .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.id, row.id)))
      .returning();
    await recordActivity(
      { db: tx, now: () => now },
      {
        orgId,
        actor,
        action: "webhook_endpoint.secret_rotated",
        objectType: "webhook_endpoint",
        objectId: row.id,
        summary: { previous_secret_expires_at: until.toISOString() },
      },
    );
    return { ...endpointView(updated!), secret };
  });
}

/** Queues a `webhook.test` event to this endpoint only, whatever it subscribes to; 409 when it is disabled. */
export async function sendTestEvent(deps: Pick<Deps, "db" | "now">, orgId: string, actor: Actor, id: string) {
  const row = await endpointRow(deps, orgId, id);
  if (!row.enabled) throw new AppError(409, "endpoint_disabled", "Enable the endpoint before sending it a test event.");
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const [event] = await tx
      .insert(webhookEvents)
      .values({
        orgId,
        type: TEST_EVENT_TYPE,
        body: eventBody(TEST_EVENT_TYPE, { endpoint_id: row.id, message: "A test event from the dashboard.", updated_at: now.toISOString() }, now),
        createdAt: now,
      })
      .returning({ id: webhookEvents.id });
    const deliveryId = await queueDelivery(tx, { orgId, endpointId: row.id, eventId: event!.id, eventType: TEST_EVENT_TYPE, now });
    await recordActivity(
      { db: tx, now: () => now },
      { orgId, actor, action: "webhook_endpoint.tested", objectType: "webhook_endpoint", objectId: row.id, summary: { delivery_id: deliveryId } },
    );
    return { delivery_id: deliveryId, webhook_id: webhookIdOf(deliveryId) };
  });
}
