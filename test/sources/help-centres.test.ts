// Help-centre imports (README "Knowledge sources") against loopback servers speaking the documented
// shapes: Zendesk Guide's public Help Center API (articles.json and sections.json, `next_page`)
// and Intercom's Articles API (Bearer token, Intercom-Version header, `pages.next`). Each published
// article becomes a doc with its title, markdown body, URL and section as a tag; re-running
// updates the same docs instead of adding new ones; the Intercom token is stored encrypted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { knowledgeSources } from "../../src/db/schema/index.ts";
import { listDocs } from "../../src/knowledge/docs.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { syncAndWait } from "./helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let token: string;
let server: ReturnType<typeof Bun.serve>;
let base: string;
const seen: { path: string; authorization: string | null; version: string | null }[] = [];
const INTERCOM_TOKEN = "dG9rOmZha2UtaW50ZXJjb20tdG9rZW4=";

const zendesk = [
  {
    id: 1,
    title: "Change your email",
    body: "<h2>Steps</h2><p>Open <strong>Profile</strong>, then Email.</p>",
    html_url: "https://acme.zendesk.com/hc/en-us/articles/1-change-email",
    section_id: 10,
    draft: false,
  },
  {
    id: 2,
    title: "Delete your account",
    body: "<p>Write to us; we delete it within 30 days.</p>",
    html_url: "https://acme.zendesk.com/hc/en-us/articles/2-delete",
    section_id: 11,
    draft: false,
  },
  {
    id: 3,
    title: "Two-factor setup",
    body: "<p>Scan the code with an authenticator app.</p><script>alert(1)</script>",
    html_url: "https://acme.zendesk.com/hc/en-us/articles/3-2fa",
    section_id: 10,
    draft: false,
  },
  { id: 4, title: "Unreleased feature", body: "<p>Not yet.</p>", html_url: "https://acme.zendesk.com/hc/en-us/articles/4-draft", section_id: 10, draft: true },
];
const intercom = [
  {
    id: "7",
    type: "article",
    title: "Connect Slack",
    body: "<h2>Before you start</h2><p>You need admin rights.</p>",
    url: "https://help.acme.io/en/articles/7-connect-slack",
    state: "published",
    parent_id: 90,
    parent_type: "collection",
  },
  {
    id: "8",
    type: "article",
    title: "Export data",
    body: "<p>Choose CSV or JSON.</p>",
    url: "https://help.acme.io/en/articles/8-export",
    state: "published",
    parent_id: 91,
    parent_type: "collection",
  },
  {
    id: "9",
    type: "article",
    title: "Draft",
    body: "<p>Soon.</p>",
    url: "https://help.acme.io/en/articles/9-draft",
    state: "draft",
    parent_id: 91,
    parent_type: "collection",
  },
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
      seen.push({ path: url.pathname + url.search, authorization: request.headers.get("authorization"), version: request.headers.get("intercom-version") });
      const json = (body: unknown, status = 200) => Response.json(body, { status });
      const page = Number(url.searchParams.get("page") ?? "1");
      switch (url.pathname) {
        case "/zd/api/v2/help_center/en-us/sections.json":
          return json({
            sections: [
              { id: 10, name: "Account" },
              { id: 11, name: "Privacy" },
            ],
            next_page: null,
          });
        case "/zd/api/v2/help_center/en-us/articles.json":
          return json(
            page === 1
              ? { articles: zendesk.slice(0, 2), next_page: `${base}/zd/api/v2/help_center/en-us/articles.json?page=2&per_page=100`, page_count: 2 }
              : { articles: zendesk.slice(2), next_page: null, page_count: 2 },
          );
      }
      if (!url.pathname.startsWith("/ic/")) return json({ error: "not found" }, 404);
      if (request.headers.get("authorization") !== `Bearer ${INTERCOM_TOKEN}` || !request.headers.get("intercom-version"))
        return json({ type: "error.list", errors: [{ code: "unauthorized" }] }, 401);
      if (url.pathname === "/ic/help_center/collections")
        return json({
          type: "list",
          data: [
            { id: "90", name: "Integrations" },
            { id: "91", name: "Data" },
          ],
          pages: { type: "pages", page: 1, total_pages: 1 },
        });
      if (url.pathname === "/ic/articles")
        return json({
          type: "list",
          data: page === 1 ? intercom.slice(0, 1) : intercom.slice(1),
          pages: { type: "pages", page, per_page: 1, total_pages: 2, ...(page === 1 ? { next: `${base}/ic/articles?page=2` } : {}) },
        });
      return json({ error: "not found" }, 404);
    },
  });
  base = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  server.stop(true);
  await app.close();
});

