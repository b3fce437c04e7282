// A sitemap read in part (README "Knowledge sources"): a nested sitemap that answers 503, one that
// is not a sitemap, an index that names itself, an index naming more sitemaps than are read, a
// sitemap listing more addresses than are read. Each makes the sync incomplete: it ends `ready`,
// removes nothing, and its `reason` names the sitemap and why. Each sitemap is fetched once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listDocs } from "../../src/knowledge/docs.ts";
import { SYNC_LIMITS } from "../../src/sources/model.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { syncAndWait } from "./helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let token: string;
let server: ReturnType<typeof Bun.serve>;
let origin: string;
/** What each sitemap path answers; anything else under /page- is a page. */
const sitemaps = new Map<string, () => Response>();
const requests: string[] = [];

const xml = (body: string) => new Response(body, { headers: { "content-type": "application/xml" } });
const index = (paths: string[]) =>
  xml(
    `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<sitemap><loc>${origin}${p}</loc></sitemap>`).join("")}</sitemapindex>`,
  );
const urlset = (paths: string[]) =>
  xml(
    `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<url><loc>${origin}${p}</loc></url>`).join("")}</urlset>`,
  );
const pagesFrom = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `/page-${from + i}`);

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development", WEBSITE_CRAWL_DELAY_MS: "0" });
  org = await seedOrg(app);
  token = await signIn(app, org.admin_email, org.password);
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      requests.push(path);
      if (path === "/robots.txt") return new Response("", { status: 404 });
      const sitemap = sitemaps.get(path);
      if (sitemap) return sitemap();
      if (!path.startsWith("/page-")) return new Response("no", { status: 404 });
      return new Response(
        `<!doctype html><html><head><title>${path}</title></head><body><main><h1>Answer ${path}</h1><p>The text of ${path}, long enough to be read as the page's main content by a reader.</p></main></body></html>`,
        { headers: { "content-type": "text/html" } },
      );
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  server.stop(true);
  await app.close();
});

const auth = () => ({ authorization: `Bearer ${token}` });
const docsUnder = async (prefix: string) =>
  (await listDocs(app.deps, org.org_id, { limit: 500, offset: 0 })).filter((d) => d.url?.startsWith(`${origin}${prefix}`));

async function createSource(name: string, start: string, more: { max_pages?: number } = {}): Promise<any> {
  const res = await app.request("/api/knowledge/sources", { headers: auth(), json: { kind: "website", name, start_url: `${origin}${start}`, ...more } });
  expect(res.status).toBe(201);
  return syncAndWait(app, token, ((await res.json()) as any).id, false);
}

describe("a sitemap index whose nested sitemap cannot be read", () => {
  let id: string;
  test("the first sync reads both sitemaps", async () => {
    sitemaps.set("/one/sitemap.xml", () => index(["/one/a.xml", "/one/b.xml"]));
    sitemaps.set("/one/a.xml", () => urlset(pagesFrom(1, 5)));
    sitemaps.set("/one/b.xml", () => urlset(pagesFrom(6, 10)));
    const synced = await createSource("Two sitemaps", "/one/sitemap.xml");
    id = synced.id;
    expect(synced.status).toBe("ready");
    expect(synced.counts).toMatchObject({ found: 10, imported: 10, removed: 0 });
    expect(synced.reason).toBeUndefined();
  });

  test("one answering 503 removes nothing, and the source names it and why", async () => {
    sitemaps.set("/one/b.xml", () => new Response("busy", { status: 503 }));
    const synced = await syncAndWait(app, token, id);
    expect(synced.status).toBe("ready");
    expect(synced.counts).toMatchObject({ found: 5, unchanged: 5, removed: 0 });
    expect(synced.reason).toContain(`${origin}/one/b.xml`);
    expect(synced.reason).toContain("HTTP 503");
    expect(synced.reason).toContain("nothing was removed");
    expect((await docsUnder("/page-")).length).toBe(10);
  });

  test("one that is not a sitemap removes nothing, and the source says why", async () => {
    sitemaps.set("/one/b.xml", () => new Response("<html><body>Moved</body></html>", { headers: { "content-type": "text/html" } }));
    const synced = await syncAndWait(app, token, id);
    expect(synced.status).toBe("ready");
    expect(synced.counts).toMatchObject({ removed: 0 });
    expect(synced.reason).toContain(`${origin}/one/b.xml`);
    expect(synced.reason).toContain("neither a <urlset> nor a <sitemapindex>");
    expect((await docsUnder("/page-")).length).toBe(10);
  });

  test("once it is read again, the sync is complete and says nothing", async () => {
    sitemaps.set("/one/b.xml", () => urlset(pagesFrom(6, 9)));
    const synced = await syncAndWait(app, token, id);
    expect(synced.status).toBe("ready");
    expect(synced.reason).toBeUndefined();
    // Page 10 is no longer listed, and this read was complete: its doc goes.
    expect(synced.counts).toMatchObject({ found: 9, removed: 1 });
  });
});

