// The widget SDK from a real page in headless Chromium: a page served by a
// second loopback origin calls users/identify and tickets/create with fetch and the widget key.
// The browser itself enforces CORS: the preflight (Authorization + JSON content type are not
// "simple") and the response must both pass, and exposed headers must be readable from script.
// Skipped when Debian's chromium is missing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { seedOrg, serveTestApp, signIn, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, launchBrowser } from "../support/browser.ts";

const TIMEOUT = 60_000;
const missing = !browserAvailable();
if (missing) console.log(`widget browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let browser: Browser | undefined;
let site: ReturnType<typeof Bun.serve> | undefined;
let siteOrigin: string;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,"></head><body><h1>Shop</h1></body></html>`;

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  org = await seedOrg(app);
  // The org's own site: another origin (same loopback address, another port).
  site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }) });
  siteOrigin = `http://127.0.0.1:${site.port}`;
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  if (app) await app.close();
});

/** Runs in the page: fetch with the widget key, returning what script can see. */
async function callFromPage(args: { url: string; key: string; body: unknown }) {
  try {
    const res = await fetch(args.url, {
      method: "POST",
      headers: { Authorization: `Bearer ${args.key}`, "Content-Type": "application/json" },
      body: JSON.stringify(args.body),
    });
    return {
      ok: true,
      status: res.status,
      body: await res.json(),
      requestId: res.headers.get("X-Request-Id"),
      contentType: res.headers.get("Content-Type"),
      // Sent by the server but not in Access-Control-Expose-Headers: script must not see it.
      unexposed: res.headers.get("Access-Control-Allow-Methods"),
    };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}

test.skipIf(missing)(
  "identify and tickets/create from another origin pass the browser's CORS checks; exposed headers are readable",
  async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    await page.goto(`${siteOrigin}/`);
    const before = app.logs.length;

    const identify = await page.evaluate(callFromPage, {
      url: `${app.url}/api/sdk/users/identify`,
      key: org.widget_key,
      body: { user_id: "browser-user", email: "b@shop.example" },
    });
    expect(identify).toMatchObject({ ok: true, status: 200, body: { user_id: "browser-user", email: "b@shop.example", verified: false } });
    expect(identify.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(identify.unexposed).toBeNull();

    const ticket = await page.evaluate(callFromPage, {
      url: `${app.url}/api/sdk/tickets/create`,
      key: org.widget_key,
      body: { user_id: "browser-user", subject: "From the page", message: "Hello" },
    });
    expect(ticket).toMatchObject({ ok: true, status: 201, body: { subject: "From the page", status: "open" } });
    expect(typeof ticket.body.number).toBe("number");
    expect(ticket.requestId).toMatch(/^[0-9a-f-]{36}$/);

    // The chat stream's X-Session-Id and X-Agent-Id are readable from script too, and the session
    // links the page's next ticket to that conversation.
    const stream = await page.evaluate(
      async (args) => {
        const res = await fetch(args.url, {
          method: "POST",
          headers: { Authorization: `Bearer ${args.key}`, "Content-Type": "application/json" },
          body: JSON.stringify({ message: "How do I reset my password?", user_id: "browser-user" }),
        });
        const text = await res.text();
        return { status: res.status, sessionId: res.headers.get("X-Session-Id"), agentId: res.headers.get("X-Agent-Id"), length: text.length };
      },
      { url: `${app.url}/api/sdk/chat/stream`, key: org.widget_key },
    );
    expect(stream.status).toBe(200);
    expect(stream.sessionId).toMatch(/^cs_/);
    expect(stream.agentId).toBe(org.agent_id);
    expect(stream.length).toBeGreaterThan(0);
    const linked = await page.evaluate(callFromPage, {
      url: `${app.url}/api/sdk/tickets/create`,
      key: org.widget_key,
      body: { user_id: "browser-user", session_id: stream.sessionId, subject: "Follow-up", message: "From the chat" },
    });
    expect(linked).toMatchObject({ status: 201, body: { session_id: stream.sessionId } });

    // The browser did send preflights (the requests are not CORS-simple), and the server answered them.
    const preflights = app.logs.slice(before).filter((l) => l.method === "OPTIONS");
    expect(preflights.length).toBeGreaterThanOrEqual(1);
    expect(preflights.every((l) => l.status === 204)).toBe(true);

    // An error is readable too (CORS headers on errors): a revoked-looking key gives script the 401 body.
    const refused = await page.evaluate(callFromPage, { url: `${app.url}/api/sdk/users/identify`, key: `ab_live_${"A".repeat(32)}`, body: { user_id: "x" } });
    expect(refused).toMatchObject({ ok: true, status: 401, body: { error: { code: "invalid_widget_key" } } });
    await context.close();
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "allowed origins: the listed site works, an unlisted one gets a readable 403 origin_not_allowed",
  async () => {
    const admin = await signIn(app, org.admin_email, org.password);
    const set = async (origins: string[]) =>
      expect(
        (await app.request("/api/widget/origins", { method: "PUT", headers: { authorization: `Bearer ${admin}` }, json: { allowed_origins: origins } })).status,
      ).toBe(200);
    const context = await browser!.newContext();
    const page = await context.newPage();
    await page.goto(`${siteOrigin}/`);
    const call = () => page.evaluate(callFromPage, { url: `${app.url}/api/sdk/users/identify`, key: org.widget_key, body: { user_id: "browser-user" } });

    await set([siteOrigin]);
    expect(await call()).toMatchObject({ ok: true, status: 200 });
    await set(["https://elsewhere.example"]);
    expect(await call()).toMatchObject({ ok: true, status: 403, body: { error: { code: "origin_not_allowed" } } });
    await set([]);
    await context.close();
  },
  TIMEOUT,
);
