// Dashboard sign-in: the HTML form, the session API, /api/me, limits.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { dashboardSessions } from "../../src/db/schema/index.ts";
import { SIGNIN_LIMITS } from "../../src/auth/signin.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
});
afterAll(() => app.close());

function cookieFrom(res: Response): string {
  const set = res.headers.get("set-cookie") ?? "";
  return set.split(";")[0]!;
}

describe("GET /signin", () => {
  test("renders a labelled form posting email and password", async () => {
    const res = await app.request("/signin?return_to=/somewhere");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    const page = await res.text();
    expect(page).toContain('<form method="post" action="/signin">');
    expect(page).toContain('name="email"');
    expect(page).toContain('name="password"');
    expect(page).toContain('<label for="email">');
    expect(page).toContain('<button type="submit">');
    expect(page).toContain('name="return_to" value="/somewhere"');
  });

  test("an off-site return_to is not carried into the form", async () => {
    const page = await (await app.request(`/signin?return_to=${encodeURIComponent("https://evil.example/x")}`)).text();
    expect(page).toContain('name="return_to" value="/dashboard"');
    expect(page).not.toContain("evil.example");
  });
});

describe("POST /signin", () => {
  test("sets an HttpOnly SameSite=Lax cookie and redirects to a same-origin return_to", async () => {
    const res = await app.request("/signin", { form: { email: org.admin_email, password: org.password, return_to: "/api/me?x=1" } });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/api/me?x=1");
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^svc_session=svc_ses_[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/");
    expect(cookie).not.toContain("Secure"); // BASE_URL is http here
    const me = await app.request("/api/me", { headers: { cookie: cookieFrom(res) } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { member: { email: string } }).member.email).toBe(org.admin_email);
  });

  test("without a return path it lands on the dashboard, not the page linking to it", async () => {
    const res = await app.request("/signin", { form: { email: org.admin_email, password: org.password } });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard");
    const form = await (await app.request("/signin")).text();
    expect(form).toContain('name="return_to" value="/dashboard"');
    const dashboard = await app.request("/dashboard", { headers: { cookie: cookieFrom(res) } });
    expect(dashboard.status).toBe(200);
  });

  test("/ sends a signed-in member to the dashboard, and anyone else to the sign-in", async () => {
    const signedIn = await app.request("/signin", { form: { email: org.admin_email, password: org.password } });
    const home = await app.request("/", { headers: { cookie: cookieFrom(signedIn) } });
    expect([home.status, home.headers.get("location")]).toEqual([303, "/dashboard"]);
    const bearer = await app.request("/", { headers: { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` } });
    expect([bearer.status, bearer.headers.get("location")]).toEqual([303, "/dashboard"]);
    for (const headers of [{}, { cookie: "svc_session=svc_ses_unknown" }] as Record<string, string>[]) {
      const out = await app.request("/", { headers });
      expect([out.status, out.headers.get("location")]).toEqual([303, "/signin"]);
    }
  });

  for (const evil of [
    "https://evil.example/",
    "//evil.example/path",
    "/\\evil.example",
    "http:/evil.example",
    "/\t/evil.example",
    "javascript:alert(1)",
    "evil",
  ]) {
    test(`rejects the open redirect ${JSON.stringify(evil)}`, async () => {
      const res = await app.request("/signin", { form: { email: org.admin_email, password: org.password, return_to: evil } });
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe("/dashboard");
    });
  }

  test("a wrong password and an unknown account get the same generic page", async () => {
    const wrong = await app.request("/signin", { form: { email: org.admin_email, password: "not-the-password" }, ip: "10.9.0.1" });
    const unknown = await app.request("/signin", { form: { email: "nobody@example.com", password: "whatever-it-is" }, ip: "10.9.0.1" });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.headers.get("set-cookie")).toBeNull();
    const [a, b] = [await wrong.text(), await unknown.text()];
    expect(a).toContain("Email or password is incorrect.");
    expect(b).toContain("Email or password is incorrect.");
    expect(a.replace(org.admin_email, "")).toBe(b.replace("nobody@example.com", ""));
  });

  test("what a browser sends for a same-origin form (Origin: null, Sec-Fetch-Site: same-origin) is accepted", async () => {
    const res = await app.request("/signin", {
      form: { email: org.admin_email, password: org.password },
      headers: { origin: "null", "sec-fetch-site": "same-origin" },
    });
    expect(res.status).toBe(303);
  });

  test("a cross-site form post is refused, whatever Origin claims", async () => {
    const attempts: Record<string, string>[] = [
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site", origin: "http://localhost:3000" },
      { origin: "null" },
    ];
    for (const headers of attempts) {
      const res = await app.request("/signin", { form: { email: org.admin_email, password: org.password }, headers });
      expect(res.status).toBe(403);
      expect(res.headers.get("set-cookie")).toBeNull();
    }
  });

  test("a form posted from another origin is refused", async () => {
    const res = await app.request("/signin", { form: { email: org.admin_email, password: org.password }, headers: { origin: "https://evil.example" } });
    expect(res.status).toBe(403);
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  test("the cookie is Secure when BASE_URL is https", async () => {
    const secure = await createTestApp({ BASE_URL: "https://agents.example.com" });
    try {
      const o = await seedOrg(secure);
      const res = await secure.request("/signin", { form: { email: o.admin_email, password: o.password } });
      expect(res.headers.get("set-cookie")).toContain("; Secure");
    } finally {
      await secure.close();
    }
  });
});

describe("session API", () => {
  test("POST /api/auth/session returns a bearer token stored only as its SHA-256", async () => {
    const res = await app.request("/api/auth/session", { json: { email: org.admin_email.toUpperCase(), password: org.password } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { token: string; expires_at: string };
    expect(body.token).toMatch(/^svc_ses_[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(body.expires_at)).toBeGreaterThan(Date.now());
    const rows = await app.deps.db.select().from(dashboardSessions);
    expect(rows.some((r) => r.tokenHash === sha256Hex(body.token))).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(body.token);
  });

  test("GET /api/me lists the member, orgs and roles; DELETE ends the session", async () => {
    const token = await signIn(app, org.admin_email, org.password);
    const me = await app.request("/api/me", { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    const body = (await me.json()) as { member: { id: string; email: string }; orgs: { id: string; roles: string[] }[] };
    expect(body.member.email).toBe(org.admin_email);
    expect(body.orgs).toHaveLength(1);
    expect(body.orgs[0]!.id).toBe(org.org_id);
    expect(body.orgs[0]!.roles).toContain("integrations:manage");
    expect(body.orgs[0]!.roles).toContain("integrations:view");
    expect(JSON.stringify(body)).not.toContain("password");

    const del = await app.request("/api/auth/session", { method: "DELETE", headers: { authorization: `Bearer ${token}` } });
    expect(del.status).toBe(204);
    const after = await app.request("/api/me", { headers: { authorization: `Bearer ${token}` } });
    expect(after.status).toBe(401);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
  });

  test("no token, a malformed token and an expired session are all 401", async () => {
    expect((await app.request("/api/me")).status).toBe(401);
    expect((await app.request("/api/me", { headers: { authorization: "Bearer svc_ses_nope" } })).status).toBe(401);
    expect((await app.request("/api/me", { headers: { authorization: "Basic Zm9vOmJhcg==" } })).status).toBe(401);
    const token = await signIn(app, org.admin_email, org.password);
    app.clock.advance(app.deps.config.sessionTtlHours * 3600_000 + 1000);
    try {
      expect((await app.request("/api/me", { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
    } finally {
      app.clock.advance(-(app.deps.config.sessionTtlHours * 3600_000 + 1000));
    }
  });

  test("a wrong password is 401 invalid_credentials, missing fields 400", async () => {
    const res = await app.request("/api/auth/session", { json: { email: org.admin_email, password: "wrong-password" }, ip: "10.9.0.2" });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_credentials");
    const missing = await app.request("/api/auth/session", { json: { email: org.admin_email } });
    expect(missing.status).toBe(400);
    const body = (await missing.json()) as { error: { code: string; details: { path: string }[] } };
    expect(body.error.code).toBe("validation_failed");
    expect(body.error.details.map((d) => d.path)).toContain("/password");
  });
});

describe("sign-in rate limits", () => {
  test(`per account: ${SIGNIN_LIMITS.perAccount.limit} failures are answered, the next attempt is 429 with Retry-After even with the right password`, async () => {
    const victim = await seedOrg(app);
    for (let i = 0; i < SIGNIN_LIMITS.perAccount.limit; i++) {
      const res = await app.request("/api/auth/session", { json: { email: victim.admin_email, password: `wrong-${i}` }, ip: `10.1.0.${i}` });
      expect(res.status).toBe(401);
    }
    const blocked = await app.request("/api/auth/session", { json: { email: victim.admin_email, password: victim.password }, ip: "10.1.1.1" });
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(SIGNIN_LIMITS.perAccount.windowSeconds);
    expect(((await blocked.json()) as { error: { code: string } }).error.code).toBe("rate_limited");
    // The form says so too.
    const form = await app.request("/signin", { form: { email: victim.admin_email, password: victim.password }, ip: "10.1.1.2" });
    expect(form.status).toBe(429);
    expect(form.headers.get("retry-after")).not.toBeNull();
    // After the window, the right password works again.
    app.clock.advance(SIGNIN_LIMITS.perAccount.windowSeconds * 1000);
    try {
      const ok = await app.request("/api/auth/session", { json: { email: victim.admin_email, password: victim.password }, ip: "10.1.1.3" });
      expect(ok.status).toBe(200);
    } finally {
      app.clock.advance(-SIGNIN_LIMITS.perAccount.windowSeconds * 1000);
    }
  });

  test("successful sign-ins do not use up the allowance", async () => {
    const member = await seedOrg(app);
    for (let i = 0; i < SIGNIN_LIMITS.perAccount.limit + 2; i++) {
      const res = await app.request("/api/auth/session", { json: { email: member.admin_email, password: member.password }, ip: "10.2.0.1" });
      expect(res.status).toBe(200);
    }
  });

  test(`per IP: ${SIGNIN_LIMITS.perIp.limit} failures across accounts, then 429`, async () => {
    const ip = "10.3.0.1";
    for (let i = 0; i < SIGNIN_LIMITS.perIp.limit; i++) {
      const res = await app.request("/api/auth/session", { json: { email: `someone${i}@example.com`, password: "guess-guess" }, ip });
      expect(res.status).toBe(401);
    }
    const blocked = await app.request("/api/auth/session", { json: { email: org.admin_email, password: org.password }, ip });
    expect(blocked.status).toBe(429);
    const other = await app.request("/api/auth/session", { json: { email: org.admin_email, password: org.password }, ip: "10.3.0.2" });
    expect(other.status).toBe(200);
  });

  test("parallel guesses cannot slip past the account limit", async () => {
    const victim = await seedOrg(app);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        app.request("/api/auth/session", { json: { email: victim.admin_email, password: `p-${i}-wrong` }, ip: `10.4.0.${i}` }),
      ),
    );
    expect(results.filter((r) => r.status === 401)).toHaveLength(SIGNIN_LIMITS.perAccount.limit);
    expect(results.filter((r) => r.status === 429)).toHaveLength(12 - SIGNIN_LIMITS.perAccount.limit);
  });
});
