// Replay of a delivery still being retried (README "Webhooks"): the receiver was fixed and the
// event is wanted now, not at the next retry hours later. The replay delivers at the sender's next
// pass without moving the clock; if that attempt fails too, the retry schedule goes on from where it
// was. The same for a test event sent while the endpoint is failing, and from the dashboard's
// "Retry now". An attempt under way at that moment is answered 409 `delivery_in_flight`.
// The default WEBHOOK_RETRY_SCHEDULE: 5 s, 5 min, 30 min, 2 h, … (each + up to 10 % jitter).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createSender } from "../../src/compose.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { emitWebhookEvent } from "../../src/webhooks/events.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { recordingTransport, seedSeriesOrg, type SeriesOrg } from "../campaigns/helpers.ts";
import { createEndpoint, deliveries, type Receiver, startReceiver } from "./helpers.ts";

let app: TestApp;
let sender: Sender;
const receivers: Receiver[] = [];

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development" });
  sender = createSender(app.deps, { transport: recordingTransport() });
}, 60_000);
afterAll(async () => {
  await sender.stop();
  for (const r of receivers) r.close();
  await app.close();
}, 30_000);

async function setup() {
  const org = await seedSeriesOrg(app);
  const receiver = startReceiver(app);
  receivers.push(receiver);
  const endpoint = await createEndpoint(app, org.auth, receiver, ["ticket.updated"]);
  return { org, receiver, endpoint };
}

const emit = (org: SeriesOrg, n: number) =>
  app.deps.db.transaction((tx) =>
    emitWebhookEvent(tx, { orgId: org.org_id, type: "ticket.updated", data: { id: `t-${n}`, updated_at: app.clock.now.toISOString() }, now: app.clock.now }),
  );

const replay = (org: SeriesOrg, endpointId: string, deliveryId: string) =>
  app.request(`/api/webhooks/endpoints/${endpointId}/deliveries/${deliveryId}/replay`, { method: "POST", headers: org.auth });

/** Two failed attempts: the delivery then waits about 5 minutes for its third. */
async function failTwice(org: SeriesOrg, receiver: Receiver, endpointId: string, n: number) {
  await emit(org, n);
  await sender.tick();
  app.clock.advance(6_000);
  await sender.tick();
  const [log] = await deliveries(app, org.auth, endpointId);
  expect(log.status).toBe("pending");
  expect(log.attempts.map((a: any) => a.status_code)).toEqual([503, 503]);
  expect(Date.parse(log.next_retry_at) - app.clock.now.getTime()).toBeGreaterThanOrEqual(300_000);
  app.clock.advance(1_000); // a second later the user replays: far from the next retry
  return log;
}