describe("an index that names itself", () => {
  test("is fetched once; the loop is reported and nothing is removed", async () => {
    sitemaps.set("/loop/sitemap.xml", () => index(["/loop/sitemap.xml", "/loop/a.xml"]));
    sitemaps.set("/loop/a.xml", () => urlset(["/page-loop-1", "/page-loop-2"]));
    const synced = await createSource("Loop", "/loop/sitemap.xml");
    expect(synced.status).toBe("ready");
    expect(synced.counts).toMatchObject({ found: 2, imported: 2 });
    expect(requests.filter((p) => p === "/loop/sitemap.xml").length).toBe(1);
    expect(requests.filter((p) => p === "/loop/a.xml").length).toBe(1);
    expect(synced.reason).toContain(`${origin}/loop/sitemap.xml`);
    expect(synced.reason).toContain("already read");
  });
});

describe("the sitemaps a sync reads", () => {
  const nested = (n: number, dir: string) => {
    const paths = Array.from({ length: n }, (_, i) => `/${dir}/s-${i + 1}.xml`);
    sitemaps.set(`/${dir}/sitemap.xml`, () => index(paths));
    paths.forEach((p, i) => sitemaps.set(p, () => urlset([`/page-${dir}-${i + 1}`])));
  };

  test(`an index and ${SYNC_LIMITS.sitemaps - 1} sitemaps (${SYNC_LIMITS.sitemaps} in all) are read completely`, async () => {
    nested(SYNC_LIMITS.sitemaps - 1, "at-cap");
    const synced = await createSource("At the cap", "/at-cap/sitemap.xml");
    expect(synced.status).toBe("ready");
    expect(synced.counts).toMatchObject({ found: SYNC_LIMITS.sitemaps - 1 });
    expect(synced.reason).toBeUndefined();
  }, 120_000);

  test("one sitemap more is not read, and the source says so", async () => {
    nested(SYNC_LIMITS.sitemaps, "over-cap");
    const synced = await createSource("Over the cap", "/over-cap/sitemap.xml");
    expect(synced.status).toBe("ready");
    expect(synced.counts).toMatchObject({ found: SYNC_LIMITS.sitemaps - 1 });
    expect(synced.reason).toContain(`at most ${SYNC_LIMITS.sitemaps} sitemaps`);
    expect(synced.reason).toContain(`${origin}/over-cap/s-${SYNC_LIMITS.sitemaps}.xml`);
    expect(requests).not.toContain(`/over-cap/s-${SYNC_LIMITS.sitemaps}.xml`);
  }, 120_000);

  test(`a sitemap of ${SYNC_LIMITS.sitemapEntries} addresses is read completely; one more is not, and the source says so`, async () => {
    // Three pages named over and over: the sync reads three pages, whatever the sitemap's length.
    const cycle = (n: number) => Array.from({ length: n }, (_, i) => `/page-entries-${i % 3}`);
    sitemaps.set("/entries/at.xml", () => urlset(cycle(SYNC_LIMITS.sitemapEntries)));
    sitemaps.set("/entries/over.xml", () => urlset(cycle(SYNC_LIMITS.sitemapEntries + 1)));
    const at = await createSource("Entries at the limit", "/entries/at.xml");
    expect(at.status).toBe("ready");
    expect(at.counts).toMatchObject({ found: 3 });
    expect(at.reason).toBeUndefined();
    const over = await createSource("Entries over the limit", "/entries/over.xml");
    expect(over.status).toBe("ready");
    expect(over.counts).toMatchObject({ found: 3 });
    expect(over.reason).toContain(`${origin}/entries/over.xml`);
    expect(over.reason).toContain(`more than ${SYNC_LIMITS.sitemapEntries} addresses`);
  }, 120_000);
});

describe("max_pages and a sitemap", () => {
  test("a sitemap listing exactly max_pages pages is read completely: a page it no longer lists is removed", async () => {
    const pages = Array.from({ length: 3 }, (_, i) => `/page-exact-${i + 1}`);
    sitemaps.set("/exact/sitemap.xml", () => urlset(pages));
    const synced = await createSource("Exactly max_pages", "/exact/sitemap.xml", { max_pages: 3 });
    expect(synced.status).toBe("ready");
    expect(synced.counts).toMatchObject({ found: 3, imported: 3 });
    expect(synced.reason).toBeUndefined();
    sitemaps.set("/exact/sitemap.xml", () => urlset(pages.slice(0, 2)));
    expect((await syncAndWait(app, token, synced.id)).counts).toMatchObject({ found: 2, removed: 1 });
  });

  test("one page more than max_pages: read in part, and the source says so", async () => {
    sitemaps.set("/over-pages/sitemap.xml", () => urlset(Array.from({ length: 4 }, (_, i) => `/page-over-${i + 1}`)));
    const synced = await createSource("One more than max_pages", "/over-pages/sitemap.xml", { max_pages: 3 });
    expect(synced.status).toBe("ready");
    expect(synced.counts).toMatchObject({ found: 3, imported: 3 });
    expect(synced.reason).toContain("more pages than max_pages (3)");
  });
});
