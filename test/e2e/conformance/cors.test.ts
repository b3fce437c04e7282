// CORS on the OAuth endpoints (docs/interface.md A.15): browser-based MCP clients call discovery,
// registration, token and revocation from other origins.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { REGISTER_PATH, REVOKE_PATH, TOKEN_PATH, SETUP_TIMEOUT } from "./helpers.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, SETUP_TIMEOUT);
afterAll(() => app.close());

const lower = (v: string | null) => (v ?? "").split(",").map((s) => s.trim().toLowerCase());

for (const path of [TOKEN_PATH, REVOKE_PATH, REGISTER_PATH]) {
  test(`docs/interface.md A.15: a preflight to ${path} allows Authorization, Content-Type, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID`, async () => {
    const res = await app.request(path, {
      method: "OPTIONS",
      headers: { origin: "https://client.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
    expect(res.status).toBeLessThan(300);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(lower(res.headers.get("access-control-allow-methods"))).toContain("post");
    const allowed = lower(res.headers.get("access-control-allow-headers"));
    for (const h of ["authorization", "content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id"]) expect(allowed).toContain(h);
  });
}

test("docs/interface.md A.15: responses expose WWW-Authenticate, Retry-After and X-RateLimit-*", async () => {
  const res = await app.request("/.well-known/oauth-authorization-server", { headers: { origin: "https://client.example" } });
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  const exposed = lower(res.headers.get("access-control-expose-headers"));
  for (const h of ["www-authenticate", "retry-after", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) expect(exposed).toContain(h);
});

test("docs/interface.md A.15: a request without Origin is not rejected for lacking one", async () => {
  const res = await app.request(TOKEN_PATH, { form: { grant_type: "refresh_token", client_id: "mcp_nobody", refresh_token: "svc_rt_x" } });
  // Refused for what it is (unknown client), not for CORS.
  expect(res.status).toBe(401);
  expect(((await res.json()) as { error: string }).error).toBe("invalid_client");
});
