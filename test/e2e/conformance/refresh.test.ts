// The refresh_token grant (RFC 6749 section 6, section 10.4; OAuth 2.1 section 4.3.1 rotation; RFC 8707 section 2.2;
// docs/interface.md A.11, A.12 refresh under concurrency).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { REFRESH_REUSE_GRACE_MS } from "../../../src/oauth/rotation.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { Browserless, verifyAccessToken } from "../../support/oauth.ts";
import {
  ACCESS_TOKEN,
  basic,
  expectNoStoreJson,
  expectOAuthError,
  obtainCode,
  obtainTokens,
  redeem,
  refresh,
  REFRESH_TOKEN,
  registerClient,
  resourceOf,
  signedInMember,
  TOKEN_PATH,
  type Tokens,
  SETUP_TIMEOUT,
} from "./helpers.ts";

let app: TestApp;
let browser: Browserless;
let client: string;
let otherClient: string;

beforeAll(async () => {
  app = await createTestApp();
  ({ browser } = await signedInMember(app));
  ({ client_id: client } = await registerClient(app));
  ({ client_id: otherClient } = await registerClient(app));
}, SETUP_TIMEOUT);
afterAll(() => app.close());

const GRANTED = "docs:read inbox:read inbox:write";
const tokens = () => obtainTokens(app, browser, client, { extra: { scope: GRANTED, prompt: "consent" } });

async function refreshed(refreshToken: string, extra: Record<string, string> = {}, clientId = client): Promise<Tokens> {
  const body = await expectNoStoreJson(await refresh(app, clientId, refreshToken, extra), 200);
  return body as unknown as Tokens;
}

describe("rotation (RFC 6749 section 6, OAuth 2.1 section 4.3.1)", () => {
  test("RFC 6749 section 6 / OAuth 2.1 section 4.3.1: every refresh returns a new refresh token and a new working access token", async () => {
    const t0 = await tokens();
    const t1 = await refreshed(t0.refresh_token);
    const t2 = await refreshed(t1.refresh_token);
    for (const t of [t1, t2]) {
      expect(t.token_type).toBe("Bearer");
      expect(t.expires_in).toBe(3600);
      expect(t.scope).toBe(GRANTED);
      expect(t.access_token).toMatch(ACCESS_TOKEN);
      expect(t.refresh_token).toMatch(REFRESH_TOKEN);
      expect(await verifyAccessToken(app.deps, t.access_token)).not.toBeNull();
    }
    expect(new Set([t0.refresh_token, t1.refresh_token, t2.refresh_token]).size).toBe(3);
    expect(new Set([t0.access_token, t1.access_token, t2.access_token]).size).toBe(3);
  });

  test("docs/interface.md A.12: the previous refresh token keeps working until its successor is used", async () => {
    const t0 = await tokens();
    const t1 = await refreshed(t0.refresh_token);
    // A retry with the old token (the client never saw t1) is answered.
    const t1b = await refreshed(t0.refresh_token);
    expect(t1b.refresh_token).not.toBe(t1.refresh_token);
    expect(await verifyAccessToken(app.deps, t1.access_token)).not.toBeNull();
    expect(await verifyAccessToken(app.deps, t1b.access_token)).not.toBeNull();
  });

  test("docs/interface.md A.12: the same refresh token sent 3 times in parallel → all 200", async () => {
    const t0 = await tokens();
    const first = await Promise.all([1, 2, 3].map(() => refresh(app, client, t0.refresh_token)));
    expect(first.map((r) => r.status)).toEqual([200, 200, 200]);
    const bodies = (await Promise.all(first.map((r) => r.json()))) as Tokens[];
    expect(new Set(bodies.map((b) => b.refresh_token)).size).toBe(3);
    // And again with a rotated token (one that has a parent to supersede).
    const rotated = bodies[0]!.refresh_token;
    const second = await Promise.all([1, 2, 3].map(() => refresh(app, client, rotated)));
    expect(second.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const b of (await Promise.all(second.map((r) => r.json()))) as Tokens[]) expect(await verifyAccessToken(app.deps, b.access_token)).not.toBeNull();
  });

  test("docs/interface.md A.12 (with our documented 10 s grace): right after the successor was used, the old refresh token is still honoured for requests in flight", async () => {
    const t0 = await tokens();
    const t1 = await refreshed(t0.refresh_token);
    const t2 = await refreshed(t1.refresh_token); // the successor is used: t0 is now superseded
    app.clock.advance(REFRESH_REUSE_GRACE_MS - 1000);
    const late = await refreshed(t0.refresh_token); // a parallel request that was already in flight
    expect(await verifyAccessToken(app.deps, late.access_token)).not.toBeNull();
    expect(await verifyAccessToken(app.deps, t2.access_token)).not.toBeNull();
  });

  test("docs/interface.md A.12 / RFC 6749 section 10.4: reuse after the successor was used and the grace has passed revokes the whole grant", async () => {
    const t0 = await tokens();
    const t1 = await refreshed(t0.refresh_token);
    const t2 = await refreshed(t1.refresh_token);
    app.clock.advance(REFRESH_REUSE_GRACE_MS + 1000);
    await expectOAuthError(await refresh(app, client, t0.refresh_token), 400, "invalid_grant", /successor used/);
    // The newest tokens stop working too.
    expect(await verifyAccessToken(app.deps, t2.access_token)).toBeNull();
    expect(await verifyAccessToken(app.deps, t1.access_token)).toBeNull();
    await expectOAuthError(await refresh(app, client, t2.refresh_token), 400, "invalid_grant", /revoked/);
  });

  test("docs/interface.md A.12: a sibling from a parallel refresh stays usable after another sibling was used", async () => {
    const t0 = await tokens();
    const [a, b] = (await Promise.all([refresh(app, client, t0.refresh_token), refresh(app, client, t0.refresh_token)]).then((rs) =>
      Promise.all(rs.map((r) => r.json())),
    )) as Tokens[];
    await refreshed(a!.refresh_token);
    const fromB = await refreshed(b!.refresh_token);
    expect(await verifyAccessToken(app.deps, fromB.access_token)).not.toBeNull();
  });
});

