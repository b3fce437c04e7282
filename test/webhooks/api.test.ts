// The dashboard API: replay of a failed delivery reaches a recovered
// receiver and the log shows every attempt; replay of every failed delivery since a time; the
// disable rule; endpoint validation at its limits; the role and the tenant boundary on every route.
// WEBHOOK_RETRY_SCHEDULE=5s,5s here: a delivery fails after three attempts in ten seconds.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { activityLog, outbox } from "../../src/db/schema/index.ts";
import { createSender } from "../../src/compose.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { emitWebhookEvent, EVENT_TYPES } from "../../src/webhooks/events.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { addMember, recordingTransport, seedSeriesOrg, type SeriesOrg } from "../campaigns/helpers.ts";
import { createEndpoint, deliveries, type Receiver, startReceiver } from "./helpers.ts";

let app: TestApp;
let sender: Sender;
const receivers: Receiver[] = [];

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development", WEBHOOK_RETRY_SCHEDULE: "5s,5s" });
  sender = createSender(app.deps, { transport: recordingTransport() });
}, 60_000);
afterAll(async () => {
  await sender.stop();
  for (const r of receivers) r.close();
  await app.close();
}, 30_000);

async function setup(eventTypes = ["ticket.updated"]) {
  const org = await seedSeriesOrg(app);
  const receiver = startReceiver(app);
  receivers.push(receiver);
  const endpoint = await createEndpoint(app, org.auth, receiver, eventTypes);
  return { org, receiver, endpoint };
}

const emit = (org: SeriesOrg, n: number) =>
  app.deps.db.transaction((tx) =>
    emitWebhookEvent(tx, { orgId: org.org_id, type: "ticket.updated", data: { id: `t-${n}`, updated_at: app.clock.now.toISOString() }, now: app.clock.now }),
  );

/** Ticks until nothing is due within the schedule (three attempts, 5 s apart). */
async function runOut() {
  for (let i = 0; i < 3; i++) {
    await sender.tick();
    app.clock.advance(6_000);
  }
}

describe("replay", () => {
  test("a failed delivery replayed reaches the recovered receiver; the log shows every attempt", async () => {
    const { org, receiver, endpoint } = await setup();
    receiver.script.push(503, 503, 503);
    await emit(org, 1);
    await runOut();
    let [log] = await deliveries(app, org.auth, endpoint.id);
    expect(log.status).toBe("failed");
    expect(log.attempts.map((a: any) => a.status_code)).toEqual([503, 503, 503]);
    expect(log.last_error).toContain("gave up after 3 attempts");
    expect((await deliveries(app, org.auth, endpoint.id, "?status=failed")).length).toBe(1);
    expect((await deliveries(app, org.auth, endpoint.id, "?status=succeeded")).length).toBe(0);

    // Two replays at once: both are accepted, and the delivery is sent once (never twice at once).
    const replay = () => app.request(`/api/webhooks/endpoints/${endpoint.id}/deliveries/${log.id}/replay`, { method: "POST", headers: org.auth });
    expect((await Promise.all([replay(), replay()])).map((r) => r.status)).toEqual([202, 202]);
    await sender.tick();
    [log] = await deliveries(app, org.auth, endpoint.id);
    expect(log.status).toBe("succeeded");
    expect(log.attempts.map((a: any) => a.status_code)).toEqual([503, 503, 503, 200]);
    expect(receiver.received).toHaveLength(4);
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([log.webhook_id]));
    expect(receiver.received.at(-1)!.verifiedWith).toEqual([true]);
    // A succeeded delivery can be replayed, and replayed again before it went: still one send.
    expect((await replay()).status).toBe(202);
    expect((await replay()).status).toBe(202);
    await sender.tick();
    expect(receiver.received).toHaveLength(5);
  });

  test("replay of every failed delivery since a time", async () => {
    const { org, receiver, endpoint } = await setup();
    receiver.script.push(...Array(6).fill(500));
    await emit(org, 1);
    await runOut();
    const between = app.clock.now.toISOString();
    app.clock.advance(1000);
    await emit(org, 2);
    await runOut();
    expect((await deliveries(app, org.auth, endpoint.id, "?status=failed")).length).toBe(2);
    const res = await app.request(`/api/webhooks/endpoints/${endpoint.id}/replay`, { headers: org.auth, json: { since: between } });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ replayed: 1 });
    await sender.tick();
    const log = await deliveries(app, org.auth, endpoint.id);
    expect(log.map((d) => d.status)).toEqual(["succeeded", "failed"]);
    expect(receiver.received.at(-1)!.json.data.id).toBe("t-2");
    expect((await app.request(`/api/webhooks/endpoints/${endpoint.id}/replay`, { headers: org.auth, json: { since: "yesterday" } })).status).toBe(400);
  });
});

