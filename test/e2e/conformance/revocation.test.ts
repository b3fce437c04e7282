// Token revocation (RFC 7009; docs/interface.md 4.4 "idempotent; always 200"; docs/interface.md A.16).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { Browserless, verifyAccessToken } from "../../support/oauth.ts";
import {
  basic,
  expectOAuthError,
  obtainCode,
  obtainTokens,
  redeem,
  refresh,
  registerClient,
  REVOKE_PATH,
  revoke,
  signedInMember,
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

const tokens = () => obtainTokens(app, browser, client, { extra: { prompt: "consent" } });

/** RFC 7009 section 2.2: 200, no body to speak of, never cached. */
async function expectRevoked200(res: Response) {
  expect(res.status).toBe(200);
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(await res.text()).toBe("");
}

describe("always 200 (RFC 7009 section 2.2, docs/interface.md 4.4)", () => {
  test("RFC 7009 section 2.2: an unknown token is answered 200", async () => {
    for (const token of [
      "svc_at_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      "svc_rt_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
      "not-even-ours",
      "svc_ac_x",
    ]) {
      await expectRevoked200(await revoke(app, client, token));
    }
  });

  test("RFC 7009 section 2.2 / docs/interface.md A.16: revocation is idempotent", async () => {
    const t = await tokens();
    for (let i = 0; i < 3; i++) await expectRevoked200(await revoke(app, client, t.access_token));
    for (let i = 0; i < 3; i++) await expectRevoked200(await revoke(app, client, t.refresh_token));
  });
});

describe("what revocation does (RFC 7009 section 2.1)", () => {
  test("RFC 7009 section 2.1: a revoked access token no longer verifies", async () => {
    const t = await tokens();
    expect(await verifyAccessToken(app.deps, t.access_token)).not.toBeNull();
    await expectRevoked200(await revoke(app, client, t.access_token, { token_type_hint: "access_token" }));
    expect(await verifyAccessToken(app.deps, t.access_token)).toBeNull();
  });

  test("RFC 7009 section 2.1 / docs/interface.md A.16: revoking a refresh token ends the grant — the access token from the same grant fails too", async () => {
    const t = await tokens();
    const rotated = (await (await refresh(app, client, t.refresh_token)).json()) as Tokens;
    await expectRevoked200(await revoke(app, client, t.refresh_token, { token_type_hint: "refresh_token" }));
    expect(await verifyAccessToken(app.deps, t.access_token)).toBeNull();
    expect(await verifyAccessToken(app.deps, rotated.access_token)).toBeNull();
    await expectOAuthError(await refresh(app, client, t.refresh_token), 400, "invalid_grant", /revoked/);
    await expectOAuthError(await refresh(app, client, rotated.refresh_token), 400, "invalid_grant", /revoked/);
  });

  test("RFC 7009 section 2.1: a wrong token_type_hint does not stop the revocation", async () => {
    const t = await tokens();
    await expectRevoked200(await revoke(app, client, t.access_token, { token_type_hint: "refresh_token" }));
    expect(await verifyAccessToken(app.deps, t.access_token)).toBeNull();
    const u = await tokens();
    await expectRevoked200(await revoke(app, client, u.refresh_token, { token_type_hint: "access_token" }));
    await expectOAuthError(await refresh(app, client, u.refresh_token), 400, "invalid_grant", /revoked/);
  });

  test("docs/interface.md A.16: another client's token → 200 and the token still works", async () => {
    const t = await tokens();
    await expectRevoked200(await revoke(app, otherClient, t.access_token));
    await expectRevoked200(await revoke(app, otherClient, t.refresh_token));
    expect(await verifyAccessToken(app.deps, t.access_token)).not.toBeNull();
    expect((await refresh(app, client, t.refresh_token)).status).toBe(200);
  });

  test("RFC 7009 section 2.1: revoking one grant leaves the client's other grants alone", async () => {
    const a = await tokens();
    const b = await tokens();
    await expectRevoked200(await revoke(app, client, a.refresh_token));
    expect(await verifyAccessToken(app.deps, b.access_token)).not.toBeNull();
    expect((await refresh(app, client, b.refresh_token)).status).toBe(200);
  });
});

describe("invalid revocation requests (RFC 7009 section 2.1, section 2.2.1)", () => {
  test("RFC 7009 section 2.1: a missing token parameter is invalid_request", async () => {
    const res = await app.request(REVOKE_PATH, { form: { client_id: client, token_type_hint: "access_token" } });
    await expectOAuthError(res, 400, "invalid_request", /token is required/);
  });

  test("RFC 7009 section 2.1: a repeated parameter is invalid_request", async () => {
    const body = new URLSearchParams({ client_id: client, token: "svc_at_a" });
    body.append("token", "svc_at_b");
    const res = await app.request(REVOKE_PATH, { method: "POST", body: body.toString(), headers: { "content-type": "application/x-www-form-urlencoded" } });
    await expectOAuthError(res, 400, "invalid_request", /token is repeated/);
  });

  test("RFC 7009 section 2.1: a JSON body is invalid_request", async () => {
    const res = await app.request(REVOKE_PATH, { json: { client_id: client, token: "svc_at_a" } });
    await expectOAuthError(res, 400, "invalid_request", /x-www-form-urlencoded/);
  });

  test("RFC 7009 section 2.2.1: an unknown client is 401 invalid_client", async () => {
    await expectOAuthError(await revoke(app, "mcp_unknown_client", "svc_at_a"), 401, "invalid_client", /Unknown client_id/);
  });

  test("RFC 7009 section 2.1: a confidential client must authenticate; with its Basic secret it revokes", async () => {
    const confidential = await registerClient(app, { token_endpoint_auth_method: "client_secret_basic" });
    const c = await obtainCode(browser, confidential.client_id);
    const auth = { authorization: basic(confidential.client_id, confidential.client_secret!) };
    const t = (await (await redeem(app, confidential.client_id, c, {}, auth)).json()) as Tokens;

    await expectOAuthError(await revoke(app, confidential.client_id, t.access_token), 401, "invalid_client", /confidential/);
    const wrong = await app.request(REVOKE_PATH, {
      form: { token: t.access_token },
      headers: { authorization: basic(confidential.client_id, "svc_cs_wrong") },
    });
    expect(wrong.headers.get("www-authenticate") ?? "").toMatch(/^Basic( |$)/);
    await expectOAuthError(wrong, 401, "invalid_client", /Client authentication failed/);
    expect(await verifyAccessToken(app.deps, t.access_token)).not.toBeNull();

    await expectRevoked200(await app.request(REVOKE_PATH, { form: { token: t.access_token }, headers: auth }));
    expect(await verifyAccessToken(app.deps, t.access_token)).toBeNull();
  });

  test("RFC 7009 section 2.2.1: an empty form-encoded body is an RFC 6749 section 5.2 error (no client → invalid_client, or invalid_request), with no-store", async () => {
    const res = await app.request(REVOKE_PATH, { method: "POST", body: "", headers: { "content-type": "application/x-www-form-urlencoded" } });
    const text = await res.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    // Either answer is conformant: the client is not identified (checked first here), or the token is missing.
    const outcomes: [number, unknown][] = [
      [401, "invalid_client"],
      [400, "invalid_request"],
    ];
    expect(outcomes).toContainEqual([res.status, body.error]);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(body.error_description as string).toMatch(/not identified|token is required/);
  });
});
