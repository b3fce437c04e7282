// README "Faults and shutdown", the database unreachable: a real server process reaches PostgreSQL
// through a TCP proxy in this test (test/support/pg-proxy.ts), so the test stops "the database"
// (connections closed, new ones refused) or makes it stop answering, and brings it back, without
// touching the server other tests share. Outcomes asserted: 503 `database_unavailable` with
// Retry-After on the SDK API and the tool server (never 500, never a hang), /healthz 200 all
// along, /readyz 503 within its 2 s bound of the outage and 200 within 2 s of recovery, the outbox
// loop delivering again without a restart, and every write acknowledged before the outage kept.
// PostgreSQL only (PGlite runs in the process: it has no connection to lose).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { endUsers, outbox, webhookDeliveries, webhookEvents } from "../../../src/db/schema/index.ts";
import { emitWebhookEvent } from "../../../src/webhooks/events.ts";
import { seedSeriesOrg, type SeriesOrg } from "../../campaigns/helpers.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { engine } from "../../support/db.ts";
import { tokensFor } from "../../support/oauth.ts";
import { type PgProxy, startPgProxy } from "../../support/pg-proxy.ts";
import { type RunningServer, startServer } from "../../support/process.ts";
import { createEndpoint, type Receiver, startReceiver } from "../../webhooks/helpers.ts";

if (engine !== "postgres") console.log("test/e2e/faults/database-outage.test.ts: PostgreSQL only (set TEST_DATABASE_URL); skipped on PGlite");

/** The bounds README "Faults and shutdown" documents. */
const READY_BOUND_MS = 2000;

