// A website source end to end (README "Knowledge sources"): a loopback site with a sitemap index
// (one part gzipped), robots.txt disallowing a path, 40 pages wrapped in boilerplate, a redirect
// and a 404. One sync imports exactly the allowed pages, boilerplate gone, and the chat answers from
// a crawled page naming its URL; a second sync after an edit and a deletion updates one doc,
// removes one and asks for the rest conditionally (the site counts its 304s).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listDocs, updateDoc } from "../../src/knowledge/docs.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { chatJson } from "../support/chat.ts";
import { BOILERPLATE, startTestSite, type TestSite } from "./site.ts";
import { syncAndWait } from "./helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let token: string;
let site: TestSite;
let sourceId: string;

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development", WEBSITE_CRAWL_DELAY_MS: "0" });
  org = await seedOrg(app);
  token = await signIn(app, org.admin_email, org.password);
  site = startTestSite(40);
});

afterAll(async () => {
  site.stop();
  await app.close();
});

const auth = () => ({ authorization: `Bearer ${token}` });
const docsOf = async () => (await listDocs(app.deps, org.org_id, { limit: 500, offset: 0 })).filter((d) => d.url?.startsWith(site.origin));

describe("a website source", () => {
  test("the first sync imports exactly the allowed pages, boilerplate gone, titled from the page", async () => {
    const created = await app.request("/api/knowledge/sources", {
      headers: auth(),
      json: { kind: "website", name: "Help centre", start_url: `${site.origin}/sitemap.xml` },
    });
    expect(created.status).toBe(201);
    const body = (await created.json()) as any;
    sourceId = body.id;
    expect(body.status).toBe("syncing");
    const synced = await syncAndWait(app, token, sourceId, false);
    expect(synced.status).toBe("ready");
    const docs = await docsOf();
    const urls = docs.map((d) => d.url!.slice(site.origin.length)).sort();
    const expected = Array.from({ length: 40 }, (_, i) => `/docs/page-${i + 1}`).sort();
    expect(urls).toEqual(expected);
    expect(site.requests).not.toContain("/private/secret");
    expect(synced.counts).toMatchObject({ imported: 40, removed: 0, unchanged: 0, failed: 1 });
    expect(synced.problems).toEqual([{ url: `${site.origin}/missing`, reason: expect.stringContaining("404"), doc_id: null }]);
    for (const doc of docs) for (const words of BOILERPLATE) expect(doc.body).not.toContain(words);
    const refunds = docs.find((d) => d.url === `${site.origin}/docs/page-7`)!;
    expect(refunds.title).toBe("Refunds and returns");
    expect(refunds.body).toStartWith("# Refunds and returns");
    expect(refunds.body).toContain("## More details");
    expect(refunds.body).toContain("The refund window is 45 days");
    expect([...site.userAgents].every((ua) => ua.startsWith("svc-agents-knowledge-sync/"))).toBe(true);
  });

  test("the chat answers from a crawled page, naming its URL", async () => {
    const answer = await chatJson(app, org, { message: "How many days is the refund window?" });
    expect(answer.sources.map((s: { url: string }) => s.url)).toContain(`${site.origin}/docs/page-7`);
  });

  test("a second sync after one page is edited and one deleted updates one doc, removes one, and asks for the rest conditionally", async () => {
    site.pages.set("/docs/page-3", {
      title: "Help topic number 3",
      text: "Topic 3 now says something new: the export button moved to the top right corner of the report.",
    });
    site.pages.delete("/docs/page-5");
    site.requests.length = 0;
    site.notModified = 0;
    const synced = await syncAndWait(app, token, sourceId);
    expect(synced.status).toBe("ready");
    expect(synced.counts).toMatchObject({ updated: 1, removed: 1, imported: 0, unchanged: 38 });
    // Every page still there and unchanged answered 304 (page 40 through /moved included).
    expect(site.notModified).toBe(38);
    const docs = await docsOf();
    expect(docs.length).toBe(39);
    expect(docs.find((d) => d.url === `${site.origin}/docs/page-3`)!.body).toContain("export button moved");
    expect(docs.some((d) => d.url === `${site.origin}/docs/page-5`)).toBe(false);
  });

  test("a doc edited by hand is kept and shown as a conflict; the page's change is not written over it", async () => {
    const doc = (await docsOf()).find((d) => d.url === `${site.origin}/docs/page-9`)!;
    await updateDoc(app.deps, org.org_id, doc.id, { body: "Our own words about topic nine." });
    site.pages.set("/docs/page-9", { title: "Help topic number 9", text: "Upstream rewrote topic nine entirely, with a different explanation." });
    const synced = await syncAndWait(app, token, sourceId);
    expect(synced.counts).toMatchObject({ conflicts: 1, updated: 0 });
    expect(synced.problems).toContainEqual({ url: `${site.origin}/docs/page-9`, reason: expect.stringContaining("edited locally"), doc_id: doc.id });
    expect((await docsOf()).find((d) => d.id === doc.id)!.body).toBe("Our own words about topic nine.");
  });

  test("a sync that fails (robots.txt unreachable) keeps the previous docs and says why", async () => {
    const before = (await docsOf()).length;
    site.stop();
    const synced = await syncAndWait(app, token, sourceId);
    expect(synced.status).toBe("failed");
    expect(synced.reason).toContain("robots.txt");
    expect((await docsOf()).length).toBe(before);
  });

  test("deleting the source removes its docs", async () => {
    const res = await app.request(`/api/knowledge/sources/${sourceId}`, { method: "DELETE", headers: auth() });
    expect(res.status).toBe(204);
    expect(await docsOf()).toEqual([]);
    expect((await app.request(`/api/knowledge/sources/${sourceId}`, { headers: auth() })).status).toBe(404);
  });
});

describe("the page cap", () => {
  test("a sync reads at most max_pages; one cut short by the cap removes nothing it did not reach", async () => {
    const small = startTestSite(10);
    try {
      const created = await app.request("/api/knowledge/sources", {
        headers: auth(),
        json: { kind: "website", name: "Capped", start_url: `${small.origin}/sitemap.xml`, max_pages: 4 },
      });
      expect(created.status).toBe(201);
      const id = ((await created.json()) as any).id;
      const first = await syncAndWait(app, token, id, false);
      expect(first.counts).toMatchObject({ found: 4, imported: 4 });
      const under = async () => (await listDocs(app.deps, org.org_id, { limit: 500, offset: 0 })).filter((d) => d.url?.startsWith(small.origin));
      expect((await under()).length).toBe(4);
      // Fewer pages now: the crawl stops earlier, and the pages it did not reach keep their docs.
      expect((await app.request(`/api/knowledge/sources/${id}`, { method: "PATCH", headers: auth(), json: { max_pages: 2 } })).status).toBe(200);
      const second = await syncAndWait(app, token, id);
      expect(second.counts).toMatchObject({ found: 2, unchanged: 2, removed: 0 });
      expect((await under()).length).toBe(4);
    } finally {
      small.stop();
    }
  });
});
