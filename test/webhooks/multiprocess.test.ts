// Two server processes on one PostgreSQL deliver 500 events to one receiver,
// none lost, each delivered successfully exactly once (the outbox claims rows with FOR UPDATE SKIP
// LOCKED). PGlite is single-process, so this runs on the PostgreSQL pass only. The servers run with
// NODE_ENV=development so the guard lets them reach the loopback receiver.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { emitWebhookEvent } from "../../src/webhooks/events.ts";
import { engine } from "../support/db.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { type RunningServer, startServer } from "../support/process.ts";
import { seedSeriesOrg } from "../campaigns/helpers.ts";
import { createEndpoint, type Receiver, startReceiver } from "./helpers.ts";

if (engine !== "postgres") console.log("test/webhooks/multiprocess.test.ts: PostgreSQL only (set TEST_DATABASE_URL); skipped on PGlite");

describe.skipIf(engine !== "postgres")("webhook delivery by two processes on one PostgreSQL", () => {
  let app: TestApp;
  let receiver: Receiver;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    app = await createTestApp({ NODE_ENV: "development" });
    receiver = startReceiver(app);
  }, 60_000);
  afterAll(async () => {
    for (const s of servers) if (s.proc.exitCode === null) await s.stop();
    receiver?.close();
    await app.close();
  }, 60_000);

  test("500 events, two instances: none lost, each delivered exactly once", async () => {
    const org = await seedSeriesOrg(app);
    await createEndpoint(app, org.auth, receiver, ["ticket.updated"]);
    const env = {
      DATABASE_URL: app.database.url!,
      SECRET_KEY: app.deps.config.secretKey!.toString("base64"),
      SEED_DEMO: "0",
      LOG_LEVEL: "warn",
      NODE_ENV: "development",
    };
    servers.push(await startServer(env), await startServer(env));
    for (let i = 0; i < 500; i++)
      await app.deps.db.transaction((tx) =>
        emitWebhookEvent(tx, {
          orgId: org.org_id,
          type: "ticket.updated",
          data: { id: `t-${i}`, updated_at: app.clock.now.toISOString() },
          now: app.clock.now,
        }),
      );
    const deadline = Date.now() + 120_000;
    while (new Set(receiver.received.map((r) => r.headers["webhook-id"])).size < 500) {
      if (Date.now() > deadline) throw new Error(`timed out: ${receiver.received.length} received`);
      await Bun.sleep(200);
    }
    await Bun.sleep(3000); // a duplicate would arrive within a few ticks
    expect(receiver.received).toHaveLength(500);
    expect(new Set(receiver.received.map((r) => r.json.data.id)).size).toBe(500);
    expect(receiver.received.every((r) => r.verifiedWith[0] === true)).toBe(true);
    for (const s of servers.splice(0)) await s.stop();
  }, 180_000);
});
