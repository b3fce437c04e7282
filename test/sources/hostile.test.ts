// Hostile and broken pages (README "Knowledge sources"): a crawl from a start page follows its
// links and meets a page over the size cap, a deeply nested page, a page full of script, a redirect
// off the site, a redirect chain at the cap and one past it, and a page that disappears. None of
// them fails the sync or the server: each is imported or refused with its reason; a page gone twice
// in a row loses its doc.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listDocs } from "../../src/knowledge/docs.ts";
import { MAX_DEPTH } from "../../src/sources/html-markdown.ts";
import { SYNC_LIMITS } from "../../src/sources/model.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { syncAndWait } from "./helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let token: string;
let server: ReturnType<typeof Bun.serve>;
let origin: string;
let goneAnswers = 0;
let fooGone = false;

const article = (title: string, extra = "") =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><article><h1>${title}</h1><p>${title} is described here in a paragraph long enough for the reader to keep it, with several clauses, commas and words.</p>${extra}</article></main></body></html>`;
const LINKS = ["/giant", "/deep", "/script", "/offsite", "/hops-5", "/hops-6", "/foo", "/private-ok"];

beforeAll(async () => {
  app = await createTestApp({ NODE_ENV: "development", WEBSITE_CRAWL_DELAY_MS: "0" });
  org = await seedOrg(app);
  token = await signIn(app, org.admin_email, org.password);
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      const html = (body: string) => new Response(body, { headers: { "content-type": "text/html" } });
      if (path === "/robots.txt") return new Response("", { status: 404 });
      if (path === "/") return html(article("Start", LINKS.map((l) => `<a href="${l}">${l}</a>`).join(" ")));
      if (path === "/giant") return html(article("Giant", "<p>" + "x".repeat(SYNC_LIMITS.pageBytes) + "</p>"));
      if (path === "/deep") return html(article("Deep", "<div>".repeat(5000) + "bottom" + "</div>".repeat(5000)));
      if (path === "/script")
        return html(article("Scripted", `<script>document.write("<p>injected</p>")</script><p onclick="steal()">Click <img src=x onerror="alert(1)">here</p>`));
      if (path === "/offsite") return new Response(null, { status: 302, headers: { location: "https://example.com/elsewhere" } });
      const hops = /^\/hops-(\d+)(?:\/(\d+))?$/.exec(path);
      if (hops) {
        const total = Number(hops[1]);
        const at = Number(hops[2] ?? "0");
        return at < total ? new Response(null, { status: 301, headers: { location: `/hops-${total}/${at + 1}` } }) : html(article(`Chain of ${total}`));
      }
      if (path === "/foo") {
        if (!fooGone) return html(article("Foo"));
        goneAnswers++;
        return new Response("gone", { status: 410 });
      }
      if (path === "/private-ok") return html(article("Plain"));
      return new Response("no", { status: 404 });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
});

afterAll(async () => {
  server.stop(true);
  await app.close();
});

const docs = async () => (await listDocs(app.deps, org.org_id, { limit: 100, offset: 0 })).filter((d) => d.url?.startsWith(origin));
let sourceId: string;

describe("hostile pages", () => {
  test("each is imported or refused with its reason; the sync itself succeeds", async () => {
    const res = await app.request("/api/knowledge/sources", {
      headers: { authorization: `Bearer ${token}` },
      json: { kind: "website", name: "Hostile", start_url: `${origin}/` },
    });
    expect(res.status).toBe(201);
    sourceId = ((await res.json()) as any).id;
    const synced = await syncAndWait(app, token, sourceId, false);
    expect(synced.status).toBe("ready");
    const reasons = Object.fromEntries(synced.problems.map((p: { url: string; reason: string }) => [new URL(p.url).pathname, p.reason]));
    expect(reasons["/giant"]).toBe(`the page is larger than ${SYNC_LIMITS.pageBytes} bytes`);
    expect(reasons["/offsite"]).toContain("off the source's site");
    expect(reasons["/hops-6"]).toBe(`more than ${SYNC_LIMITS.redirects} redirects`);
    const byPath = new Map((await docs()).map((d) => [new URL(d.url!).pathname, d]));
    // Five redirects are followed; the doc has the final address.
    expect(byPath.get("/hops-5/5")!.title).toBe("Chain of 5");
    expect(byPath.get("/script")!.body).not.toMatch(/injected|onclick|onerror|steal|alert/);
    expect(reasons["/deep"]).toBe(`the page is nested more than ${MAX_DEPTH} levels deep`);
    expect((await app.request("/healthz")).status).toBe(200);
  }, 60_000);

  test("a page that answers 410 keeps its doc the first time and loses it the second", async () => {
    fooGone = true;
    const once = await syncAndWait(app, token, sourceId);
    expect(once.status).toBe("ready");
    expect((await docs()).some((d) => d.url === `${origin}/foo`)).toBe(true);
    expect(once.problems).toContainEqual({ url: `${origin}/foo`, reason: expect.stringContaining("404 or 410"), doc_id: expect.any(String) });
    const twice = await syncAndWait(app, token, sourceId);
    expect(twice.counts.removed).toBe(1);
    expect((await docs()).some((d) => d.url === `${origin}/foo`)).toBe(false);
    expect(goneAnswers).toBe(2);
  }, 60_000);
});
