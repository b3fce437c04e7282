// A session cookie that cannot be percent-decoded is no session (README "Dashboard sign-in and
// API"): the request is signed out, never a 5xx. A sibling subdomain can plant a cookie for our
// name; an undecodable one must not hide the real session sent after it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { UNDECODABLE_COOKIES as UNDECODABLE } from "../support/hostile-values.ts";

let app: TestApp;
let token: string;

beforeAll(async () => {
  app = await createTestApp();
  const org = await seedOrg(app);
  token = await signIn(app, org.admin_email, org.password);
});
afterAll(() => app.close());

/** Every way a request reads the session, and what a signed-out request gets there. */
const SIGNED_OUT: [method: string, path: string, status: number, location?: string][] = [
  ["GET", "/", 303, "/signin"],
  ["GET", "/api/me", 401],
  ["GET", "/api/agents", 401],
  ["DELETE", "/api/auth/session", 401],
  ["POST", "/signout", 303, "/signin"],
  ["GET", "/dashboard", 303, "/signin?return_to=%2Fdashboard"],
  ["GET", "/dashboard/inbox", 303, "/signin?return_to=%2Fdashboard%2Finbox"],
];

describe("an undecodable svc_session cookie", () => {
  test("is signed out on every route that reads the session, never a 5xx", async () => {
    const got: unknown[] = [];
    for (const value of UNDECODABLE)
      for (const [method, path] of SIGNED_OUT) {
        const res = await app.request(path, { method, headers: { cookie: `svc_session=${value}` } });
        got.push([value, method, path, res.status, res.headers.get("location") ?? undefined]);
      }
    expect(got).toEqual(UNDECODABLE.flatMap((value) => SIGNED_OUT.map(([method, path, status, location]) => [value, method, path, status, location])));
  });

  test("the 401 says to sign in, in our error shape", async () => {
    const res = await app.request("/api/me", { headers: { cookie: "svc_session=%E0%A4%A" } });
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: "unauthorized", message: "Sign in to continue." });
  });

  test("a planted undecodable cookie does not hide the real session sent after it", async () => {
    const res = await app.request("/api/me", { headers: { cookie: `svc_session=%E0%A4%A; svc_session=${token}` } });
    expect(res.status).toBe(200);
    const page = await app.request("/dashboard", { headers: { cookie: `svc_org=%E0%A4%A; svc_session=%; svc_session=${token}` } });
    expect(page.status).toBe(200);
  });
});
