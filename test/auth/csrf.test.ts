// Cookie-authenticated changes must be same-origin, and a refused sign-in form
// names the origin the server expects (item 6). Bearer tokens are not affected.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let cookie: string;
let bearer: string;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  const res = await app.request("/signin", { form: { email: org.admin_email, password: org.password }, headers: { "sec-fetch-site": "same-origin" } });
  expect(res.status).toBe(303);
  cookie = res.headers.get("set-cookie")!.split(";")[0]!;
  bearer = await signIn(app, org.admin_email, org.password);
});
afterAll(() => app.close());

const doc = { title: "CSRF probe", body: "text" };
const FOREIGN: Record<string, string>[] = [
  { origin: "https://evil.example" },
  { "sec-fetch-site": "cross-site" },
  { "sec-fetch-site": "same-site", origin: "http://localhost:3000" },
  { origin: "http://127.0.0.1:3000" },
];

describe("cookie-authenticated state-changing requests", () => {
  test("from a foreign Origin or Sec-Fetch-Site cross-site/same-site: 403 cross_site_request naming the expected origin", async () => {
    for (const headers of FOREIGN) {
      for (const [method, path, json] of [
        ["POST", "/api/docs", doc],
        ["PATCH", `/api/docs/${crypto.randomUUID()}`, { title: "x" }],
        ["DELETE", `/api/docs/${crypto.randomUUID()}`, undefined],
        ["DELETE", "/api/auth/session", undefined],
      ] as const) {
        const res = await app.request(path, { method, json, headers: { cookie, ...headers } });
        expect([method, path, headers, res.status]).toEqual([method, path, headers, 403]);
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe("cross_site_request");
        expect(body.error.message).toContain("http://localhost:3000");
      }
    }
    // Nothing was created, and the session still works.
    const list = await app.request("/api/docs", { headers: { cookie } });
    expect(list.status).toBe(200);
    expect(JSON.stringify(await list.json())).not.toContain("CSRF probe");
  });

  test("same-origin (Sec-Fetch-Site same-origin, or our Origin) and clients that send neither are accepted", async () => {
    for (const headers of [{ "sec-fetch-site": "same-origin" }, { origin: "http://localhost:3000" }, {}] as Record<string, string>[]) {
      const res = await app.request("/api/docs", { json: doc, headers: { cookie, ...headers } });
      expect([headers, res.status]).toEqual([headers, 201]);
    }
  });

  test("reads with the cookie from another origin are not refused by this check", async () => {
    const res = await app.request("/api/docs", { headers: { cookie, origin: "https://evil.example", "sec-fetch-site": "cross-site" } });
    expect(res.status).toBe(200);
  });

  test("a bearer token from another origin is unaffected (it is never sent implicitly)", async () => {
    const res = await app.request("/api/docs", {
      json: doc,
      headers: { authorization: `Bearer ${bearer}`, cookie, origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    });
    expect(res.status).toBe(201);
  });

  test("a cross-site sign-out is refused; a same-origin one signs out", async () => {
    const other = await app.request("/signin", { form: { email: org.admin_email, password: org.password } });
    const second = other.headers.get("set-cookie")!.split(";")[0]!;
    expect((await app.request("/signout", { method: "POST", headers: { cookie: second, origin: "https://evil.example" } })).status).toBe(403);
    expect((await app.request("/api/me", { headers: { cookie: second } })).status).toBe(200);
    expect((await app.request("/signout", { method: "POST", headers: { cookie: second, "sec-fetch-site": "same-origin" } })).status).toBe(303);
    expect((await app.request("/api/me", { headers: { cookie: second } })).status).toBe(401);
  });
});

describe("the sign-in page when the Origin check fails (item 6)", () => {
  test("says which origin it expects and how to fix it", async () => {
    const res = await app.request("/signin", { form: { email: org.admin_email, password: org.password }, headers: { origin: "http://192.168.1.20:3000" } });
    expect(res.status).toBe(403);
    const page = await res.text();
    expect(page).toContain("posted from another site");
    expect(page).toContain("http://192.168.1.20:3000");
    expect(page).toContain("expects http://localhost:3000 (its BASE_URL)");
    expect(page).toContain("set BASE_URL");
  });

  test("the origin it quotes is escaped", async () => {
    const res = await app.request("/signin", { form: { email: "a@example.com", password: "x" }, headers: { origin: 'http://x"><script>alert(1)</script>' } });
    const page = await res.text();
    expect(page).not.toContain("<script>alert(1)");
    expect(page).toContain("&#60;script&#62;");
  });
});
