// A source deleted while it syncs (README "Knowledge sources"): the sync stops quietly — no error in
// the log, nothing written for the deleted source (no page rows, no documents) — whichever moment
// the deletion comes: between pages, or while a page is being written.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, like } from "drizzle-orm";
import { docs, knowledgeSourcePages } from "../../src/db/schema/index.ts";
import { claimSource, runSync } from "../../src/sources/sync.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { syncAndWait } from "./helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let token: string;
let server: ReturnType<typeof Bun.serve>;
let origin: string;
const PAGES = 8;
/** While set, robots.txt answers 503 (the automatic first sync fails at once and writes nothing). */
let robotsDown = true;
/** The page that waits for `release` before it answers; `reached` resolves when it is asked for. */
let held = "";
let reached: () => void = () => {};
let release: () => void = () => {};

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development", WEBSITE_CRAWL_DELAY_MS: "0" });
  org = await seedOrg(app);
  token = await signIn(app, org.admin_email, org.password);
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/robots.txt") return robotsDown ? new Response("down", { status: 503 }) : new Response("", { status: 404 });
      if (path === "/sitemap.xml") {
        const urls = Array.from({ length: PAGES }, (_, i) => `<url><loc>${origin}/page-${i + 1}</loc></url>`).join("");
        return new Response(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`, {
          headers: { "content-type": "application/xml" },
        });
      }
      if (path === held) {
        reached();
        await new Promise<void>((resolve) => (release = resolve));
      }
      return new Response(
        `<!doctype html><html><head><title>${path}</title></head><body><main><h1>Answer ${path}</h1><p>The text of ${path}, long enough to be read as the page's main content by a reader.</p></main></body></html>`,
        { headers: { "content-type": "text/html" } },
      );
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  release();
  server.stop(true);
  await app.close();
});

const auth = () => ({ authorization: `Bearer ${token}` });

/** A new source whose automatic first sync has failed (robots.txt down), ready to be synced by the test. */
async function newSource(name: string): Promise<string> {
  robotsDown = true;
  const res = await app.request("/api/knowledge/sources", { headers: auth(), json: { kind: "website", name, start_url: `${origin}/sitemap.xml` } });
  expect(res.status).toBe(201);
  const id = ((await res.json()) as any).id;
  expect((await syncAndWait(app, token, id, false)).status).toBe("failed");
  robotsDown = false;
  return id;
}

const written = async (sourceId: string) => ({
  pages: (await app.deps.db.select().from(knowledgeSourcePages).where(eq(knowledgeSourcePages.sourceId, sourceId))).length,
  docs: (
    await app.deps.db
      .select({ id: docs.id })
      .from(docs)
      .where(like(docs.url, `${origin}/%`))
  ).length,
});

describe("a source deleted while it syncs", () => {
  test("the sync stops quietly: no error logged, nothing written for the deleted source", async () => {
    const id = await newSource("Deleted between pages");
    held = "/page-4";
    const asked = new Promise<void>((resolve) => (reached = resolve));
    const sync = runSync(app.deps, await claimSource(app.deps, org.org_id, id));
    await asked;
    const logsBefore = app.logs.length;
    expect((await app.request(`/api/knowledge/sources/${id}`, { method: "DELETE", headers: auth() })).status).toBe(204);
    release();
    await sync;
    const after = app.logs.slice(logsBefore);
    expect(after.filter((l) => l.level === "error" || l.level === "warn")).toEqual([]);
    expect(after.filter((l) => l.source_id === id).map((l) => l.msg)).toEqual(["knowledge source deleted during its sync; the sync stopped"]);
    expect(await written(id)).toEqual({ pages: 0, docs: 0 });
    expect((await app.request(`/api/knowledge/sources/${id}`, { headers: auth() })).status).toBe(404);
  }, 120_000);
});
