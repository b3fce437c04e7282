// A help centre read in part (README "Knowledge sources"): at most SYNC_LIMITS.apiPages pages of
// each API list are read per sync. Articles that span exactly that many pages are read completely;
// one page more is not: the sync ends `ready`, removes nothing (the articles past the cap are not
// "no longer listed", only unread), and its `reason` says why. Against a loopback Zendesk Guide
// (articles.json and sections.json, `next_page`) and Intercom (`pages.next`), mostly empty pages.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listDocs } from "../../src/knowledge/docs.ts";
import { SYNC_LIMITS } from "../../src/sources/model.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { syncAndWait } from "./helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let token: string;
let server: ReturnType<typeof Bun.serve>;
let base: string;
const requests: string[] = [];
const INTERCOM_TOKEN = "dG9rOmZha2UtaW50ZXJjb20tcGFnZXM=";
/** How many pages each list spans; the first article is on page 1, the last on the last page. */
let articlePages = 1;
let collectionPages = 1;

const article = (n: number, zendesk: boolean) =>
  zendesk
    ? {
        id: n,
        title: `Article ${n}`,
        body: `<p>The text of article ${n}.</p>`,
        html_url: `https://acme.zendesk.com/hc/en-us/articles/${n}`,
        section_id: 1,
        draft: false,
      }
    : {
        id: String(n),
        type: "article",
        title: `Article ${n}`,
        body: `<p>The text of article ${n}.</p>`,
        url: `https://help.acme.io/en/articles/${n}`,
        state: "published",
        parent_id: 1,
      };
/** Page `page` of `pages`: the first holds article 1, the last article 2, those between nothing. */
const articlesOn = (page: number, pages: number, zendesk: boolean) => [
  ...(page === 1 ? [article(1, zendesk)] : []),
  ...(page === pages ? [article(2, zendesk)] : []),
];

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development" });
  org = await seedOrg(app);
  token = await signIn(app, org.admin_email, org.password);
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const url = new URL(request.url);
      requests.push(url.pathname + url.search);
      const page = Number(url.searchParams.get("page") ?? "1");
      switch (url.pathname) {
        case "/zd/api/v2/help_center/en-us/sections.json":
          return Response.json({ sections: [{ id: 1, name: "Account" }], next_page: null });
        case "/zd/api/v2/help_center/en-us/articles.json":
          return Response.json({
            articles: articlesOn(page, articlePages, true),
            next_page: page < articlePages ? `${base}/zd/api/v2/help_center/en-us/articles.json?page=${page + 1}&per_page=100` : null,
            page_count: articlePages,
          });
      }
      if (request.headers.get("authorization") !== `Bearer ${INTERCOM_TOKEN}`) return Response.json({ type: "error.list" }, { status: 401 });
      const pages = (n: number) => ({ type: "pages", page, total_pages: n, ...(page < n ? { next: `${base}${url.pathname}?page=${page + 1}` } : {}) });
      if (url.pathname === "/ic/help_center/collections")
        return Response.json({ type: "list", data: page === 1 ? [{ id: "1", name: "Data" }] : [], pages: pages(collectionPages) });
      if (url.pathname === "/ic/articles") return Response.json({ type: "list", data: articlesOn(page, articlePages, false), pages: pages(articlePages) });
      return Response.json({ error: "not found" }, { status: 404 });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  server.stop(true);
  await app.close();
});

const auth = () => ({ authorization: `Bearer ${token}` });
const titlesUnder = async (prefix: string) =>
  (await listDocs(app.deps, org.org_id, { limit: 100, offset: 0 }))
    .filter((d) => d.url?.startsWith(prefix))
    .map((d) => d.title)
    .sort();

async function create(json: Record<string, unknown>): Promise<string> {
  const res = await app.request("/api/knowledge/sources", { headers: auth(), json });
  expect(res.status).toBe(201);
  return ((await res.json()) as any).id;
}

describe(`help-centre API pages: at most ${SYNC_LIMITS.apiPages} per list`, () => {
  test(`Zendesk: articles over exactly ${SYNC_LIMITS.apiPages} pages are read completely; over one page more, nothing is removed and the source says why`, async () => {
    articlePages = SYNC_LIMITS.apiPages;
    const id = await create({ kind: "zendesk", name: "Zendesk", base_url: `${base}/zd` });
    const complete = await syncAndWait(app, token, id, false);
    expect(complete.status).toBe("ready");
    expect(complete.reason).toBeUndefined();
    expect(complete.counts).toMatchObject({ found: 2, imported: 2 });
    expect(await titlesUnder("https://acme.zendesk.com/")).toEqual(["Article 1", "Article 2"]);

    // Article 2 moves to page cap + 1, which a sync does not read: it is unread, not gone.
    articlePages = SYNC_LIMITS.apiPages + 1;
    requests.length = 0;
    const partial = await syncAndWait(app, token, id);
    expect(partial.status).toBe("ready");
    expect(partial.counts).toMatchObject({ found: 1, removed: 0 });
    expect(await titlesUnder("https://acme.zendesk.com/")).toEqual(["Article 1", "Article 2"]);
    expect(partial.reason).toBe(
      `read in part, so nothing was removed: the help centre's articles span more than ${SYNC_LIMITS.apiPages} API pages; those past them were not read`,
    );
    expect(requests.filter((r) => r.includes("articles.json")).length).toBe(SYNC_LIMITS.apiPages);
    expect(requests.some((r) => r.includes(`page=${SYNC_LIMITS.apiPages + 1}&`))).toBe(false);
  });

  test(`Intercom: collections and articles over exactly ${SYNC_LIMITS.apiPages} pages are complete; over one page more each, nothing is removed and both reasons are given`, async () => {
    articlePages = SYNC_LIMITS.apiPages;
    collectionPages = SYNC_LIMITS.apiPages;
    const id = await create({ kind: "intercom", name: "Intercom", base_url: `${base}/ic`, token: INTERCOM_TOKEN });
    const complete = await syncAndWait(app, token, id, false);
    expect(complete.status).toBe("ready");
    expect(complete.reason).toBeUndefined();
    expect(await titlesUnder("https://help.acme.io/")).toEqual(["Article 1", "Article 2"]);

    articlePages = SYNC_LIMITS.apiPages + 1;
    collectionPages = SYNC_LIMITS.apiPages + 1;
    const partial = await syncAndWait(app, token, id);
    expect(partial.status).toBe("ready");
    expect(partial.counts).toMatchObject({ removed: 0 });
    expect(await titlesUnder("https://help.acme.io/")).toEqual(["Article 1", "Article 2"]);
    expect(partial.reason).toBe(
      `read in part, so nothing was removed: the help centre's collections span more than ${SYNC_LIMITS.apiPages} API pages; those past them were not read; the help centre's articles span more than ${SYNC_LIMITS.apiPages} API pages; those past them were not read`,
    );
  });
});