describe("the disable rule", () => {
  test("an endpoint failing for 5 days is disabled; admins see why; re-enabling clears it", async () => {
    const { org, receiver, endpoint } = await setup();
    receiver.script.push(...Array(100).fill(500));
    await emit(org, 1);
    await runOut();
    app.clock.advance(4 * 86_400_000);
    await emit(org, 2);
    await runOut();
    let view = (await (await app.request(`/api/webhooks/endpoints/${endpoint.id}`, { headers: org.auth })).json()) as any;
    expect(view.enabled).toBe(true);
    expect(view.failing_since).not.toBeNull();
    app.clock.advance(86_400_000);
    await emit(org, 3);
    await sender.tick();
    view = (await (await app.request(`/api/webhooks/endpoints/${endpoint.id}`, { headers: org.auth })).json()) as any;
    expect(view.enabled).toBe(false);
    expect(view.disabled_reason).toContain("every delivery failed since");
    const activity = await app.deps.db
      .select()
      .from(activityLog)
      .where(and(eq(activityLog.orgId, org.org_id), eq(activityLog.action, "webhook_endpoint.disabled")));
    expect(activity).toHaveLength(1);
    // Nothing more is queued for a disabled endpoint.
    const before = receiver.received.length;
    await emit(org, 4);
    await sender.tick();
    expect(receiver.received.length).toBe(before);
    // Re-enabled by an admin: healthy again.
    receiver.script.length = 0;
    const patched = (await (
      await app.request(`/api/webhooks/endpoints/${endpoint.id}`, { method: "PATCH", headers: org.auth, json: { enabled: true } })
    ).json()) as any;
    expect([patched.enabled, patched.disabled_reason, patched.failing_since]).toEqual([true, null, null]);
  });
});