test("a delivery waiting for its next retry, replayed, reaches the fixed receiver now with the same webhook-id", async () => {
  const { org, receiver, endpoint } = await setup();
  receiver.script.push(503, 503);
  const log = await failTwice(org, receiver, endpoint.id, 1);

  // The receiver is fixed (its script is used up: it answers 200). The clock does not move.
  const res = await replay(org, endpoint.id, log.id);
  expect(res.status).toBe(202);
  expect(await res.json()).toEqual({ replayed: 1 });
  await sender.tick();
  const [after] = await deliveries(app, org.auth, endpoint.id);
  expect(after.status).toBe("succeeded");
  expect(after.attempts.map((a: any) => a.status_code)).toEqual([503, 503, 200]);
  expect(receiver.received).toHaveLength(3);
  expect(new Set(receiver.received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([log.webhook_id]));
});

test("if the replayed attempt fails too, the schedule goes on from where it was (the third wait, 30 minutes)", async () => {
  const { org, receiver, endpoint } = await setup();
  receiver.script.push(503, 503, 503);
  const log = await failTwice(org, receiver, endpoint.id, 2);
  expect((await replay(org, endpoint.id, log.id)).status).toBe(202);
  await sender.tick();
  const [after] = await deliveries(app, org.auth, endpoint.id);
  expect(after.status).toBe("pending");
  expect(after.attempts.map((a: any) => a.status_code)).toEqual([503, 503, 503]);
  const wait = Date.parse(after.next_retry_at) - app.clock.now.getTime();
  expect(wait).toBeGreaterThanOrEqual(30 * 60_000);
  expect(wait).toBeLessThan(33 * 60_000);
  app.clock.advance(wait);
  await sender.tick();
  expect((await deliveries(app, org.auth, endpoint.id))[0].status).toBe("succeeded");
  // Replays racing each other all succeed, and the delivery is sent once.
  const sent = receiver.received.length;
  expect((await Promise.all([replay(org, endpoint.id, log.id), replay(org, endpoint.id, log.id)])).map((r) => r.status)).toEqual([202, 202]);
  await sender.tick();
  expect(receiver.received.length).toBe(sent + 1);
});

test("a test event sent while the endpoint is failing is attempted now; replayed while it waits for its retry, it is delivered now", async () => {
  const { org, receiver, endpoint } = await setup();
  receiver.script.push(503, 503, 503);
  await failTwice(org, receiver, endpoint.id, 3); // failing since then; the event waits ~5 minutes
  const tested = await app.request(`/api/webhooks/endpoints/${endpoint.id}/test`, { method: "POST", headers: org.auth });
  expect(tested.status).toBe(202);
  const { delivery_id, webhook_id } = (await tested.json()) as { delivery_id: string; webhook_id: string };
  await sender.tick();
  expect(receiver.received.at(-1)!.headers["webhook-id"]).toBe(webhook_id); // attempted at once (and refused: 503)
  const waiting = (await deliveries(app, org.auth, endpoint.id)).find((d) => d.id === delivery_id);
  expect(waiting.status).toBe("pending");
  expect(waiting.next_retry_at).not.toBeNull();
  app.clock.advance(1_000);

  expect((await replay(org, endpoint.id, delivery_id)).status).toBe(202);
  await sender.tick();
  const done = (await deliveries(app, org.auth, endpoint.id)).find((d) => d.id === delivery_id);
  expect(done.status).toBe("succeeded");
  expect(done.attempts.map((a: any) => a.status_code)).toEqual([503, 200]);
  expect(receiver.received.filter((r) => r.headers["webhook-id"] === webhook_id)).toHaveLength(2);
});

test("the dashboard offers Retry now on a delivery waiting for its retry, and it delivers now", async () => {
  const { org, receiver, endpoint } = await setup();
  receiver.script.push(503, 503);
  const log = await failTwice(org, receiver, endpoint.id, 4);
  const signedIn = await app.request("/signin", {
    form: { email: org.admin_email, password: org.password, return_to: "/dashboard" },
    headers: { origin: app.deps.config.baseUrl },
  });
  const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
  const page = await (await app.request(`/dashboard/webhooks/${endpoint.id}`, { headers: { cookie } })).text();
  expect(page).toContain(`action="/dashboard/webhooks/${endpoint.id}/deliveries/${log.id}/replay"`);
  expect(page).toContain("Retry now");
  const res = await app.request(`/dashboard/webhooks/${endpoint.id}/deliveries/${log.id}/replay`, {
    form: { go: "1" },
    headers: { cookie, origin: app.deps.config.baseUrl },
  });
  expect(res.status).toBe(303);
  await sender.tick();
  expect((await deliveries(app, org.auth, endpoint.id))[0].status).toBe("succeeded");
});

test("an attempt under way right now: 409 delivery_in_flight, and no second send", async () => {
  const { org, receiver, endpoint } = await setup();
  receiver.hang = true;
  await emit(org, 5);
  const arrived = receiver.next();
  const ticking = sender.tick();
  await arrived;
  const [log] = await deliveries(app, org.auth, endpoint.id);
  const res = await replay(org, endpoint.id, log.id);
  expect(res.status).toBe(409);
  expect(((await res.json()) as any).error.code).toBe("delivery_in_flight");
  receiver.hang = false;
  app.clock.advance(15_000); // the attempt's deadline
  await ticking;
  expect(receiver.received).toHaveLength(1);
  // Now it waits for its retry, and a replay sends it at once.
  expect((await replay(org, endpoint.id, log.id)).status).toBe(202);
  await sender.tick();
  expect((await deliveries(app, org.auth, endpoint.id))[0].status).toBe("succeeded");
});
