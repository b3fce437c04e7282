// README "Faults and shutdown", instances going away, with real server processes on one
// PostgreSQL: SIGTERM lets a stream in flight finish and exits 0, refusing new connections
// meanwhile; SHUTDOWN_GRACE_SECONDS cuts what is left after it; a second SIGTERM exits at once
// with 1; and an instance killed with SIGKILL mid-delivery loses nothing — its leased outbox rows
// are delivered by another instance once the lease has run, each at most once more than the
// receiver had already seen (the at-least-once window), every other row exactly once.
// PostgreSQL only (PGlite is one process; its graceful stop is in test/cli/serve.test.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray, sql } from "drizzle-orm";
import { outbox } from "../../../src/db/schema/index.ts";
import { emitWebhookEvent } from "../../../src/webhooks/events.ts";
import { seedSeriesOrg, type SeriesOrg } from "../../campaigns/helpers.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { engine } from "../../support/db.ts";
import { fakeOpenAi, type FakeLlm } from "../../support/fake-llm.ts";
import { type RunningServer, startServer } from "../../support/process.ts";
import { createEndpoint, type Receiver, startReceiver } from "../../webhooks/helpers.ts";
import { rejectionOf } from "../../support/settle.ts";

if (engine !== "postgres") console.log("test/e2e/faults/instances.test.ts: PostgreSQL only (set TEST_DATABASE_URL); skipped on PGlite");

describe.skipIf(engine !== "postgres")("instances stopped and killed", () => {
  let app: TestApp;
  let org: SeriesOrg;
  let llm: FakeLlm;
  let receiver: Receiver;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    app = await createTestApp({ NODE_ENV: "development" });
    org = await seedSeriesOrg(app);
    llm = await fakeOpenAi();
    receiver = startReceiver(app);
    await createEndpoint(app, org.auth, receiver, ["ticket.updated"]);
    // A second endpoint (a lane of its own): the first one's slots are held by the killed instance's leases.
    await createEndpoint(app, org.auth, receiver, ["ticket.created"]);
  }, 60_000);
  afterAll(async () => {
    for (const s of servers) if (s.proc.exitCode === null && !s.proc.killed) s.proc.kill("SIGKILL");
    receiver?.close();
    llm?.close();
    await app?.close();
  }, 60_000);

  const start = async (env: Record<string, string> = {}) => {
    const server = await startServer({
      DATABASE_URL: app.database.url!,
      SECRET_KEY: app.deps.config.secretKey!.toString("base64"),
      SEED_DEMO: "0",
      LOG_LEVEL: "error",
      NODE_ENV: "development",
      LLM_PROVIDER: "openai",
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: "fake-model",
      ...env,
    });
    servers.push(server);
    return server;
  };
  const stream = (server: RunningServer) =>
    fetch(`${server.url}/api/sdk/chat/stream`, {
      method: "POST",
      headers: { authorization: `Bearer ${org.widget_key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "Where is my parcel?" }),
    });
  /** A stream whose model holds its answer until `release`, and a promise of its whole body. */
  const heldStream = async (server: RunningServer) => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    llm.enqueue({ steps: [{ text: "Your parcel " }, { until: gate }, { text: "left the depot." }] });
    const res = await stream(server);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("Your parcel")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const whole = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return text;
        text += decoder.decode(value, { stream: true });
      }
    })();
    return { release, whole };
  };

  test("SIGTERM: no new connections, the stream in flight finishes, exit 0", async () => {
    const server = await start({ SHUTDOWN_GRACE_SECONDS: "60" });
    const held = await heldStream(server);
    server.proc.kill("SIGTERM");
    await Bun.sleep(300);
    expect(server.proc.exitCode).toBeNull(); // still finishing the stream
    expect(await rejectionOf(fetch(`${server.url}/healthz`))).toBeInstanceOf(Error);
    held.release();
    expect(await held.whole).toContain("Your parcel left the depot.");
    expect(await server.proc.exited).toBe(0);
  }, 60_000);

  test("SHUTDOWN_GRACE_SECONDS: a stream still open when the grace ends is cut, and the process exits 0", async () => {
    const server = await start({ SHUTDOWN_GRACE_SECONDS: "1" });
    const held = await heldStream(server);
    server.proc.kill("SIGTERM");
    expect(await server.proc.exited).toBe(0);
    expect(await held.whole).not.toContain("left the depot.");
    held.release();
  }, 60_000);

  test("a second SIGTERM exits at once, with status 1", async () => {
    const server = await start({ SHUTDOWN_GRACE_SECONDS: "600" });
    const held = await heldStream(server);
    server.proc.kill("SIGTERM");
    await Bun.sleep(300);
    expect(server.proc.exitCode).toBeNull();
    server.proc.kill("SIGTERM");
    expect(await server.proc.exited).toBe(1);
    held.release();
  }, 60_000);

  test("kill -9 mid-delivery: another instance delivers the killed one's rows after their lease, nothing lost, nothing else twice", async () => {
    const emit = (id: string, type: "ticket.updated" | "ticket.created" = "ticket.updated") =>
      app.deps.db.transaction((tx) => emitWebhookEvent(tx, { orgId: org.org_id, type, data: { id }, now: new Date() }));
    const received = (id: string) => receiver.received.filter((r) => r.json.data.id === id).length;
    receiver.hang = true; // the receiver takes the requests and never answers: the killed instance is mid-delivery
    const first = await start();
    await emit("before-kill-1");
    await emit("before-kill-2");
    const deadline = Date.now() + 30_000;
    while (receiver.received.length < 2 && Date.now() < deadline) await Bun.sleep(50);
    expect(receiver.received).toHaveLength(2);
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    const leased = await app.deps.db
      .select({ id: outbox.id })
      .from(outbox)
      .where(and(eq(outbox.orgId, org.org_id), eq(outbox.status, "sending")));
    expect(leased).toHaveLength(2);

    receiver.hang = false;
    const second = await start();
    await emit("after-kill", "ticket.created");
    while (received("after-kill") === 0 && Date.now() < deadline) await Bun.sleep(50);
    expect(received("after-kill")).toBe(1);
    // The killed instance's rows wait for their lease: not delivered again meanwhile.
    expect([received("before-kill-1"), received("before-kill-2")]).toEqual([1, 1]);
    // The lease runs out (moved, not waited for: OUTBOX_LEASE_MS is minutes).
    await app.deps.db
      .update(outbox)
      .set({ lockedUntil: sql`now() - interval '1 second'` })
      .where(
        inArray(
          outbox.id,
          leased.map((r) => r.id),
        ),
      );
    while ((received("before-kill-1") < 2 || received("before-kill-2") < 2) && Date.now() < deadline + 30_000) await Bun.sleep(50);
    // Each reached the receiver once from the killed instance and once more after it: the documented window.
    expect([received("before-kill-1"), received("before-kill-2")]).toEqual([2, 2]);
    const ids = new Map<string, Set<string>>();
    for (const r of receiver.received) ids.set(r.json.data.id, (ids.get(r.json.data.id) ?? new Set()).add(r.headers["webhook-id"]!));
    expect([...ids.values()].every((set) => set.size === 1)).toBe(true); // the same identity, so the receiver can tell
    await Bun.sleep(2000); // a further duplicate would come within a few of the loop's passes
    expect(receiver.received).toHaveLength(5);
    const rows = await app.deps.db.select({ status: outbox.status }).from(outbox).where(eq(outbox.orgId, org.org_id));
    expect(rows.map((r) => r.status)).toEqual(["sent", "sent", "sent"]);
    expect(await second.stop()).toBe(0);
  }, 120_000);
});