describe("the dashboard API", () => {
  test("create, list, update, test event, delete; activity recorded; limits at their boundary", async () => {
    const { org, receiver, endpoint } = await setup(["ticket.created"]);
    const list = (await (await app.request("/api/webhooks/endpoints", { headers: org.auth })).json()) as any;
    expect(list.endpoints.map((e: any) => e.id)).toEqual([endpoint.id]);
    expect(JSON.stringify(list)).not.toContain("whsec_");

    const bad = [
      { url: receiver.url, event_types: [] },
      { url: receiver.url, event_types: ["ticket.deleted"] },
      { url: receiver.url, event_types: ["ticket.created", "ticket.created"] },
      { url: receiver.url, event_types: ["ticket.created"], description: "d".repeat(501) },
    ];
    for (const [i, json] of bad.entries()) expect([i, (await app.request("/api/webhooks/endpoints", { headers: org.auth, json })).status]).toEqual([i, 400]);
    const atLimit = await app.request(`/api/webhooks/endpoints/${endpoint.id}`, {
      method: "PATCH",
      headers: org.auth,
      json: { description: "d".repeat(500), event_types: ["ticket.created", "ticket.updated"] },
    });
    expect(atLimit.status).toBe(200);
    expect(((await atLimit.json()) as any).event_types).toEqual(["ticket.created", "ticket.updated"]);

    const tested = await app.request(`/api/webhooks/endpoints/${endpoint.id}/test`, { method: "POST", headers: org.auth });
    expect(tested.status).toBe(202);
    await sender.tick();
    expect(receiver.received.at(-1)!.json.type).toBe("webhook.test");
    expect(receiver.received.at(-1)!.headers["webhook-id"]).toBe(((await tested.json()) as any).webhook_id);

    // A new URL goes through the guard too.
    app.hosts.set("hooks.private.example", ["192.168.1.10"]);
    const moved = await app.request(`/api/webhooks/endpoints/${endpoint.id}`, {
      method: "PATCH",
      headers: org.auth,
      json: { url: "http://hooks.private.example/in" },
    });
    expect(moved.status).toBe(400);
    // Deleting cancels what is still queued for it.
    await app.deps.db.transaction((tx) =>
      emitWebhookEvent(tx, { orgId: org.org_id, type: "ticket.created", data: { id: "queued", updated_at: app.clock.now.toISOString() }, now: app.clock.now }),
    );
    const queued = await deliveries(app, org.auth, endpoint.id, "?status=pending");
    expect(queued).toHaveLength(1);
    expect((await app.request(`/api/webhooks/endpoints/${endpoint.id}`, { method: "DELETE", headers: org.auth })).status).toBe(204);
    const [row] = await app.deps.db
      .select({ status: outbox.status, reason: outbox.lastError })
      .from(outbox)
      .where(eq(outbox.payload, { delivery_id: queued[0].id }));
    expect(row).toEqual({ status: "cancelled", reason: "the endpoint was deleted" });
    const before = receiver.received.length;
    await sender.tick();
    expect(receiver.received.length).toBe(before);
    expect((await app.request(`/api/webhooks/endpoints/${endpoint.id}`, { headers: org.auth })).status).toBe(404);
    const actions = (
      await app.deps.db
        .select({ action: activityLog.action })
        .from(activityLog)
        .where(and(eq(activityLog.orgId, org.org_id), eq(activityLog.objectId, endpoint.id)))
    ).map((a) => a.action);
    expect(actions.sort()).toEqual(["webhook_endpoint.created", "webhook_endpoint.deleted", "webhook_endpoint.tested", "webhook_endpoint.updated"]);
  });

  test("another org's endpoint is not found on every route; other roles are refused", async () => {
    const { org, endpoint } = await setup();
    const other = await seedSeriesOrg(app);
    const routes: [string, string, unknown?][] = [
      ["GET", `/api/webhooks/endpoints/${endpoint.id}`],
      ["PATCH", `/api/webhooks/endpoints/${endpoint.id}`, { description: "mine now" }],
      ["DELETE", `/api/webhooks/endpoints/${endpoint.id}`],
      ["POST", `/api/webhooks/endpoints/${endpoint.id}/rotate-secret`],
      ["POST", `/api/webhooks/endpoints/${endpoint.id}/test`],
      ["GET", `/api/webhooks/endpoints/${endpoint.id}/deliveries`],
      ["POST", `/api/webhooks/endpoints/${endpoint.id}/deliveries/${crypto.randomUUID()}/replay`],
      ["POST", `/api/webhooks/endpoints/${endpoint.id}/replay`, { since: new Date(0).toISOString() }],
    ];
    const viewer = await addMember(app, org.org_id, ["inbox:manage", "automation:manage"]);
    for (const [method, path, json] of routes) {
      expect([method, path, (await app.request(path, { method, headers: other.auth, json })).status]).toEqual([method, path, 404]);
      expect([method, path, (await app.request(path, { method, headers: viewer, json })).status]).toEqual([method, path, 403]);
    }
    expect(((await (await app.request("/api/webhooks/endpoints", { headers: other.auth })).json()) as any).endpoints).toEqual([]);
    expect((await app.request("/api/webhooks/endpoints")).status).toBe(401);
    // Unchanged.
    expect(((await (await app.request(`/api/webhooks/endpoints/${endpoint.id}`, { headers: org.auth })).json()) as any).description).toBe("test receiver");
  });
});

describe("the OpenAPI document", () => {
  test("carries the webhook routes and a versioned payload per event type", async () => {
    const doc = (await (await app.request("/api/openapi.json")).json()) as any;
    for (const path of [
      "/api/webhooks/endpoints",
      "/api/webhooks/endpoints/{id}/rotate-secret",
      "/api/webhooks/endpoints/{id}/deliveries",
      "/api/webhooks/endpoints/{id}/replay",
    ])
      expect(doc.paths[path]).toBeDefined();
    expect(doc.paths["/api/webhooks/endpoints"].post.requestBody.content["application/json"].schema.properties.event_types.items.anyOf.length).toBe(
      EVENT_TYPES.length,
    );
    const created = doc.webhooks["ticket.created"].post;
    expect(created.parameters.map((p: any) => p.name)).toEqual(["webhook-id", "webhook-timestamp", "webhook-signature"]);
    const body = created.requestBody.content["application/json"].schema;
    expect(body.properties.version.const).toBe(1);
    expect(body.properties.data.properties.updated_at.format).toBe("date-time");
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES, "webhook.test"].sort());
    // Every payload documents its object's updated_at (ordering is not promised).
    for (const [type, op] of Object.entries(doc.webhooks) as [string, any][])
      expect([type, op.post.requestBody.content["application/json"].schema.properties.data.properties.updated_at?.format]).toEqual([type, "date-time"]);
  });
});
