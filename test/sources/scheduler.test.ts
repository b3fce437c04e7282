// Scheduled syncs: a knowledge source is synced once per its interval, not once per process. Two
// schedulers on one database (both engines), and two real server processes on one PostgreSQL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { knowledgeSources } from "../../src/db/schema/index.ts";
import { systemActor } from "../../src/kit/actor.ts";
import { jobs } from "../../src/compose.ts";
import { runJobs } from "../../src/jobs.ts";
import { createSource } from "../../src/sources/service.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { engine } from "../support/db.ts";
import { type RunningServer, startServer } from "../support/process.ts";
import { startTestSite, type TestSite } from "./site.ts";

const robotsReads = (site: TestSite) => site.requests.filter((p) => p === "/robots.txt").length;

describe("two schedulers on one database", () => {
  let app: TestApp;
  let site: TestSite;
  beforeAll(async () => {
    app = await createTestApp({ NODE_ENV: "development", WEBSITE_CRAWL_DELAY_MS: "0" });
    site = startTestSite(3);
  });
  afterAll(async () => {
    site.stop();
    await app.close();
  });

  test("each due source is synced once per interval, whichever scheduler claims it", async () => {
    const org = await seedOrg(app);
    const source = await createSource(app.deps, org.org_id, systemActor("test"), {
      kind: "website",
      name: "Site",
      start_url: `${site.origin}/sitemap.xml`,
      interval_seconds: 3600,
    });
    const syncs = () => jobs(app.deps).filter((job) => job.name === "knowledge source syncs");
    expect(syncs()).toHaveLength(1);
    const schedulers = [runJobs(app.deps, syncs()), runJobs(app.deps, syncs())];
    const settle = async (expected: number) => {
      const until = Date.now() + 10_000;
      const status = async () => (await app.deps.db.select().from(knowledgeSources).where(eq(knowledgeSources.id, source.id)))[0]!.status;
      while ((robotsReads(site) < expected || (await status()) === "syncing") && Date.now() < until) await Bun.sleep(20);
      await Bun.sleep(150); // a second sync of the same source would have asked for robots.txt by now
      expect(robotsReads(site)).toBe(expected);
    };
    try {
      app.clock.advance(30_000); // both tick; the new source is due at once
      await settle(1);
      app.clock.advance(30_000); // both tick again: not due for another hour
      await settle(1);
      for (let round = 2; round <= 3; round++) {
        app.clock.advance(3600_000);
        await settle(round);
      }
      const [row] = await app.deps.db.select().from(knowledgeSources).where(eq(knowledgeSources.id, source.id));
      expect(row!.status).toBe("ready");
      expect(row!.nextSyncAt.getTime()).toBe(app.clock.now.getTime() + 3600_000);
    } finally {
      await Promise.all(schedulers.map((s) => s.stop()));
    }
  }, 30_000);
});

describe.skipIf(engine !== "postgres")("two server processes on one PostgreSQL", () => {
  let app: TestApp;
  let site: TestSite;
  const servers: RunningServer[] = [];
  beforeAll(async () => {
    app = await createTestApp({ NODE_ENV: "development" });
    site = startTestSite(3);
  });
  afterAll(async () => {
    for (const s of servers) await s.stop();
    site.stop();
    await app.close();
  });

  test("a due source is synced by one of them, once", async () => {
    const org = await seedOrg(app);
    app.clock.now = new Date(); // the processes use the real clock
    await createSource(app.deps, org.org_id, systemActor("test"), { kind: "website", name: "Site", start_url: `${site.origin}/sitemap.xml` });
    const env = {
      DATABASE_URL: app.database.url!,
      SECRET_KEY: app.deps.config.secretKey!.toString("base64"),
      NODE_ENV: "development",
      SEED_DEMO: "0",
      LOG_LEVEL: "warn",
      KNOWLEDGE_SYNC_TICK_SECONDS: "1",
      WEBSITE_CRAWL_DELAY_MS: "0",
    };
    servers.push(await startServer(env), await startServer(env));
    const until = Date.now() + 20_000;
    while (site.requests.filter((p) => p.startsWith("/docs/")).length < 3 && Date.now() < until) await Bun.sleep(50);
    await Bun.sleep(3000); // three more ticks of each process: a second sync would have started
    expect(robotsReads(site)).toBe(1);
    expect(site.requests.filter((p) => p === "/docs/page-1").length).toBe(1);
  }, 60_000);
});
