// What customers do on the help centre: "Was this article helpful?" (a form, no account,
// rate-limited per address at its boundary), searches with no result, and the widget's JSON view
// of the same articles; images fetched through the outbound guard and served from our origin.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { helpCentreTotals, missedSearches, unhelpfulArticles } from "../../src/knowledge/help-signals.ts";
import { HELP_VOTES } from "../../src/helpcentre/serve.ts";
import { HELP_MEDIA } from "../../src/helpcentre/media.ts";
import { articleRef } from "../../src/helpcentre/urls.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { seedHelpCentre } from "./seed.ts";

let app: TestApp;
let seed: Awaited<ReturnType<typeof seedHelpCentre>>;
let base: string;
let images: ReturnType<typeof Bun.serve>;
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
let imageHits = 0;

beforeAll(async () => {
  // Loopback image server: the guard reaches loopback only in development (README "Configuration").
  images = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      imageHits++;
      const path = new URL(request.url).pathname;
      if (path === "/big.png") return new Response(new Uint8Array(HELP_MEDIA.bytes + 1), { headers: { "content-type": "image/png" } });
      if (path === "/page.html") return new Response("<svg onload=alert(1)>", { headers: { "content-type": "image/svg+xml" } });
      return new Response(PNG, { headers: { "content-type": "image/png" } });
    },
  });
  app = await createTestApp({ NODE_ENV: "development" });
  seed = await seedHelpCentre(app, { imageUrl: `http://127.0.0.1:${images.port}/refund.png` });
  base = `/help/${seed.slug}`;
});
afterAll(async () => {
  images.stop(true);
  await app.close();
});

describe("helpfulness votes", () => {
  test(`a vote is a form post answered 303 to the article; the ${HELP_VOTES.limit}th from one address counts, the next is 429`, async () => {
    const path = `${base}/en/articles/${articleRef(seed.refunds)}`;
    const ip = "203.0.113.9";
    const first = await app.request(`${path}/vote`, { form: { helpful: "no" }, ip });
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe(`${path}?voted=1`);
    expect(await (await app.request(`${path}?voted=1`)).text()).toContain("Thank you for telling us.");
    for (let i = 1; i < HELP_VOTES.limit; i++) expect((await app.request(`${path}/vote`, { form: { helpful: "yes" }, ip })).status).toBe(303);
    const over = await app.request(`${path}/vote`, { form: { helpful: "yes" }, ip });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another address still votes.
    expect((await app.request(`${path}/vote`, { form: { helpful: "no" }, ip: "203.0.113.10" })).status).toBe(303);
    const [listed] = await unhelpfulArticles(app.deps, seed.orgId);
    expect(listed).toMatchObject({ id: seed.refunds.id, helpful: HELP_VOTES.limit - 1, not_helpful: 2 });
    const totals = await helpCentreTotals(app.deps, seed.orgId, new Date(0), new Date(Date.now() + 86_400_000));
    expect(totals.helpful_votes).toBe(HELP_VOTES.limit - 1);
    expect(totals.not_helpful_votes).toBe(2);
    expect(totals.article_views).toBeGreaterThan(0);
  });

  test("a vote without yes or no is a 400; on a draft or an internal article, 404", async () => {
    const path = `${base}/en/articles/${articleRef(seed.shipping)}/vote`;
    expect((await app.request(path, { form: { helpful: "maybe" }, ip: "203.0.113.20" })).status).toBe(400);
    expect((await app.request(path, { form: {}, ip: "203.0.113.20" })).status).toBe(400);
    for (const doc of [seed.draft, seed.internal])
      expect((await app.request(`${base}/en/articles/${articleRef(doc)}/vote`, { form: { helpful: "yes" }, ip: "203.0.113.20" })).status).toBe(404);
  });
});

