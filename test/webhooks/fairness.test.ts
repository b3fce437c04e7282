// One org's slow webhook endpoint must not delay anyone else (src/outbox/claim.ts: fair claims;
// src/outbox/pool.ts: one delivery pool per kind). Org A's endpoint never answers within its 15 s while 30 deliveries
// to it are due, all older than anything of org B; org B's webhook and its campaign email (through
// a real SMTP server) arrive in the loop's first tick, with the clock standing still. Then A's
// receiver recovers and every one of A's deliveries arrives within a few ticks. Ticks are fired by
// hand on the loop's injected timers; the 15 s deadlines follow the test clock.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { outbox } from "../../src/db/schema/index.ts";
import { enrolCustomer } from "../../src/campaigns/enrolments.ts";
import { createCampaign, findCampaign, setCampaignStatus } from "../../src/campaigns/lifecycle.ts";
import { createSender } from "../../src/compose.ts";
import type { LoopTimers, Sender } from "../../src/outbox/loop.ts";
import { emitWebhookEvent } from "../../src/webhooks/events.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { seedCustomer, seedSeriesOrg, type SeriesOrg, step } from "../campaigns/helpers.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";
import { createEndpoint, deliveries, type Receiver, startReceiver } from "./helpers.ts";

let app: TestApp;
let smtp: TestSmtp;
let sender: Sender | undefined;
const senders: Sender[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  smtp = await startSmtp();
  app = await createTestApp({ NODE_ENV: "development", SMTP_URL: smtp.url, MAIL_FROM: "news@mail.example.com" });
}, 60_000);
afterAll(async () => {
  for (const r of receivers) r.close(); // ends A's hanging requests, so stop can finish
  for (const s of [sender, ...senders]) await s?.stop();
  await smtp.close();
  await app.close();
}, 30_000);

/** The loop on hand-fired timers: `fire` runs one tick and resolves once it has claimed (the next tick is scheduled). */
function handLoop() {
  const scheduled: (() => void)[] = [];
  let scheduledCount = 0;
  const waiting: (() => void)[] = [];
  const timers: LoopTimers = {
    setTimeout: (run) => {
      scheduled.push(run);
      scheduledCount++;
      for (const resolve of waiting.splice(0)) resolve();
      return scheduledCount;
    },
    clearTimeout: () => {},
  };
  let ticks = 0;
  return {
    timers,
    get ticks() {
      return ticks;
    },
    async fire() {
      const next = new Promise<void>((resolve) => waiting.push(resolve));
      ticks++;
      scheduled.shift()!();
      await next;
    },
  };
}

async function emit(org: SeriesOrg, n: number) {
  await app.deps.db.transaction((tx) =>
    emitWebhookEvent(tx, { orgId: org.org_id, type: "ticket.updated", data: { id: `t-${n}`, updated_at: app.clock.now.toISOString() }, now: app.clock.now }),
  );
}

async function until(what: () => boolean) {
  // Waits for an event that the tick already set going (a request to arrive); it never decides by time.
  while (!what()) await Bun.sleep(5);
}

