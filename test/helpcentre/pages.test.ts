// The public help centre's pages, signed out: home, collection, article (table, code, image from
// our origin), search with snippets, sitemap and robots.txt, the 301 of a former title, and
// drafts, internal and unlisted articles absent from every one of them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { updateDoc } from "../../src/knowledge/docs.ts";
import { missedSearches } from "../../src/knowledge/help-signals.ts";
import { articleRef } from "../../src/helpcentre/urls.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { seedHelpCentre } from "./seed.ts";

let app: TestApp;
let seed: Awaited<ReturnType<typeof seedHelpCentre>>;
let base: string;

beforeAll(async () => {
  app = await createTestApp();
  seed = await seedHelpCentre(app);
  base = `/help/${seed.slug}`;
});
afterAll(() => app.close());

const hidden = () => [seed.draft, seed.internal, seed.unlisted];

describe("pages", () => {
  test("/help/<slug> redirects to the home page, which lists the collections in order with their counts", async () => {
    const bare = await app.request(base);
    expect(bare.status).toBe(301);
    expect(bare.headers.get("location")).toBe(`${base}/`);
    const root = await app.request(`${base}/`);
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe(`${base}/en/`);
    const res = await app.request(`${base}/en/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    const page = await res.text();
    expect(page).toContain("Acme Outdoor help centre");
    expect(page.indexOf(`${base}/en/collections/billing`)).toBeLessThan(page.indexOf(`${base}/en/collections/shipping`));
    expect(page).toContain("2 articles");
    expect(page).toContain("1 article<");
    expect(page).not.toContain("<script src");
    expect(page).toContain(`<link rel="canonical" href="http://localhost:3000${base}/en/">`);
    expect(page).toContain('<html lang="en" dir="ltr">');
  });

  test("a collection lists its public articles only", async () => {
    const page = await (await app.request(`${base}/en/collections/billing`)).text();
    expect(page).toContain(`${base}/en/articles/${articleRef(seed.refunds)}`);
    expect(page).toContain(`${base}/en/articles/${articleRef(seed.shipping)}`);
    for (const doc of hidden()) expect(page).not.toContain(doc.title);
    expect((await app.request(`${base}/en/collections/staff`)).status).toBe(404);
    expect((await app.request(`${base}/en/collections/internal`)).status).toBe(404);
  });

  test("an article: headings with anchors, the table, the code, the image from our origin, breadcrumbs, last updated, structured data", async () => {
    const res = await app.request(`${base}/en/articles/${articleRef(seed.refunds)}`);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('<h2 id="which-methods-are-refunded">');
    expect(page).toContain("<table>");
    expect(page).toContain('<td class="align-left">Bank transfer</td>');
    expect(page).toContain('"text":"Method, Days; Card, 5; Bank transfer, 3"');
    expect(page).toContain('<pre><code class="language-sh">curl -X POST');
    expect(page).toContain(`<img src="${base}/media/${seed.refunds.id.replace(/-/g, "").slice(0, 12)}/0" alt="The refund button"`);
    expect(page).not.toContain("images.example");
    expect(page).toContain('aria-label="Breadcrumbs"');
    expect(page).toContain(`<time datetime="${seed.refunds.updatedAt.toISOString()}">`);
    expect(page).toContain('"@type":"Article"');
    expect(page).toContain('"@type":"BreadcrumbList"');
    // Every section heading is a question: the article is a list of questions.
    expect(page).toContain('"@type":"FAQPage"');
    expect(page).toContain('<meta property="og:type" content="article">');
    expect(page).toContain('<meta name="description" content="Refunds reach your card within five working days.">');
  });

  test("drafts, internal and unlisted articles answer 404, even by their exact URL", async () => {
    for (const doc of hidden()) {
      const res = await app.request(`${base}/en/articles/${articleRef(doc)}`);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain(doc.title);
    }
  });

  test("a title change keeps the old URL working: 301 to the new slug", async () => {
    const doc = await import("../../src/knowledge/docs.ts").then((m) =>
      m.createDoc(app.deps, seed.orgId, { title: "Return labels", body: "Print the label.", tags: ["shipping"] }),
    );
    const old = `${base}/en/articles/${articleRef(doc)}`;
    expect((await app.request(old)).status).toBe(200);
    const renamed = await updateDoc(app.deps, seed.orgId, doc.id, { title: "Printing a return label" });
    const res = await app.request(old);
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe(`${base}/en/articles/${articleRef(renamed)}`);
    expect(articleRef(renamed)).toEndWith("-printing-a-return-label");
    expect((await app.request(res.headers.get("location")!)).status).toBe(200);
  });

  test("sitemap.xml lists exactly the public articles, robots.txt names it", async () => {
    const res = await app.request(`${base}/sitemap.xml`);
    expect(res.headers.get("content-type")).toStartWith("application/xml");
    const xml = await res.text();
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);
    const articles = locs.filter((l) => l.includes("/articles/")).map((l) => l.replace(/.*\/articles\/([0-9a-f]{12}).*/, "$1"));
    const publicIds = [seed.refunds, seed.shipping].map((d) => d.id.replace(/-/g, "").slice(0, 12));
    for (const id of publicIds) expect(articles).toContain(id);
    for (const doc of hidden()) expect(articles).not.toContain(doc.id.replace(/-/g, "").slice(0, 12));
    expect(locs).toContain(`http://localhost:3000${base}/en/`);
    const robots = await (await app.request(`${base}/robots.txt`)).text();
    expect(robots).toContain(`Sitemap: http://localhost:3000${base}/sitemap.xml`);
  });

  test("search: the public articles with snippets; drafts and internal ones never; a search with no result is recorded", async () => {
    const page = await (await app.request(`${base}/en/search?q=refund`)).text();
    expect(page).toContain("Getting a refund");
    expect(page).toContain("<mark>");
    for (const doc of hidden()) expect(page).not.toContain(doc.title);
    const none = await (await app.request(`${base}/en/search?q=${encodeURIComponent("xylophone lessons")}`)).text();
    expect(none).toContain("No article matches your search");
    const misses = await missedSearches(app.deps, seed.orgId, new Date(0), new Date(Date.now() + 86_400_000));
    expect(misses.map((m) => m.query)).toContain("xylophone lessons");
    // "ninety" is only in the draft, "approval" only in the internal article: no result.
    for (const word of ["ninety", "approval", "rota"]) expect(await (await app.request(`${base}/en/search?q=${word}`)).text()).toContain("No article matches");
  });

  test("a search of 200 characters is answered, 201 is a 400", async () => {
    expect((await app.request(`${base}/en/search?q=${"a".repeat(200)}`)).status).toBe(200);
    expect((await app.request(`${base}/en/search?q=${"a".repeat(201)}`)).status).toBe(400);
  });

  test("an unknown slug, a disabled help centre, an unknown page: 404", async () => {
    expect((await app.request("/help/no-such-centre/")).status).toBe(404);
    expect((await app.request(`${base}/nope`)).status).toBe(404);
    expect((await app.request(`${base}/en/articles/zzz`)).status).toBe(404);
    expect((await app.request(`${base}/en/articles/%E0%A4%A`)).status).toBe(404);
    expect((await app.request(`${base}/media/000000000000/0`)).status).toBe(404);
  });
});

describe("branding", () => {
  test("the widget's look colours the header (black or white text, whichever reads) and its picture is served from our origin", async () => {
    const { updateAgent } = await import("../../src/agents/service.ts");
    const actor = { kind: "system", name: "test" } as const;
    const plain = await (await app.request(`${base}/help.css`)).text();
    expect(plain).not.toContain("header.site { background: #");
    expect(plain).toContain("header.site .bar, main, footer.site { max-width: 52rem;");
    await updateAgent(app.deps, seed.orgId, actor, seed.org.agent_id, {
      avatar_config: { primary_color: "#FFCC00", image_url: "https://images.example/logo.png" },
    });
    const light = await (await app.request(`${base}/help.css`)).text();
    expect(light).toContain("header.site { background: #ffcc00; color: #000000; }");
    expect(light).toContain(`background: url("${base}/logo") center / cover;`);
    await updateAgent(app.deps, seed.orgId, actor, seed.org.agent_id, { avatar_config: { primary_color: "#1a237e" } });
    const dark = await (await app.request(`${base}/help.css`)).text();
    expect(dark).toContain("header.site { background: #1a237e; color: #ffffff; }");
    expect(dark).not.toContain("/logo");
    // No picture, or one the guard cannot reach (this test's resolver knows no images.example): 404, never a 5xx.
    expect((await app.request(`${base}/logo`)).status).toBe(404);
  });
});
