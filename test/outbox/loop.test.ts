// The sender loop runs on injected timers: start schedules a tick, each tick schedules the next
// once its claims are made (deliveries go on meanwhile: sender.idle() waits for them), and stop
// clears the pending timer and waits for a tick in progress.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { enrolCustomer } from "../../src/campaigns/enrolments.ts";
import { createCampaign, findCampaign, setCampaignStatus } from "../../src/campaigns/lifecycle.ts";
import { createSender } from "../../src/compose.ts";
import type { LoopTimers } from "../../src/outbox/loop.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { recordingTransport, seedCustomer, seedSeriesOrg, step } from "../campaigns/helpers.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(() => app.close());

test("ticks on the injected timers, one after another, until stopped", async () => {
  const org = await seedSeriesOrg(app);
  const acting = { orgId: org.org_id, actor: { kind: "system" as const, name: "test" } };
  const c = await createCampaign(app.deps, { ...acting, input: { name: "Loop", steps: [step("L1"), step("L2", 5), step("L3", 5)] } });
  await setCampaignStatus(app.deps, { ...acting, ref: c.id, to: "active" });
  await enrolCustomer(app.deps, {
    ...acting,
    campaign: (await findCampaign(app.deps, org.org_id, c.id))!,
    endUser: await seedCustomer(app, org.org_id, { email: "loop@example.com" }),
    source: "api",
  });

  const scheduled: { run: () => void; ms: number; handle: number }[] = [];
  const cleared: unknown[] = [];
  let handles = 0;
  const timers: LoopTimers = {
    setTimeout: (run, ms) => {
      scheduled.push({ run, ms, handle: ++handles });
      return handles;
    },
    clearTimeout: (handle) => cleared.push(handle),
  };
  const transport = recordingTransport();
  const sender = createSender(app.deps, { timers, intervalMs: 250, transport });
  expect(scheduled).toHaveLength(0);
  sender.start();
  expect(scheduled.map((s) => s.ms)).toEqual([250]);

  const fire = async () => {
    const before = scheduled.length;
    scheduled.at(-1)!.run();
    for (let i = 0; i < 200 && scheduled.length === before; i++) await Bun.sleep(10);
    expect(scheduled.length).toBe(before + 1); // the next tick is scheduled once this one claimed
    await sender.idle();
  };
  await fire();
  expect(transport.sent.map((m) => m.subject)).toEqual(["L1"]);
  app.clock.advance(5_000);
  await fire();
  expect(transport.sent.map((m) => m.subject)).toEqual(["L1", "L2"]);

  await sender.stop();
  expect(cleared).toEqual([scheduled.at(-1)!.handle]);
  const count = scheduled.length;
  app.clock.advance(5_000);
  scheduled.at(-1)!.run(); // a timer that fires after stop does nothing
  await Bun.sleep(100);
  expect(scheduled.length).toBe(count);
  expect(transport.sent.map((m) => m.subject)).toEqual(["L1", "L2"]);
});
