// The time limit of one sync (30 minutes, README "Knowledge sources"), on the test clock: a sync
// whose pages stop answering is still running one millisecond before the limit and fails with the
// reason at it; the documents of the sync before stay in place.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listDocs } from "../../src/knowledge/docs.ts";
import { SYNC_LIMITS } from "../../src/sources/model.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { syncAndWait } from "./helpers.ts";

let app: TestApp;
let server: ReturnType<typeof Bun.serve>;
/** While true, every page waits for an answer that never comes (the request is counted). */
let hang = false;
let hanging = 0;
const PAGES = 5;

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development", WEBSITE_CRAWL_DELAY_MS: "0" });
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/robots.txt") return new Response("User-agent: *\nAllow: /\n", { headers: { "content-type": "text/plain" } });
      if (path === "/sitemap.xml") {
        const urls = Array.from({ length: PAGES }, (_, i) => `<url><loc>http://127.0.0.1:${server.port}/page-${i + 1}</loc></url>`).join("");
        return new Response(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`, {
          headers: { "content-type": "application/xml" },
        });
      }
      if (hang) {
        hanging++;
        return new Promise<Response>(() => {});
      }
      return new Response(
        `<!doctype html><html><head><title>${path}</title></head><body><main><h1>Answer ${path}</h1><p>The text of ${path}, long enough to be read as the page's main content by a reader.</p></main></body></html>`,
        { headers: { "content-type": "text/html" } },
      );
    },
  });
});
afterAll(async () => {
  server.stop(true);
  await app.close();
});

async function until(check: () => Promise<boolean> | boolean) {
  while (!(await check())) await Bun.sleep(10);
}

describe("the time limit of a sync", () => {
  test("running one millisecond before 30 minutes, failed with the reason at 30; the previous docs stay", async () => {
    const org = await seedOrg(app);
    const token = await signIn(app, org.admin_email, org.password);
    const headers = { authorization: `Bearer ${token}` };
    const res = await app.request("/api/knowledge/sources", {
      headers,
      json: { kind: "website", name: "Site", start_url: `http://127.0.0.1:${server.port}/sitemap.xml` },
    });
    const id = ((await res.json()) as any).id;
    const first = await syncAndWait(app, token, id, false);
    expect(first.counts).toMatchObject({ imported: PAGES });

    hang = true;
    expect((await app.request(`/api/knowledge/sources/${id}/sync`, { method: "POST", headers })).status).toBe(202);
    // The sync's clock starts now; its first two pages are waiting.
    await until(() => hanging >= 2);
    app.clock.advance(SYNC_LIMITS.syncTimeoutMs - 1);
    // Those two gave up at their own limit; the sync went on to the next two, which wait in turn.
    await until(() => hanging >= 4);
    const running = (await (await app.request(`/api/knowledge/sources/${id}`, { headers })).json()) as any;
    expect(running.status).toBe("syncing");

    app.clock.advance(1);
    const ended = await syncAndWait(app, token, id, false);
    expect(ended.status).toBe("failed");
    expect(ended.reason).toBe("the sync ran longer than 30 minutes");
    expect((await listDocs(app.deps, org.org_id, { limit: 100, offset: 0 })).length).toBe(PAGES);
  });
});