const auth = () => ({ authorization: `Bearer ${token}` });
const docsUnder = async (prefix: string) => (await listDocs(app.deps, org.org_id, { limit: 100, offset: 0 })).filter((d) => d.url?.startsWith(prefix));

describe("help-centre imports", () => {
  test("Zendesk Guide: every published article across pages, section as a tag; re-running updates instead of duplicating", async () => {
    const res = await app.request("/api/knowledge/sources", {
      headers: auth(),
      json: { kind: "zendesk", name: "Zendesk", base_url: `${base}/zd`, locale: "en-us" },
    });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as any).id;
    const first = await syncAndWait(app, token, id, false);
    expect(first.status).toBe("ready");
    expect(first.counts).toMatchObject({ found: 3, imported: 3 });
    const docs = await docsUnder("https://acme.zendesk.com/");
    expect(docs.map((d) => d.title).sort()).toEqual(["Change your email", "Delete your account", "Two-factor setup"]);
    const email = docs.find((d) => d.title === "Change your email")!;
    expect(email.body).toBe("## Steps\n\nOpen **Profile**, then Email.");
    expect(email.tags).toEqual(["Account"]);
    expect(docs.find((d) => d.title === "Delete your account")!.tags).toEqual(["Privacy"]);
    expect(docs.find((d) => d.title === "Two-factor setup")!.body).not.toContain("alert");
    expect(seen.some((s) => s.path.includes("articles.json?page=2"))).toBe(true);

    zendesk[1]!.body = "<p>Write to us; we delete it within 14 days.</p>";
    const second = await syncAndWait(app, token, id);
    expect(second.counts).toMatchObject({ found: 3, imported: 0, updated: 1, unchanged: 2 });
    const again = await docsUnder("https://acme.zendesk.com/");
    expect(again.map((d) => d.id).sort()).toEqual(docs.map((d) => d.id).sort());
    expect(again.find((d) => d.title === "Delete your account")!.body).toContain("14 days");
  });

  test("Intercom Articles: the token encrypted at rest, sent as a Bearer with Intercom-Version; pages followed; drafts skipped", async () => {
    const res = await app.request("/api/knowledge/sources", {
      headers: auth(),
      json: { kind: "intercom", name: "Intercom", base_url: `${base}/ic`, token: INTERCOM_TOKEN },
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as any;
    expect(JSON.stringify(created)).not.toContain(INTERCOM_TOKEN);
    expect(created.token_set).toBe(true);
    const [row] = await app.deps.db.select().from(knowledgeSources).where(eq(knowledgeSources.id, created.id));
    expect(JSON.stringify(row!.credentials)).not.toContain(INTERCOM_TOKEN);
    const first = await syncAndWait(app, token, created.id, false);
    expect(first.status).toBe("ready");
    const docs = await docsUnder("https://help.acme.io/");
    expect(docs.map((d) => [d.title, d.tags]).sort()).toEqual([
      ["Connect Slack", ["Integrations"]],
      ["Export data", ["Data"]],
    ]);
    expect(docs.find((d) => d.title === "Connect Slack")!.body).toBe("## Before you start\n\nYou need admin rights.");
    expect(seen.filter((s) => s.path.startsWith("/ic/")).every((s) => s.authorization === `Bearer ${INTERCOM_TOKEN}` && s.version === "2.11")).toBe(true);
    expect(seen.some((s) => s.path === "/ic/articles?page=2")).toBe(true);

    const second = await syncAndWait(app, token, created.id);
    expect(second.counts).toMatchObject({ imported: 0, updated: 0, unchanged: 2 });
    expect((await docsUnder("https://help.acme.io/")).length).toBe(2);
  });

  test("an API that refuses (a wrong token) fails the sync with the reason and keeps the docs", async () => {
    const list = ((await (await app.request("/api/knowledge/sources", { headers: auth() })).json()) as any).sources;
    const source = list.find((s: any) => s.kind === "intercom");
    const patched = await app.request(`/api/knowledge/sources/${source.id}`, { method: "PATCH", headers: auth(), json: { token: "wrong" } });
    expect(patched.status).toBe(200);
    const synced = await syncAndWait(app, token, source.id);
    expect(synced.status).toBe("failed");
    expect(synced.reason).toContain("HTTP 401");
    expect((await docsUnder("https://help.acme.io/")).length).toBe(2);
  });
});
