// Delivering one webhook (Standard Webhooks; docs/interface.md G): the outbox handler of kind
// `webhook`. Each attempt signs the stored body afresh with the `standardwebhooks` package
// (a fresh `webhook-timestamp`, since receivers refuse timestamps more than ~5 minutes off, but the
// same `webhook-id`), POSTs exactly those bytes through the outbound guard (address checked on
// every attempt, no redirects, no proxy) with a 15 s deadline, keeps the first bytes of the answer
// for the delivery log, and reports success on a 2xx. Anything else — another status, a redirect,
// a timeout, a refused address — is retried on WEBHOOK_RETRY_SCHEDULE with jitter.
import { and, eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { recordActivity } from "../activity/log.ts";
import { webhookAttempts, webhookDeliveries, webhookEndpoints, webhookEvents } from "../db/schema/index.ts";
import type { Db, Tx } from "../db/client.ts";
import type { Deps } from "../deps.ts";
import { messageOf } from "../errors.ts";
import { isTimeout } from "../kit/timeouts.ts";
import type { OutboxHandler, OutboxOutcome, OutboxRow } from "../outbox/outbox.ts";
import { guardedFetch } from "../net/guard.ts";
import { webhookIdOf } from "./events.ts";

export const WEBHOOK_LIMITS = {
  /** A 2xx within this is success. */
  timeoutMs: 15_000,
  /** How much of a receiver's answer the delivery log keeps. */
  responseBytes: 1024,
  /** An endpoint failing every attempt for this long is disabled (docs/decisions.md "Webhooks"). */
  disableAfterMs: 5 * 24 * 3600_000,
  /** How long the previous secret keeps signing after a rotation. */
  rotationOverlapMs: 24 * 3600_000,
  /** Retry waits are stretched by up to this fraction. */
  jitter: 0.1,
};

type Endpoint = typeof webhookEndpoints.$inferSelect;
export const secretContext = (endpointId: string) => `webhook_endpoints.secret:${endpointId}`;
export const previousSecretContext = (endpointId: string) => `webhook_endpoints.previous_secret:${endpointId}`;

/** The secrets that sign now: the current one, and the previous one during a rotation's overlap. */
export function signingSecrets(deps: Pick<Deps, "cipher">, endpoint: Endpoint, now: Date): string[] {
  const secrets = [deps.cipher.decrypt(endpoint.secret, secretContext(endpoint.id))];
  if (endpoint.previousSecret && endpoint.previousSecretUntil && endpoint.previousSecretUntil > now)
    secrets.push(deps.cipher.decrypt(endpoint.previousSecret, previousSecretContext(endpoint.id)));
  return secrets;
}

/** The three Standard Webhooks headers; several signatures are space-separated (rotation). */
export function signedHeaders(secrets: string[], webhookId: string, at: Date, body: string): Record<string, string> {
  // Integer seconds: the library signs with the timestamp rounded down the same way.
  const timestamp = new Date(Math.floor(at.getTime() / 1000) * 1000);
  return {
    "webhook-id": webhookId,
    "webhook-timestamp": String(timestamp.getTime() / 1000),
    "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(webhookId, timestamp, body)).join(" "),
  };
}

/** Reads at most `max` bytes of a body (then stops reading); the log keeps a prefix, not an error. */
async function readPrefix(response: Response, max: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.byteLength;
  }
  // NUL cannot be stored in a PostgreSQL text column: a receiver's binary answer must not break the log.
  return new TextDecoder().decode(bytes.subarray(0, max)).replaceAll("\0", "\uFFFD");
}

export function webhookHandler(deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "now" | "timers">): OutboxHandler {
  return {
    retrySchedule: deps.config.webhookRetrySchedule,
    jitter: WEBHOOK_LIMITS.jitter,
    deliver: (row) => deliverWebhook(deps, row),
  };
}