describe("scope (RFC 6749 section 6)", () => {
  test("RFC 6749 section 6: a narrower scope is granted on refresh", async () => {
    const t0 = await tokens();
    const narrow = await refreshed(t0.refresh_token, { scope: "docs:read" });
    expect(narrow.scope).toBe("docs:read");
    expect((await verifyAccessToken(app.deps, narrow.access_token))!.scopes).toEqual(["docs:read"]);
  });

  test("RFC 6749 section 6: a wider scope is invalid_scope", async () => {
    const t0 = await tokens();
    await expectOAuthError(await refresh(app, client, t0.refresh_token, { scope: "docs:read data:write" }), 400, "invalid_scope", /exceeds what was granted/);
    await expectOAuthError(await refresh(app, client, t0.refresh_token, { scope: "docs:read made:up" }), 400, "invalid_scope", /exceeds what was granted/);
    // The refused request changed nothing.
    expect((await refreshed(t0.refresh_token)).scope).toBe(GRANTED);
  });

  test("RFC 6749 section 6: after a narrowed refresh, the new refresh token keeps the original scope (omitting scope means the scope originally granted)", async () => {
    const t0 = await tokens();
    const narrow = await refreshed(t0.refresh_token, { scope: "docs:read" });
    // "If a new refresh token is issued, the refresh token scope MUST be identical to that of the
    // refresh token included by the client in the request"; an omitted scope "is treated as equal
    // to the scope originally granted by the resource owner".
    const next = await refresh(app, client, narrow.refresh_token);
    const body = await expectNoStoreJson(next, 200);
    expect(body.scope).toBe(GRANTED);
  });
});

describe("invalid refresh requests (RFC 6749 section 5.2, section 6)", () => {
  test("RFC 6749 section 6 / section 10.4: a refresh token of another client is invalid_grant", async () => {
    const t0 = await tokens();
    await expectOAuthError(await refresh(app, otherClient, t0.refresh_token), 400, "invalid_grant", /issued to another client/);
  });

  test("RFC 6749 section 5.2: an unknown refresh token is invalid_grant; an access token is not a refresh token", async () => {
    const t0 = await tokens();
    await expectOAuthError(await refresh(app, client, "svc_rt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"), 400, "invalid_grant", /refresh token is invalid/);
    await expectOAuthError(await refresh(app, client, t0.access_token), 400, "invalid_grant", /refresh token is invalid/);
  });

  test("RFC 6749 section 6: a missing refresh_token is invalid_request", async () => {
    const res = await app.request(TOKEN_PATH, { form: { grant_type: "refresh_token", client_id: client } });
    await expectOAuthError(res, 400, "invalid_request", /refresh_token is required/);
  });

  test("RFC 8707 section 2.2: a refresh for another resource is invalid_target; the tool server's resource is accepted", async () => {
    const t0 = await tokens();
    await expectOAuthError(
      await refresh(app, client, t0.refresh_token, { resource: "https://evil.example/api/mcp" }),
      400,
      "invalid_target",
      /resource must be/,
    );
    await refreshed(t0.refresh_token, { resource: resourceOf(app) });
  });

  test("RFC 6749 section 6: a confidential client must authenticate to refresh", async () => {
    const confidential = await registerClient(app, { token_endpoint_auth_method: "client_secret_basic" });
    const c = await obtainCode(browser, confidential.client_id);
    const auth = { authorization: basic(confidential.client_id, confidential.client_secret!) };
    const t0 = (await (await redeem(app, confidential.client_id, c, {}, auth)).json()) as Tokens;
    expect(t0.refresh_token).toMatch(REFRESH_TOKEN);
    await expectOAuthError(await refresh(app, confidential.client_id, t0.refresh_token), 401, "invalid_client", /confidential/);
    const ok = await app.request(TOKEN_PATH, { form: { grant_type: "refresh_token", refresh_token: t0.refresh_token }, headers: auth });
    expect(ok.status).toBe(200);
  });
});

test(
  "RFC 6749 section 5.2: an expired refresh token is invalid_grant (OAUTH_REFRESH_TOKEN_TTL_DAYS=1)",
  async () => {
    const short = await createTestApp({ OAUTH_REFRESH_TOKEN_TTL_DAYS: "1" });
    try {
      const { browser: b } = await signedInMember(short);
      const { client_id } = await registerClient(short);
      const t0 = await obtainTokens(short, b, client_id);
      const t1 = await obtainTokens(short, b, client_id, { extra: { prompt: "consent" } });
      // One second before the end of its day the token still works…
      short.clock.advance(86_400_000 - 1000);
      expect((await refresh(short, client_id, t0.refresh_token)).status).toBe(200);
      // …at the end of the day it does not.
      short.clock.advance(1000);
      await expectOAuthError(await refresh(short, client_id, t1.refresh_token), 400, "invalid_grant", /expired/);
      short.clock.advance(1000);
      await expectOAuthError(await refresh(short, client_id, t0.refresh_token), 400, "invalid_grant", /expired/);
    } finally {
      await short.close();
    }
  },
  SETUP_TIMEOUT,
);