describe("images", () => {
  test("an article's image is fetched through the guard once and served from our origin as an image", async () => {
    const prefix = seed.refunds.id.replace(/-/g, "").slice(0, 12);
    const before = imageHits;
    const res = await app.request(`${base}/media/${prefix}/0`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(PNG);
    expect((await app.request(`${base}/media/${prefix}/0`)).status).toBe(200);
    expect(imageHits - before).toBe(1);
    // There is no second image; a draft's images are not served at all.
    expect((await app.request(`${base}/media/${prefix}/1`)).status).toBe(404);
    expect((await app.request(`${base}/media/${seed.draft.id.replace(/-/g, "").slice(0, 12)}/0`)).status).toBe(404);
  });

  test("an image over the size cap, or not a raster image, is a 404", async () => {
    const { createDoc } = await import("../../src/knowledge/docs.ts");
    const doc = await createDoc(app.deps, seed.orgId, {
      title: "Pictures",
      body: `![big](http://127.0.0.1:${images.port}/big.png) ![svg](http://127.0.0.1:${images.port}/page.html)`,
      tags: ["shipping"],
    });
    const prefix = doc.id.replace(/-/g, "").slice(0, 12);
    expect((await app.request(`${base}/media/${prefix}/0`)).status).toBe(404);
    expect((await app.request(`${base}/media/${prefix}/1`)).status).toBe(404);
  });
});

describe("the widget's view", () => {
  test("search answers public articles with snippets and absolute URLs; drafts and internal ones never", async () => {
    const res = await app.request(`/api/help/${seed.orgId}/search?q=refund`);
    expect(res.status).toBe(200);
    const { results } = (await res.json()) as { results: { id: string; title: string; url: string; snippet: string }[] };
    expect(results.map((r) => r.id)).toContain(seed.refunds.id);
    for (const doc of [seed.draft, seed.internal, seed.unlisted]) expect(results.map((r) => r.id)).not.toContain(doc.id);
    expect(results[0]!.url).toStartWith(`http://localhost:3000${base}/en/articles/`);
    const none = (await (await app.request(`/api/help/${seed.orgId}/search?q=zither`)).json()) as { results: unknown[] };
    expect(none.results).toEqual([]);
    const misses = await missedSearches(app.deps, seed.orgId, new Date(0), new Date(Date.now() + 86_400_000));
    expect(misses.map((m) => m.query)).toContain("zither");
  });

  test("suggestions from the page's title and path; an article as markup; 404 for a draft and for an org without a help centre (its suggestions: available false)", async () => {
    const suggested = (await (await app.request(`/api/help/${seed.orgId}/suggestions?title=Orders&path=/account/refund`)).json()) as {
      available: boolean;
      results: { id: string }[];
    };
    expect(suggested.available).toBe(true);
    expect(suggested.results[0]?.id).toBe(seed.refunds.id);
    const article = (await (await app.request(`/api/help/${seed.orgId}/articles/${articleRef(seed.refunds)}`)).json()) as { html: string; title: string };
    expect(article.title).toBe("Getting a refund");
    expect(article.html).toContain(`src="http://localhost:3000${base}/media/`);
    expect((await app.request(`/api/help/${seed.orgId}/articles/${articleRef(seed.draft)}`)).status).toBe(404);
    expect((await app.request(`/api/help/${seed.orgId}/articles/${articleRef(seed.internal)}`)).status).toBe(404);
    const other = await (await import("../support/app.ts")).seedOrg(app);
    const res = await app.request(`/api/help/${other.org_id}/search?q=refund`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
    expect((await app.request("/api/help/not-a-uuid/search?q=refund")).status).toBe(404);
    // Every widget asks for suggestions: an org without a help centre answers that, not a 404 in the page's console.
    const none = await app.request(`/api/help/${other.org_id}/suggestions?title=Orders`);
    expect(none.status).toBe(200);
    expect(await none.json()).toEqual({ available: false, results: [] });
  });

  test("a query of 200 characters is answered, 201 is a 400 in the error shape", async () => {
    expect((await app.request(`/api/help/${seed.orgId}/search?q=${"b".repeat(200)}`)).status).toBe(200);
    const res = await app.request(`/api/help/${seed.orgId}/search?q=${"b".repeat(201)}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("validation_failed");
  });
});

describe("in the report and the knowledge gaps", () => {
  test("votes, views and searches without a result reach /api/reports/summary (and its CSV) and /api/knowledge/gaps", async () => {
    const path = `${base}/en/articles/${articleRef(seed.shipping)}`;
    for (let i = 0; i < 3; i++) expect((await app.request(`${path}/vote`, { form: { helpful: "no" }, ip: `198.51.100.${i + 1}` })).status).toBe(303);
    for (let i = 0; i < 2; i++) await app.request(`${base}/en/search?q=${encodeURIComponent("Kayak Rental")}`);
    await app.request(`${base}/en/search?q=${encodeURIComponent("kayak rental")}`);
    const headers = { authorization: `Bearer ${await signIn(app, seed.org.admin_email, seed.org.password)}` };
    const report = (await (await app.request("/api/reports/summary?period=7d", { headers })).json()) as {
      help_centre: {
        helpful_votes: number;
        not_helpful_votes: number;
        searches_without_result: number;
        article_views: number;
        top_searches_without_result: { query: string; count: number }[];
      };
    };
    const totals = await helpCentreTotals(app.deps, seed.orgId, new Date(0), new Date(Date.now() + 86_400_000));
    expect(report.help_centre).toMatchObject(totals);
    expect(report.help_centre.not_helpful_votes).toBeGreaterThanOrEqual(3);
    expect(report.help_centre.top_searches_without_result[0]).toMatchObject({ query: "Kayak Rental", count: 3 });
    const csv = await (await app.request("/api/reports/summary.csv?period=7d", { headers })).text();
    expect(csv).toContain(`help_centre_not_helpful_votes,${totals.not_helpful_votes}`);
    expect(csv).toContain(`help_centre_searches_without_result,${totals.searches_without_result}`);
    const gaps = (await (await app.request("/api/knowledge/gaps", { headers })).json()) as {
      help_centre: { searches_without_result: { query: string; count: number }[]; not_helpful_articles: { id: string; not_helpful: number }[] };
    };
    expect(gaps.help_centre.searches_without_result[0]).toMatchObject({ query: "Kayak Rental", count: 3 });
    expect(gaps.help_centre.not_helpful_articles.find((a) => a.id === seed.shipping.id)?.not_helpful).toBe(3);
    const page = await (await app.request("/dashboard/knowledge/gaps", { headers })).text();
    expect(page).toContain("Kayak Rental");
    expect(page).toContain("Help centre searches without a result");
  });
});