describe.skipIf(engine !== "postgres")("the database goes away and comes back", () => {
  let app: TestApp;
  let org: SeriesOrg;
  let proxy: PgProxy;
  let server: RunningServer;
  let receiver: Receiver;
  let mcpToken: string;
  let unusedToken: string;

  beforeAll(async () => {
    app = await createTestApp({ NODE_ENV: "development" });
    org = await seedSeriesOrg(app);
    receiver = startReceiver(app);
    await createEndpoint(app, org.auth, receiver, ["ticket.updated"]);
    mcpToken = (await tokensFor(app, org, undefined, "203.0.113.90")).accessToken;
    unusedToken = (await tokensFor(app, org, undefined, "203.0.113.91")).accessToken;
    proxy = await startPgProxy(app.database.url!);
    server = await startServer({
      DATABASE_URL: proxy.url,
      SECRET_KEY: app.deps.config.secretKey!.toString("base64"),
      SEED_DEMO: "0",
      LOG_LEVEL: "error",
      NODE_ENV: "development",
      DATABASE_CONNECT_TIMEOUT_SECONDS: "2",
    });
  }, 120_000);
  afterAll(async () => {
    proxy?.restore();
    if (server && server.proc.exitCode === null) await server.stop();
    proxy?.close();
    receiver?.close();
    await app?.close();
  }, 60_000);

  const identify = (userId: string) =>
    fetch(`${server.url}/api/sdk/users/identify`, {
      method: "POST",
      headers: { authorization: `Bearer ${org.widget_key}`, "content-type": "application/json" },
      body: JSON.stringify({ user_id: userId }),
    });
  const searchDocs = (token = mcpToken) =>
    fetch(`${server.url}/api/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "search_docs", arguments: { query: "returns" } } }),
    });
  const timed = async (url: string) => {
    const started = performance.now();
    const res = await fetch(url);
    return { status: res.status, ms: performance.now() - started };
  };
  const readyWithin = async (boundMs: number) => {
    const from = performance.now();
    for (;;) {
      if ((await fetch(`${server.url}/readyz`)).status === 200) return performance.now() - from;
      if (performance.now() - from > boundMs * 5) return Infinity;
      await Bun.sleep(50);
    }
  };

  async function expectUnavailable(res: Response) {
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    return (await res.json()) as any;
  }

  test("stopped: 503 database_unavailable with Retry-After everywhere, /healthz 200, /readyz 503 then 200 within 2 s; nothing acknowledged lost", async () => {
    expect((await identify("before-outage")).status).toBe(200);
    expect((await searchDocs()).status).toBe(200);

    proxy.cut();
    const ready = await timed(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.ms).toBeLessThan(READY_BOUND_MS);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    const sdk = await expectUnavailable(await identify("during-outage"));
    expect(sdk.error.code).toBe("database_unavailable");
    expect(typeof sdk.error.request_id).toBe("string");
    // A token the server has verified (and cached) fails in the tool; one it has not, in its check: the same answer.
    for (const token of [mcpToken, unusedToken]) {
      const rpc = await expectUnavailable(await searchDocs(token));
      expect(rpc.jsonrpc).toBe("2.0");
      expect(rpc.error.code).toBe(-32603);
      expect(rpc.error.data).toEqual({ retryable: true, retry_after: 5 });
    }
    const chat = await fetch(`${server.url}/api/sdk/chat`, {
      method: "POST",
      headers: { authorization: `Bearer ${org.widget_key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "Hello?" }),
    });
    expect((await expectUnavailable(chat)).error.code).toBe("database_unavailable");
    // Signing in reads the database first: the dashboard API answers the same way.
    const signIn = await fetch(`${server.url}/api/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: org.admin_email, password: org.password }),
    });
    expect((await expectUnavailable(signIn)).error.code).toBe("database_unavailable");

    proxy.restore();
    expect(await readyWithin(READY_BOUND_MS)).toBeLessThan(READY_BOUND_MS);
    expect((await identify("after-outage")).status).toBe(200);
    expect((await searchDocs()).status).toBe(200);
    const stored = (await app.deps.db.select({ externalId: endUsers.externalId }).from(endUsers).where(eq(endUsers.orgId, org.org_id)))
      .map((u) => u.externalId)
      .sort();
    expect(stored).toEqual(["after-outage", "before-outage"]);
  }, 60_000);

  test("a server that stops answering: /readyz 503 within 2 s (the probe is bounded), /healthz 200, and 200 again within 2 s of recovery", async () => {
    proxy.restore();
    expect(await readyWithin(READY_BOUND_MS)).toBeLessThan(READY_BOUND_MS);
    proxy.hang();
    const ready = await timed(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.ms).toBeLessThan(READY_BOUND_MS);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    proxy.restore();
    expect(await readyWithin(READY_BOUND_MS)).toBeLessThan(READY_BOUND_MS);
  }, 60_000);

  test("a server that accepts connections and never answers: a request gives up after DATABASE_CONNECT_TIMEOUT_SECONDS with 503", async () => {
    proxy.restore();
    expect(await readyWithin(READY_BOUND_MS)).toBeLessThan(READY_BOUND_MS);
    proxy.cut(); // every open connection closed…
    await expectUnavailable(await identify("never-stored")); // (the pool has seen them close)
    proxy.hang(); // …and every new one accepted, then silent
    const hungBefore = proxy.hungConnections;
    const started = performance.now();
    const body = await expectUnavailable(await identify("never-stored"));
    expect(body.error.code).toBe("database_unavailable");
    expect(proxy.hungConnections).toBeGreaterThan(hungBefore); // it did try the silent server
    // The connection attempt is bounded by DATABASE_CONNECT_TIMEOUT_SECONDS (2 here); the rest is the request's own work.
    expect(performance.now() - started).toBeLessThan(2 * 2000);
    proxy.restore();
    expect(await readyWithin(READY_BOUND_MS)).toBeLessThan(READY_BOUND_MS);
  }, 60_000);

  test("the outbox loop backs off during the outage and delivers after it, without a restart", async () => {
    proxy.restore();
    expect(await readyWithin(READY_BOUND_MS)).toBeLessThan(READY_BOUND_MS);
    proxy.cut();
    // Written while the server cannot reach the database (the test's own connection goes direct).
    await app.deps.db.transaction((tx) => emitWebhookEvent(tx, { orgId: org.org_id, type: "ticket.updated", data: { id: "during-outage" }, now: new Date() }));
    await Bun.sleep(1500); // a few of the loop's passes fail meanwhile
    expect(receiver.received).toHaveLength(0);
    proxy.restore();
    const deadline = Date.now() + 30_000;
    while (receiver.received.length === 0 && Date.now() < deadline) await Bun.sleep(100);
    expect(receiver.received.map((r) => r.json.data.id)).toEqual(["during-outage"]);
    expect(server.proc.exitCode).toBeNull();
  }, 60_000);

  test("a delivery the receiver accepted as the database went away is recorded once it is back: delivered once, not again after the lease", async () => {
    proxy.restore();
    expect(await readyWithin(READY_BOUND_MS)).toBeLessThan(READY_BOUND_MS);
    receiver.received.length = 0;
    // The receiver takes the database away from the server after reading the request and before
    // answering 200: the outcome is known to the sender, its write cannot be made.
    receiver.beforeAnswer = () => {
      receiver.beforeAnswer = undefined;
      proxy.cut();
    };
    await app.deps.db.transaction((tx) =>
      emitWebhookEvent(tx, { orgId: org.org_id, type: "ticket.updated", data: { id: "accepted-as-it-went" }, now: new Date() }),
    );
    const deadline = Date.now() + 30_000;
    while (receiver.received.length === 0 && Date.now() < deadline) await Bun.sleep(50);
    expect(receiver.received.map((r) => r.json.data.id)).toEqual(["accepted-as-it-went"]);
    await Bun.sleep(2500); // a few recording attempts fail meanwhile
    proxy.restore();
    // Recorded as sent well within the lease (5 minutes), so no other pass delivers it again.
    const statusOf = async () => {
      const [row] = await app.deps.db
        .select({ status: outbox.status })
        .from(webhookDeliveries)
        .innerJoin(outbox, eq(outbox.id, webhookDeliveries.outboxId))
        .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
        .where(sql`${webhookEvents.body}::jsonb -> 'data' ->> 'id' = 'accepted-as-it-went'`);
      return row?.status;
    };
    const recordedBy = Date.now() + 30_000;
    while ((await statusOf()) !== "sent" && Date.now() < recordedBy) await Bun.sleep(100);
    expect(await statusOf()).toBe("sent");
    expect(receiver.received).toHaveLength(1);
    expect(server.proc.exitCode).toBeNull();
  }, 90_000);
});
