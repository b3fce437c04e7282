// Scheduled discovery: every live connector is rediscovered once per interval, not once per
// process. In-process with two schedulers on one database (both engines), and with two real
// server processes on one PostgreSQL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { systemActor } from "../../src/kit/actor.ts";
import { jobs } from "../../src/compose.ts";
import { runJobs } from "../../src/jobs.ts";
import { connect } from "../../src/connectors/service.ts";
import { connectors } from "../../src/db/schema/index.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { engine } from "../support/db.ts";
import { statelessJsonServer } from "../support/mcp-servers.ts";
import { type RunningServer, startServer } from "../support/process.ts";

describe("two schedulers on one database", () => {
  let app: TestApp;
  let upstream: Awaited<ReturnType<typeof statelessJsonServer>>;

  beforeAll(async () => {
    app = await createTestApp({ NODE_ENV: "development", CONNECTOR_DISCOVERY_INTERVAL_SECONDS: "2" });
    upstream = await statelessJsonServer();
  });
  afterAll(async () => {
    await upstream.stop();
    await app.close();
  });

  test("each due connector is discovered once per interval, whichever scheduler claims it", async () => {
    const org = await seedOrg(app, { flags: ["mcp_external_servers"] });
    const created = await connect(app.deps, org.org_id, systemActor("test"), { name: "Up", slug: "up", url: upstream.url, auth_method: "none" });
    expect(created.status).toBe("connected");
    const [row] = await app.deps.db.select().from(connectors).where(eq(connectors.id, created.id));
    expect(row!.nextDiscoveryAt.getTime()).toBe(app.clock.now.getTime() + 2000);
    const listed = () => upstream.counters["tools/list"] ?? 0;
    const afterConnect = listed();

    // The schedulers tick on deps.timers, which follow the test clock: advancing it runs both.
    const discovery = () =>
      runJobs(
        app.deps,
        jobs(app.deps).filter((job) => job.name === "connector discovery"),
      );
    const schedulers = [discovery(), discovery()];
    const settle = async (expected: number) => {
      const until = Date.now() + 5000;
      while (listed() < expected && Date.now() < until) await Bun.sleep(20);
      await Bun.sleep(150); // a second discovery of the same connector would land by now
      expect(listed()).toBe(expected);
    };
    try {
      app.clock.advance(1000); // both tick: nothing is due for another second
      await settle(afterConnect);
      for (let round = 1; round <= 3; round++) {
        app.clock.advance(2000);
        await settle(afterConnect + round);
      }
    } finally {
      await Promise.all(schedulers.map((s) => s.stop()));
    }
  }, 30_000);
});

describe.skipIf(engine !== "postgres")("two server processes on one PostgreSQL", () => {
  let app: TestApp;
  let upstream: Awaited<ReturnType<typeof statelessJsonServer>>;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    app = await createTestApp({ NODE_ENV: "development", CONNECTOR_DISCOVERY_INTERVAL_SECONDS: "2" });
    upstream = await statelessJsonServer();
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
    await upstream.stop();
    await app.close();
  });

  test("a connector is refreshed once per interval, not once per process", async () => {
    const org = await seedOrg(app, { flags: ["mcp_external_servers"] });
    app.clock.now = new Date(); // the processes use the real clock
    await connect(app.deps, org.org_id, systemActor("test"), { name: "Up", slug: "up", url: upstream.url, auth_method: "none" });
    const env = {
      DATABASE_URL: app.database.url!,
      SECRET_KEY: app.deps.config.secretKey!.toString("base64"),
      NODE_ENV: "development",
      SEED_DEMO: "0",
      LOG_LEVEL: "warn",
      CONNECTOR_DISCOVERY_INTERVAL_SECONDS: "2",
    };
    servers.push(await startServer(env), await startServer(env));
    const before = upstream.counters["tools/list"] ?? 0;
    const started = Date.now();
    await Bun.sleep(9000);
    const runs = (upstream.counters["tools/list"] ?? 0) - before;
    const intervals = (Date.now() - started) / 2000;
    // Once per interval would be about 4.5 runs; once per process per interval about 9.
    expect(runs).toBeGreaterThanOrEqual(Math.floor(intervals) - 1);
    expect(runs).toBeLessThanOrEqual(Math.ceil(intervals) + 1);
  }, 60_000);
});
