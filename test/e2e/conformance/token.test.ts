// The token endpoint, authorization_code grant (RFC 6749 section 3.2, section 4.1.3, section 5.1, section 5.2, section 2.3.1;
// RFC 7636 section 4.5–4.6; RFC 8707 section 2.2; docs/interface.md 2.4, 4.4; docs/interface.md A.11, A.13).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { Browserless, pkcePair, verifyAccessToken } from "../../support/oauth.ts";
import {
  ACCESS_TOKEN,
  basic,
  expectNoStoreJson,
  expectOAuthError,
  obtainCode,
  REDIRECT,
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
let member: Awaited<ReturnType<typeof signedInMember>>;
let browser: Browserless;
let client: string;
let otherClient: string;

beforeAll(async () => {
  app = await createTestApp();
  member = await signedInMember(app);
  browser = member.browser;
  ({ client_id: client } = await registerClient(app));
  ({ client_id: otherClient } = await registerClient(app));
}, SETUP_TIMEOUT);
afterAll(() => app.close());

/** A fresh code for `client` (consent is answered each time: prompt=consent). */
const code = (options: { scope?: string; clientId?: string } = {}) =>
  obtainCode(browser, options.clientId ?? client, { extra: { prompt: "consent", ...(options.scope ? { scope: options.scope } : {}) } });

describe("success (RFC 6749 section 5.1)", () => {
  test("RFC 6749 section 5.1 / docs/interface.md 2.4: token_type Bearer, expires_in 3600, scope, svc_at_/svc_rt_ + 43 base64url characters, no-store", async () => {
    const c = await code({ scope: "docs:read inbox:write" });
    const res = await redeem(app, client, c);
    const body = await expectNoStoreJson(res, 200);
    expect(res.headers.get("pragma")).toBe("no-cache");
    expect(Object.keys(body).sort()).toEqual(["access_token", "expires_in", "refresh_token", "scope", "token_type"]);
    expect(body.token_type).toBe("Bearer");
    expect(body.expires_in).toBe(3600);
    expect(body.scope).toBe("docs:read inbox:write");
    expect(body.access_token).toMatch(ACCESS_TOKEN);
    expect(body.refresh_token).toMatch(REFRESH_TOKEN);
    const context = await verifyAccessToken(app.deps, body.access_token as string);
    expect(context).not.toBeNull();
    expect(context!.clientId).toBe(client);
    expect(context!.orgId).toBe(member.org.org_id);
    expect(context!.scopes).toEqual(["docs:read", "inbox:write"]);
  });

  test("RFC 6749 section 3.3: without scope, the default read scopes are granted and named in the response", async () => {
    const body = (await (await redeem(app, client, await code())).json()) as Tokens;
    expect(body.scope).toBe("docs:read data:read inbox:read automation:read setup:read actions:read");
  });

  test("RFC 6749 section 3.2: unrecognised parameters are ignored", async () => {
    expect((await redeem(app, client, await code(), { foo: "bar", audience: "x" })).status).toBe(200);
  });

  test("RFC 8707 section 2.2: resource = <BASE_URL>/api/mcp is accepted", async () => {
    expect((await redeem(app, client, await code(), { resource: resourceOf(app) })).status).toBe(200);
  });
});

describe("the code (RFC 6749 section 4.1.2, section 4.1.3, section 10.5; docs/interface.md A.13)", () => {
  test("RFC 6749 section 4.1.2: a reused code is invalid_grant AND the tokens issued from the first exchange stop working", async () => {
    const c = await code();
    const first = (await (await redeem(app, client, c)).json()) as Tokens;
    expect(await verifyAccessToken(app.deps, first.access_token)).not.toBeNull();
    await expectOAuthError(await redeem(app, client, c), 400, "invalid_grant", /already been used/);
    expect(await verifyAccessToken(app.deps, first.access_token)).toBeNull();
    await expectOAuthError(await refresh(app, client, first.refresh_token), 400, "invalid_grant", /revoked/);
  });

  test("docs/interface.md A.13: a code redeemed twice in parallel gives one set of tokens, and those are revoked", async () => {
    const c = await code();
    const results = await Promise.all([redeem(app, client, c), redeem(app, client, c)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 400]);
    const winner = (await results.find((r) => r.status === 200)!.json()) as Tokens;
    const loser = results.find((r) => r.status === 400)!;
    await expectOAuthError(loser, 400, "invalid_grant", /already been used/);
    expect(await verifyAccessToken(app.deps, winner.access_token)).toBeNull();
  });

  test("docs/interface.md 2.4 / RFC 6749 section 4.1.2: a code still works at 5 min − 1 s", async () => {
    const c = await code();
    app.clock.advance(5 * 60_000 - 1000);
    expect((await redeem(app, client, c)).status).toBe(200);
  });

  test("docs/interface.md 2.4 / RFC 6749 section 4.1.2: a code is invalid_grant at 5 min + 1 s", async () => {
    const c = await code();
    app.clock.advance(5 * 60_000 + 1000);
    await expectOAuthError(await redeem(app, client, c), 400, "invalid_grant", /expired/);
  });

  test("RFC 6749 section 5.2: an unknown code is invalid_grant", async () => {
    const { verifier } = pkcePair();
    await expectOAuthError(
      await redeem(app, client, { code: "svc_ac_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", verifier, redirectUri: REDIRECT }),
      400,
      "invalid_grant",
      /code is invalid/,
    );
  });

  test("RFC 6749 section 4.1.3: a missing code is invalid_request", async () => {
    const res = await app.request(TOKEN_PATH, {
      form: { grant_type: "authorization_code", client_id: client, code_verifier: pkcePair().verifier, redirect_uri: REDIRECT },
    });
    await expectOAuthError(res, 400, "invalid_request", /code is required/);
  });
});

describe("PKCE (RFC 7636)", () => {
  test("RFC 7636 section 4.6: a wrong code_verifier is invalid_grant", async () => {
    const c = await code();
    await expectOAuthError(await redeem(app, client, { ...c, verifier: pkcePair().verifier }), 400, "invalid_grant", /code_verifier does not match/);
  });

  test("RFC 7636 section 4.1: a code_verifier of 42 characters is invalid_request", async () => {
    const c = await code();
    await expectOAuthError(await redeem(app, client, { ...c, verifier: c.verifier.slice(0, 42) }), 400, "invalid_request", /43 to 128 characters/);
  });

  test("RFC 7636 section 4.1: a code_verifier of 129 characters, or with characters outside the alphabet, is invalid_request", async () => {
    const c = await code();
    await expectOAuthError(await redeem(app, client, { ...c, verifier: "a".repeat(129) }), 400, "invalid_request", /43 to 128 characters/);
    await expectOAuthError(await redeem(app, client, { ...c, verifier: `${"a".repeat(42)}+` }), 400, "invalid_request", /43 to 128 characters/);
  });

  test("RFC 7636 section 4.5: a missing code_verifier is invalid_request", async () => {
    const c = await code();
    const res = await app.request(TOKEN_PATH, { form: { grant_type: "authorization_code", client_id: client, code: c.code, redirect_uri: REDIRECT } });
    await expectOAuthError(res, 400, "invalid_request", /code_verifier is required/);
  });
});

describe("binding to the authorization request (RFC 6749 section 4.1.3, RFC 8707 section 2.2, docs/interface.md A.11)", () => {
  test("RFC 6749 section 4.1.3: a redirect_uri mismatch is invalid_grant and does NOT consume the code (a correct retry succeeds)", async () => {
    const c = await code();
    await expectOAuthError(
      await redeem(app, client, { ...c, redirectUri: "http://127.0.0.1:10/callback" }),
      400,
      "invalid_grant",
      /redirect_uri does not match/,
    );
    await expectOAuthError(await redeem(app, client, { ...c, redirectUri: "http://127.0.0.1:9/other" }), 400, "invalid_grant", /redirect_uri does not match/);
    const retry = await redeem(app, client, c);
    expect(retry.status).toBe(200);
    expect(await verifyAccessToken(app.deps, ((await retry.json()) as Tokens).access_token)).not.toBeNull();
  });

  test("RFC 6749 section 4.1.3: redirect_uri is required when the authorization request included it", async () => {
    const c = await code();
    const res = await app.request(TOKEN_PATH, { form: { grant_type: "authorization_code", client_id: client, code: c.code, code_verifier: c.verifier } });
    await expectOAuthError(res, 400, "invalid_grant", /redirect_uri does not match/);
  });

  test("RFC 6749 section 4.1.3: a code presented by another client is invalid_grant", async () => {
    const c = await code();
    await expectOAuthError(await redeem(app, otherClient, c), 400, "invalid_grant", /issued to another client/);
  });

  test("RFC 8707 section 2.2: a resource other than the tool server is invalid_target and does NOT consume the code", async () => {
    const c = await code();
    await expectOAuthError(
      await redeem(app, client, c, { resource: "https://evil.example/api/mcp" }),
      400,
      "invalid_target",
      /resource must be http:\/\/localhost:3000\/api\/mcp/,
    );
    await expectOAuthError(await redeem(app, client, c, { resource: `${resourceOf(app)}/` }), 400, "invalid_target", /resource must be/);
    expect((await redeem(app, client, c)).status).toBe(200);
  });
});

describe("the request (RFC 6749 section 3.2, section 5.2)", () => {
  test("RFC 6749 section 5.2: an unknown grant_type is unsupported_grant_type", async () => {
    for (const grant_type of ["client_credentials", "password", "implicit", "urn:ietf:params:oauth:grant-type:device_code"]) {
      const res = await app.request(TOKEN_PATH, { form: { grant_type, client_id: client } });
      await expectOAuthError(res, 400, "unsupported_grant_type", /grant_type must be authorization_code or refresh_token/);
    }
  });

  test("RFC 6749 section 5.2: a missing grant_type is invalid_request", async () => {
    const c = await code();
    const res = await app.request(TOKEN_PATH, { form: { client_id: client, code: c.code, code_verifier: c.verifier, redirect_uri: REDIRECT } });
    await expectOAuthError(res, 400, "invalid_request", /grant_type is required/);
  });

  test("RFC 6749 section 3.2: a repeated parameter is invalid_request", async () => {
    const c = await code();
    const body = new URLSearchParams({ grant_type: "authorization_code", client_id: client, code: c.code, code_verifier: c.verifier, redirect_uri: REDIRECT });
    body.append("code", c.code);
    const res = await app.request(TOKEN_PATH, { method: "POST", body: body.toString(), headers: { "content-type": "application/x-www-form-urlencoded" } });
    await expectOAuthError(res, 400, "invalid_request", /code is repeated/);
  });

  test("RFC 6749 section 4.1.3: a JSON body is invalid_request (the body must be form-encoded)", async () => {
    const c = await code();
    const res = await app.request(TOKEN_PATH, {
      json: { grant_type: "authorization_code", client_id: client, code: c.code, code_verifier: c.verifier, redirect_uri: REDIRECT },
    });
    await expectOAuthError(res, 400, "invalid_request", /application\/x-www-form-urlencoded/);
  });

  test("RFC 6749 section 5.2: a body that is not valid JSON is still an OAuth error (invalid_request, no-store)", async () => {
    const res = await app.request(TOKEN_PATH, { method: "POST", body: '{"grant_type": "authorization_code"', headers: { "content-type": "application/json" } });
    await expectOAuthError(res, 400, "invalid_request", /JSON|x-www-form-urlencoded/);
  });

  test("RFC 6749 section 5.2: a multipart body is still an OAuth error (invalid_request, no-store)", async () => {
    const form = new FormData();
    form.set("grant_type", "authorization_code");
    const res = await app.request(TOKEN_PATH, { method: "POST", body: form });
    await expectOAuthError(res, 400, "invalid_request", /x-www-form-urlencoded/);
  });

  test("RFC 6749 section 5.2: an empty form-encoded body is invalid_request (grant_type is missing), with no-store", async () => {
    const res = await app.request(TOKEN_PATH, { method: "POST", body: "", headers: { "content-type": "application/x-www-form-urlencoded" } });
    await expectOAuthError(res, 400, "invalid_request", /grant_type is required/);
  });
});

describe("client authentication (RFC 6749 section 2.3.1, section 3.2.1, section 5.2)", () => {
  let basicClient: { client_id: string; client_secret?: string };
  let postClient: { client_id: string; client_secret?: string };
  beforeAll(async () => {
    basicClient = await registerClient(app, { token_endpoint_auth_method: "client_secret_basic" });
    postClient = await registerClient(app, { token_endpoint_auth_method: "client_secret_post" });
    expect(basicClient.client_secret).toBeString();
    expect(postClient.client_secret).toBeString();
  }, SETUP_TIMEOUT);

  test("RFC 6749 section 2.3.1: client_secret_basic with the right secret exchanges the code", async () => {
    const c = await code({ clientId: basicClient.client_id });
    const res = await app.request(TOKEN_PATH, {
      form: { grant_type: "authorization_code", code: c.code, code_verifier: c.verifier, redirect_uri: REDIRECT },
      headers: { authorization: basic(basicClient.client_id, basicClient.client_secret!) },
    });
    const body = await expectNoStoreJson(res, 200);
    expect(body.access_token).toMatch(ACCESS_TOKEN);
    expect((await verifyAccessToken(app.deps, body.access_token as string))!.clientId).toBe(basicClient.client_id);
  });

  test("RFC 6749 section 5.2: a wrong Basic secret is 401 invalid_client with WWW-Authenticate: Basic, and the code survives", async () => {
    const c = await code({ clientId: basicClient.client_id });
    const form = { grant_type: "authorization_code", code: c.code, code_verifier: c.verifier, redirect_uri: REDIRECT };
    const res = await app.request(TOKEN_PATH, { form, headers: { authorization: basic(basicClient.client_id, "svc_cs_wrong") } });
    expect(res.headers.get("www-authenticate") ?? "").toMatch(/^Basic( |$)/);
    await expectOAuthError(res, 401, "invalid_client", /Client authentication failed/);
    const right = await app.request(TOKEN_PATH, { form, headers: { authorization: basic(basicClient.client_id, basicClient.client_secret!) } });
    expect(right.status).toBe(200);
  });

  test("RFC 6749 section 5.2: malformed Basic credentials are 401 invalid_client with WWW-Authenticate: Basic", async () => {
    const res = await app.request(TOKEN_PATH, {
      form: { grant_type: "authorization_code", code: "x", code_verifier: "y" },
      headers: { authorization: `Basic ${btoa("no-colon-here")}` },
    });
    expect(res.headers.get("www-authenticate") ?? "").toMatch(/^Basic( |$)/);
    await expectOAuthError(res, 401, "invalid_client", /malformed/);
  });

  test("RFC 6749 section 2.3.1: client_secret_post exchanges the code", async () => {
    const c = await code({ clientId: postClient.client_id });
    const res = await redeem(app, postClient.client_id, c, { client_secret: postClient.client_secret! });
    const body = await expectNoStoreJson(res, 200);
    expect(body.token_type).toBe("Bearer");
  });

  test("RFC 6749 section 2.3.1: a wrong client_secret_post secret is 401 invalid_client", async () => {
    const c = await code({ clientId: postClient.client_id });
    await expectOAuthError(
      await redeem(app, postClient.client_id, c, { client_secret: "svc_cs_wrong" }),
      401,
      "invalid_client",
      /Client authentication failed/,
    );
  });

  test("RFC 6749 section 3.2.1: a confidential client without its secret is 401 invalid_client", async () => {
    for (const confidential of [basicClient, postClient]) {
      const c = await code({ clientId: confidential.client_id });
      await expectOAuthError(await redeem(app, confidential.client_id, c), 401, "invalid_client", /confidential/);
    }
  });

  test("RFC 6749 section 2.3: Basic and client_secret together is invalid_request (one method only)", async () => {
    const c = await code({ clientId: basicClient.client_id });
    const res = await redeem(
      app,
      basicClient.client_id,
      c,
      { client_secret: basicClient.client_secret! },
      { authorization: basic(basicClient.client_id, basicClient.client_secret!) },
    );
    await expectOAuthError(res, 400, "invalid_request", /one client authentication method/);
  });

  test("RFC 6749 section 5.2: an unknown client_id is 401 invalid_client; no client_id at all is 401 invalid_client", async () => {
    const c = await code();
    await expectOAuthError(await redeem(app, "mcp_unknown_client", c), 401, "invalid_client", /Unknown client_id/);
    const res = await app.request(TOKEN_PATH, { form: { grant_type: "authorization_code", code: c.code, code_verifier: c.verifier, redirect_uri: REDIRECT } });
    await expectOAuthError(res, 401, "invalid_client", /not identified/);
  });

  test("RFC 6749 section 2.3.1: a public client presenting a secret it was never given is 401 invalid_client", async () => {
    const c = await code();
    await expectOAuthError(await redeem(app, client, c, { client_secret: "svc_cs_made_up" }), 401, "invalid_client", /Client authentication failed/);
  });
});