test("a dead endpoint's backlog delays neither another org's webhook nor its email; its own deliveries all arrive once it answers", async () => {
  const a = await seedSeriesOrg(app);
  const b = await seedSeriesOrg(app);
  const slow = startReceiver(app);
  const fine = startReceiver(app);
  receivers.push(slow, fine);
  slow.hang = true;
  const aEndpoint = await createEndpoint(app, a.auth, slow, ["ticket.updated"]);
  await createEndpoint(app, b.auth, fine, ["ticket.updated"]);
  for (let i = 0; i < 30; i++) await emit(a, i);
  app.clock.advance(1_000); // everything of B is due after all of A's backlog

  await emit(b, 1000);
  const acting = { orgId: b.org_id, actor: { kind: "system" as const, name: "test" } };
  const c = await createCampaign(app.deps, { ...acting, input: { name: "Fair", steps: [step("Welcome")] } });
  await setCampaignStatus(app.deps, { ...acting, ref: c.id, to: "active" });
  await enrolCustomer(app.deps, {
    ...acting,
    campaign: (await findCampaign(app.deps, b.org_id, c.id))!,
    endUser: await seedCustomer(app, b.org_id, { email: "b@example.com" }),
    source: "api",
  });

  const loop = handLoop();
  sender = createSender(app.deps, { timers: loop.timers });
  sender.start();
  const frozen = app.clock.now.getTime();
  await loop.fire();
  await until(() => fine.received.length === 1 && smtp.received.length === 1 && slow.received.length === 2);
  expect(loop.ticks).toBe(1);
  expect(app.clock.now.getTime()).toBe(frozen); // no deadline has passed: A's requests are still open
  expect(fine.received[0]!.verifiedWith).toEqual([true]);
  expect(fine.received[0]!.json.data.id).toBe("t-1000");
  expect(smtp.received[0]!.to).toEqual(["b@example.com"]);
  expect(smtp.received[0]!.headers.get("subject")).toBe("Welcome");
  // A's endpoint holds its two slots and no more: a second tick claims nothing of A's.
  await loop.fire();
  const sending = await app.deps.db
    .select({ id: outbox.id })
    .from(outbox)
    .where(and(eq(outbox.orgId, a.org_id), eq(outbox.status, "sending")));
  expect(sending).toHaveLength(2);
  expect(slow.received).toHaveLength(2);

  // A's receiver recovers; the two open requests run out at 15 s and are retried (5 s, + jitter).
  slow.hang = false;
  app.clock.advance(15_000);
  let ticks = 0;
  const answered = () => new Set(slow.received.slice(2).map((r) => r.headers["webhook-id"])).size;
  while (answered() < 30 && ticks < 10) {
    await loop.fire();
    ticks++;
    // Nothing hangs any more: wait for every delivery this tick set going (and the refills after them).
    await sender.idle();
    app.clock.advance(6_000);
  }
  expect(answered()).toBe(30);
  expect(ticks).toBeLessThanOrEqual(3);
  const log = await deliveries(app, a.auth, aEndpoint.id, "?limit=200");
  expect(log).toHaveLength(30);
  expect(log.every((d) => d.status === "succeeded")).toBe(true);
  // Every delivery was delivered successfully; the two that timed out kept their failed attempt.
  expect(log.filter((d) => d.attempts.length === 2).every((d) => d.attempts[0].error === "no answer within 15 s")).toBe(true);
  expect(log.filter((d) => d.attempts.length === 2)).toHaveLength(2);
}, 60_000);

test("webhook slots all held by endpoints that do not answer: email still goes out in the first tick (a pool per kind)", async () => {
  const hanging: Receiver[] = [];
  for (const org of [await seedSeriesOrg(app), await seedSeriesOrg(app)])
    for (let e = 0; e < 2; e++) {
      const receiver = startReceiver(app);
      receiver.hang = true;
      receivers.push(receiver);
      hanging.push(receiver);
      await createEndpoint(app, org.auth, receiver, ["ticket.updated"]);
      for (let i = 0; i < 3; i++) await emit(org, i);
    }
  const m = await seedSeriesOrg(app);
  const acting = { orgId: m.org_id, actor: { kind: "system" as const, name: "test" } };
  const c = await createCampaign(app.deps, { ...acting, input: { name: "Still", steps: [step("Still mailing")] } });
  await setCampaignStatus(app.deps, { ...acting, ref: c.id, to: "active" });
  await enrolCustomer(app.deps, {
    ...acting,
    campaign: (await findCampaign(app.deps, m.org_id, c.id))!,
    endUser: await seedCustomer(app, m.org_id, { email: "still@example.com" }),
    source: "api",
  });
  const mailed = smtp.received.length;

  const loop = handLoop();
  const second = createSender(app.deps, { timers: loop.timers });
  senders.push(second);
  second.start();
  await loop.fire();
  // Eight requests open (2 per endpoint, 4 per org: every webhook slot of the process), and the email delivered.
  await until(() => hanging.reduce((n, r) => n + r.received.length, 0) === 8 && smtp.received.length === mailed + 1);
  expect(loop.ticks).toBe(1);
  expect(hanging.map((r) => r.received.length)).toEqual([2, 2, 2, 2]);
  expect(smtp.received.at(-1)!.to).toEqual(["still@example.com"]);
  for (const r of hanging) r.hang = false;
  app.clock.advance(15_000); // the open requests run out; the loop is left idle for afterAll
  await second.idle();
}, 60_000);
