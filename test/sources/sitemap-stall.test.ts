// A giant sitemap never holds up the server (README "Knowledge sources"): an index naming two
// sitemaps of 180,000 `<loc>` entries each (9 MB, cycling over 4,999 addresses, `max_pages` 5000)
// is read while `/healthz` is polled every 100 ms; no answer comes more than a generous bound late
// (reading those sitemaps on the event loop held every request for several seconds each).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SYNC_LIMITS } from "../../src/sources/model.ts";
import { claimSource, runSync } from "../../src/sources/sync.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { syncAndWait } from "./helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let token: string;
let server: ReturnType<typeof Bun.serve>;
let origin: string;
let robotsDown = true;
let giant: Uint8Array<ArrayBuffer>;
/** Resolves when the crawl asks for its first page: the sitemaps have been read. */
let pageAsked: () => void = () => {};
const ENTRIES = 180_000;
const DISTINCT = 4_999;

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development", WEBSITE_CRAWL_DELAY_MS: "0" });
  org = await seedOrg(app);
  token = await signIn(app, org.admin_email, org.password);
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      const xml = (body: string | Uint8Array<ArrayBuffer>) => new Response(body, { headers: { "content-type": "application/xml" } });
      if (path === "/robots.txt") return robotsDown ? new Response("down", { status: 503 }) : new Response("", { status: 404 });
      if (path === "/sitemap.xml")
        return xml(
          `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/giant-1.xml</loc></sitemap><sitemap><loc>${origin}/giant-2.xml</loc></sitemap></sitemapindex>`,
        );
      // A copy each time: a body's bytes are handed over to the response that sends them.
      if (path === "/giant-1.xml" || path === "/giant-2.xml") return xml(giant.slice());
      pageAsked();
      return new Response("not here", { status: 404 });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  // Built once, before any polling: the test's own server must not be what stalls.
  const entries: string[] = [];
  for (let i = 0; i < ENTRIES; i++) entries.push(`<url><loc>${origin}/a/${String(i % DISTINCT).padStart(5, "0")}</loc></url>`);
  giant = new TextEncoder().encode(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries.join("")}</urlset>`);
});

afterAll(async () => {
  server.stop(true);
  await app.close();
});

describe("a giant sitemap", () => {
  test("is read without holding up /healthz", async () => {
    expect(giant.length).toBeGreaterThan(9_000_000);
    expect(giant.length).toBeLessThan(SYNC_LIMITS.sitemapBytes);
    const created = await app.request("/api/knowledge/sources", {
      headers: { authorization: `Bearer ${token}` },
      json: { kind: "website", name: "Giant", start_url: `${origin}/sitemap.xml`, max_pages: 5000 },
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as any).id;
    // The automatic first sync fails at robots.txt; this one is started here, to be stopped once
    // the sitemaps are read (the 4,999 pages themselves are not the point).
    expect((await syncAndWait(app, token, id, false)).status).toBe("failed");
    robotsDown = false;
    const stop = new AbortController();
    const asked = new Promise<void>((resolve) => (pageAsked = resolve));

    // /healthz every 100 ms; how late each answer came against its schedule.
    let polling = true;
    let worst = 0;
    let polls = 0;
    const poller = (async () => {
      const begin = performance.now();
      for (let k = 0; polling; k++) {
        const due = begin + k * 100;
        const wait = due - performance.now();
        if (wait > 0) await Bun.sleep(wait);
        const res = await app.request("/healthz");
        expect(res.status).toBe(200);
        worst = Math.max(worst, performance.now() - due);
        polls++;
      }
    })();

    const sync = runSync(app.deps, await claimSource(app.deps, org.org_id, id), stop.signal);
    let pagesAsked = false;
    await Promise.race([asked.then(() => (pagesAsked = true)), sync]);
    stop.abort();
    await sync;
    polling = false;
    await poller;
    // The sitemaps were read through (the crawl went on to the pages), and polled meanwhile. How
    // many polls fit depends on how fast the worker reads them (under 300 ms on a quiet machine);
    // a stall shows as a late answer, not as a count.
    expect(pagesAsked).toBe(true);
    expect(polls).toBeGreaterThan(0);
    // Generous for a shared two-core machine: reading these sitemaps on the event loop took seconds.
    expect(worst).toBeLessThan(1500);
  }, 120_000);
});
