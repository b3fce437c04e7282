// `svc-agents sources sync <id>` (README "Knowledge sources"): the sync runs in the command's
// process; progress on stderr is a bar redrawn in place on a terminal and plain lines otherwise;
// stdout is the source as the API shows it; exit 1 with the reason when the sync failed, 2 for a
// malformed id. In-process on both engines, and the real binary entry against PostgreSQL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseCommand, UsageError } from "../../src/cli/commands.ts";
import { progressLine, syncSourceCommand } from "../../src/cli/sources-sync.ts";
import { systemActor } from "../../src/kit/actor.ts";
import { createSource } from "../../src/sources/service.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { engine } from "../support/db.ts";
import { runCli } from "../support/process.ts";
import { startTestSite, type TestSite } from "../sources/site.ts";

let app: TestApp;
let site: TestSite;
let sourceId: string;

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development", WEBSITE_CRAWL_DELAY_MS: "0" });
  site = startTestSite(4);
  const org = await seedOrg(app);
  sourceId = (await createSource(app.deps, org.org_id, systemActor("test"), { kind: "website", name: "Site", start_url: `${site.origin}/sitemap.xml` })).id;
});

afterAll(async () => {
  site.stop();
  await app.close();
});

describe("sources sync", () => {
  test("argv: one UUID", () => {
    expect(parseCommand(["sources", "sync", sourceId])).toEqual({ kind: "sources-sync", sourceId });
    expect(() => parseCommand(["sources", "sync"])).toThrow(UsageError);
    expect(() => parseCommand(["sources", "sync", "abc"])).toThrow(UsageError);
    expect(() => parseCommand(["sources", "sync", sourceId, "more"])).toThrow(UsageError);
  });

  test("the bar on a terminal", () => {
    expect(progressLine(0, 4, true)).toBe(`\r[${".".repeat(30)}] 0/4 pages`);
    expect(progressLine(2, 4, true)).toBe(`\r[${"#".repeat(15)}${".".repeat(15)}] 2/4 pages`);
    expect(progressLine(4, 4, true)).toBe(`\r[${"#".repeat(30)}] 4/4 pages`);
    expect(progressLine(3, 0, true)).toBe(`\r[${".".repeat(30)}] 3/0 pages`);
  });

  test("plain lines when stderr is not a terminal; the source on stdout", async () => {
    let err = "";
    const { stdout, code } = await syncSourceCommand(app.deps, sourceId, { write: (t) => void (err += t), isTTY: false });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ id: sourceId, status: "ready", counts: { imported: 4 } });
    const lines = err.trim().split("\n");
    // Four pages, /moved (page 4 again) and /missing: five done of five found.
    expect(lines.at(-1)).toBe("synced 5 of 5 pages");
    for (const line of lines) expect(line).toMatch(/^synced \d of 5 pages$/);
    expect(err).not.toContain("\r");
  });

  test("a bar redrawn in place on a terminal, ending on its own line", async () => {
    let err = "";
    const { code } = await syncSourceCommand(app.deps, sourceId, { write: (t) => void (err += t), isTTY: true });
    expect(code).toBe(0);
    expect(err.startsWith("\r[")).toBe(true);
    expect(err.endsWith("pages\n")).toBe(true);
    expect(err.split("\n").length).toBe(2);
  });
});

describe.skipIf(engine !== "postgres")("the command line against PostgreSQL", () => {
  test("exit 0 with the source on stdout; exit 1 with the reason when the site is gone", async () => {
    const env = {
      DATABASE_URL: app.database.url!,
      SECRET_KEY: app.deps.config.secretKey!.toString("base64"),
      NODE_ENV: "development",
      LOG_LEVEL: "warn",
      WEBSITE_CRAWL_DELAY_MS: "0",
    };
    const ok = await runCli(["sources", "sync", sourceId], env);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ id: sourceId, status: "ready" });
    expect(ok.stderr).toContain("synced ");
    site.stop();
    const failed = await runCli(["sources", "sync", sourceId], env);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("sync failed: robots.txt could not be read");
    const unknown = await runCli(["sources", "sync", crypto.randomUUID()], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No such knowledge source.");
  }, 60_000);
});