async function deliverWebhook(deps: Pick<Deps, "cipher" | "db" | "guard" | "now" | "timers">, row: OutboxRow): Promise<OutboxOutcome> {
  const deliveryId = String(row.payload.delivery_id ?? "");
  const [found] = await deps.db
    .select({ delivery: webhookDeliveries, endpoint: webhookEndpoints, body: webhookEvents.body })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(and(eq(webhookDeliveries.orgId, row.orgId), eq(webhookDeliveries.id, deliveryId)));
  if (!found) return { kind: "cancelled", reason: "the endpoint was deleted" };
  const { endpoint, body } = found;
  if (!endpoint.enabled)
    return { kind: "cancelled", reason: endpoint.disabledReason ? `the endpoint is disabled: ${endpoint.disabledReason}` : "the endpoint is disabled" };

  const started = deps.now();
  const headers = {
    ...signedHeaders(signingSecrets(deps, endpoint, started), webhookIdOf(deliveryId), started, body),
    "content-type": "application/json",
    "user-agent": "svc-agents-webhooks/1",
  };
  const clock = performance.now();
  let statusCode: number | null = null;
  let responseBody: string | null = null;
  let error: string | null = null;
  try {
    const response = await guardedFetch(endpoint.url, { method: "POST", headers, body, signal: deps.timers.deadline(WEBHOOK_LIMITS.timeoutMs) }, deps.guard);
    statusCode = response.status;
    responseBody = await readPrefix(response, WEBHOOK_LIMITS.responseBytes).catch(() => null);
    if (statusCode < 200 || statusCode > 299) error = `the receiver answered ${statusCode}`;
  } catch (caught) {
    error = isTimeout(caught) ? `no answer within ${WEBHOOK_LIMITS.timeoutMs / 1000} s` : messageOf(caught);
  }
  const durationMs = Math.round(performance.now() - clock);
  const attempt = { orgId: row.orgId, deliveryId, attemptedAt: started, statusCode, success: error === null, durationMs, error, responseBody };
  // The attempt's log and the endpoint's failing state are written with the outcome (OutboxOutcome
  // `record`), so a database that goes away after the receiver answered costs no second delivery.
  if (error === null)
    return {
      kind: "sent",
      async record(tx) {
        await tx.insert(webhookAttempts).values(attempt);
        if (endpoint.failingSince) await tx.update(webhookEndpoints).set({ failingSince: null }).where(eq(webhookEndpoints.id, endpoint.id));
      },
    };
  const failingSince = endpoint.failingSince;
  if (failingSince && deps.now().getTime() - failingSince.getTime() >= WEBHOOK_LIMITS.disableAfterMs)
    return {
      kind: "failed",
      reason: `${error}; the endpoint was disabled after failing since ${failingSince.toISOString()}`,
      async record(tx, now) {
        await tx.insert(webhookAttempts).values(attempt);
        await disableFailing(tx, endpoint, failingSince, now);
      },
    };
  return {
    kind: "retry",
    reason: error,
    async record(tx, now) {
      await tx.insert(webhookAttempts).values(attempt);
      if (!failingSince) await tx.update(webhookEndpoints).set({ failingSince: now }).where(eq(webhookEndpoints.id, endpoint.id));
    },
  };
}

/** The disable rule: every attempt failed for WEBHOOK_LIMITS.disableAfterMs; admins see why (endpoint field and activity log). */
async function disableFailing(tx: Db | Tx, endpoint: Endpoint, failingSince: Date, now: Date) {
  const reason = `every delivery failed since ${failingSince.toISOString()} (${WEBHOOK_LIMITS.disableAfterMs / 86_400_000} days); re-enable it once the receiver works`;
  const updated = await tx
    .update(webhookEndpoints)
    .set({ enabled: false, disabledReason: reason, updatedAt: now })
    .where(and(eq(webhookEndpoints.id, endpoint.id), eq(webhookEndpoints.enabled, true)))
    .returning({ id: webhookEndpoints.id });
  if (updated.length === 1)
    await recordActivity(
      { db: tx, now: () => now },
      {
        orgId: endpoint.orgId,
        actor: { kind: "system", name: "webhooks" },
        action: "webhook_endpoint.disabled",
        objectType: "webhook_endpoint",
        objectId: endpoint.id,
        summary: { reason },
      },
    );
}
