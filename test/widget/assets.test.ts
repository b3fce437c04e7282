// GET /widget.js and GET /demo over HTTP: the bundle's headers, revalidation, size
// budget and CORS; the demo page's key, policy and its absence when the demo is not seeded.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { WIDGET_MAX_GZIP_BYTES } from "../../src/widget/bundle.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";

// A test app (and its database) each: seconds on a loaded machine.
const TIMEOUT = 30_000;
let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, TIMEOUT);
afterAll(() => app.close(), TIMEOUT);

test(
  "/widget.js: a minified script under the 40 KB gzipped budget, cacheable, cross-origin, revalidated by ETag",
  async () => {
    const res = await app.request("/widget.js", { headers: { origin: "https://shop.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
    const code = await res.text();
    expect(code.startsWith("(()=>{")).toBe(true); // one IIFE: nothing leaks into the page's globals
    expect(code).not.toContain("import ");
    expect(code.split("\n").length).toBeLessThan(80); // minified (the stylesheet keeps its lines)
    expect(Bun.gzipSync(code).byteLength).toBeLessThan(WIDGET_MAX_GZIP_BYTES);
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);

    const again = await app.request("/widget.js", { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const other = await app.request("/widget.js", { headers: { "if-none-match": '"something-else"' } });
    expect(other.status).toBe(200);
    expect(await other.text()).toBe(code); // built once per app instance: the same bytes
  },
  TIMEOUT,
);

test(
  "/demo: the demo org's widget on a page with a strict policy; the snippet shows the key and org",
  async () => {
    const res = await app.request("/demo");
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    const body = await res.text();
    const tag = body.match(/<script src="\/widget\.js" data-key="(ab_live_[A-Za-z0-9_-]+)" data-org="([0-9a-f-]{36})" async><\/script>/);
    expect(tag).not.toBeNull();
    // The key on the page is a live key of the org it names: the SDK accepts it.
    const config = await app.request(`/api/sdk/config?org_id=${tag![2]}`);
    expect(config.status).toBe(200);
    const chat = await app.request("/api/sdk/chat", { headers: { authorization: `Bearer ${tag![1]}` }, json: { message: "How do I reset my password?" } });
    expect(chat.status).toBe(200);
    expect(((await chat.json()) as { text: string }).text).toContain("reset");
    // The snippet for other sites, escaped into the page, with the absolute URL.
    expect(body).toContain(
      `<code>&#60;script src=&#34;http://localhost:3000/widget.js&#34; data-key=&#34;${tag![1]}&#34; data-org=&#34;${tag![2]}&#34; async&#62;&#60;/script&#62;`,
    );
    // Asking again finds the same demo org (no second one).
    const again = await (await app.request("/demo")).text();
    expect(again).toContain(tag![1]!);
  },
  TIMEOUT,
);

test(
  '/demo has a visible voice toggle: off by default, /demo?voice=on puts data-voice="on" on the widget\'s script tag',
  async () => {
    const off = await (await app.request("/demo")).text();
    expect(off).toContain("<strong>Voice: off.</strong>");
    expect(off).toContain('<a href="/demo?voice=on">Turn voice on</a>');
    expect(off).not.toContain("data-voice");
    const on = await (await app.request("/demo?voice=on")).text();
    expect(on).toContain('<a href="/demo">Turn voice off</a>');
    expect(on).toContain("send the audio to their vendor");
    expect(on).toMatch(/<script src="\/widget\.js" data-key="ab_live_[A-Za-z0-9_-]+" data-org="[0-9a-f-]{36}" data-voice="on" async><\/script>/);
  },
  TIMEOUT,
);

test(
  "/demo is 404 when the demo is not seeded (SEED_DEMO=0), even with orgs on the server",
  async () => {
    const off = await createTestApp({ SEED_DEMO: "0" });
    try {
      await seedOrg(off);
      const res = await off.request("/demo");
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("not_found");
    } finally {
      await off.close();
    }
  },
  TIMEOUT,
);

test(
  "/demo is 404 on a server whose orgs include no demo org",
  async () => {
    const other = await createTestApp();
    try {
      await seedOrg(other);
      expect((await other.request("/demo")).status).toBe(404);
    } finally {
      await other.close();
    }
  },
  TIMEOUT,
);
