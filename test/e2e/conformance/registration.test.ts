// Dynamic client registration (RFC 7591; docs/interface.md 4.4, 8.1; docs/interface.md A.8, A.9, A.14).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../support/app.ts";
import {
  basic,
  expectNoStoreJson,
  expectOAuthError,
  freshIp,
  obtainCode,
  redeem,
  REGISTER_PATH,
  signedInMember,
  TOKEN_PATH,
  SETUP_TIMEOUT,
} from "./helpers.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, SETUP_TIMEOUT);
afterAll(() => app.close());

function register(body: unknown, ip = freshIp()) {
  return app.request(REGISTER_PATH, { json: body, ip });
}

let n = 0;
const distinct = (extra: Record<string, unknown> = {}) => ({
  client_name: `Registration test ${++n}`,
  redirect_uris: ["http://127.0.0.1:7777/cb"],
  token_endpoint_auth_method: "none",
  ...extra,
});

describe("successful registration", () => {
  test("RFC 7591 section 3.2.1 / docs/interface.md A.9: a public client gets 201 echoing redirect_uris, token_endpoint_auth_method, client_id_issued_at — and no secret", async () => {
    const res = await register({ client_name: "Public app", redirect_uris: ["http://127.0.0.1:3334/callback"], token_endpoint_auth_method: "none" });
    const body = await expectNoStoreJson(res, 201);
    expect(body.client_id).toMatch(/^\S{16,}$/);
    expect(body.redirect_uris).toEqual(["http://127.0.0.1:3334/callback"]);
    expect(body.token_endpoint_auth_method).toBe("none");
    expect(body.client_id_issued_at).toBe(Math.floor(app.clock.now.getTime() / 1000));
    expect(body.client_name).toBe("Public app");
    expect("client_secret" in body).toBe(false);
    expect("client_secret_expires_at" in body).toBe(false);
  });

  test("RFC 7591 section 2: token_endpoint_auth_method defaults to client_secret_basic, which is issued a secret (with client_secret_expires_at)", async () => {
    const res = await register({ client_name: "Default method", redirect_uris: ["https://app.example.com/oauth/callback"] });
    const body = await expectNoStoreJson(res, 201);
    expect(body.token_endpoint_auth_method).toBe("client_secret_basic");
    expect(body.client_secret).toMatch(/^svc_cs_[A-Za-z0-9_-]{43}$/);
    expect(body.client_secret_expires_at).toBe(0);
    expect(body.redirect_uris).toEqual(["https://app.example.com/oauth/callback"]);
  });

  test("RFC 7591 section 3.2.1: a client_secret_post client is issued a secret that authenticates at the token endpoint", async () => {
    const res = await register({
      client_name: "Post client",
      redirect_uris: ["http://127.0.0.1:9/callback"],
      token_endpoint_auth_method: "client_secret_post",
    });
    const body = await expectNoStoreJson(res, 201);
    expect(body.token_endpoint_auth_method).toBe("client_secret_post");
    expect(body.client_secret).toMatch(/^svc_cs_[A-Za-z0-9_-]{43}$/);
    // The secret is real: a refresh-token request with it gets past client authentication.
    const ok = await app.request(TOKEN_PATH, {
      form: { grant_type: "refresh_token", client_id: body.client_id as string, client_secret: body.client_secret as string, refresh_token: "svc_rt_unknown" },
    });
    await expectOAuthError(ok, 400, "invalid_grant", /refresh token is invalid/);
    const viaBasic = await app.request(TOKEN_PATH, {
      form: { grant_type: "refresh_token", refresh_token: "svc_rt_unknown" },
      headers: { authorization: basic(body.client_id as string, body.client_secret as string) },
    });
    await expectOAuthError(viaBasic, 400, "invalid_grant", /refresh token is invalid/);
  });

  test("RFC 7591 section 2 / docs/interface.md A.9: several redirect URIs are registered and echoed in order", async () => {
    const uris = [
      "https://app.example.com/cb",
      "http://127.0.0.1:8080/cb",
      "http://localhost:5173/oauth",
      "http://[::1]:4000/cb",
      "com.example.app:/oauth2redirect",
    ];
    const body = await expectNoStoreJson(await register({ client_name: "Many redirects", redirect_uris: uris, token_endpoint_auth_method: "none" }), 201);
    expect(body.redirect_uris).toEqual(uris);
  });

  test("docs/interface.md A.8: explicit nulls in the request are treated as absent and never echoed", async () => {
    const res = await register({
      client_name: "Nulls",
      redirect_uris: ["http://127.0.0.1:9/cb"],
      token_endpoint_auth_method: "none",
      client_uri: null,
      logo_uri: null,
      scope: null,
    });
    const body = await expectNoStoreJson(res, 201);
    expect("client_uri" in body).toBe(false);
    expect("scope" in body).toBe(false);
  });

  test(
    "RFC 7591 section 3.2.1: a registered client can run the authorization-code flow",
    async () => {
      const res = await register({ client_name: "Flow client", redirect_uris: ["http://127.0.0.1:9/callback"], token_endpoint_auth_method: "none" });
      const { client_id } = (await res.json()) as { client_id: string };
      const { browser } = await signedInMember(app);
      const code = await obtainCode(browser, client_id);
      expect((await redeem(app, client_id, code)).status).toBe(200);
    },
    SETUP_TIMEOUT,
  );
});

describe("rejected registrations", () => {
  const badRedirects: [string, unknown, RegExp][] = [
    ["http on a non-loopback host (RFC 8252 section 8.3, RFC 6749 section 3.1.2.1)", { redirect_uris: ["http://app.example.com/cb"] }, /must use https/],
    ["a fragment (RFC 6749 section 3.1.2)", { redirect_uris: ["https://app.example.com/cb#frag"] }, /fragment/],
    ["a javascript: URI", { redirect_uris: ["javascript:alert(1)"] }, /javascript:/],
    ["a relative URI (RFC 6749 section 3.1.2)", { redirect_uris: ["/callback"] }, /absolute/],
    ["missing redirect_uris (RFC 7591 section 2)", {}, /redirect_uris/],
    ["an empty redirect_uris array", { redirect_uris: [] }, /redirect_uris/],
    ["one bad URI among good ones", { redirect_uris: ["https://app.example.com/cb", "data:text/html,hi"] }, /data:/],
  ];
  for (const [what, metadata, description] of badRedirects) {
    test(`RFC 7591 section 3.2.2: ${what} is invalid_redirect_uri`, async () => {
      await expectOAuthError(
        await register({ client_name: "Bad redirect", token_endpoint_auth_method: "none", ...(metadata as object) }),
        400,
        "invalid_redirect_uri",
        description,
      );
    });
  }

  const badMetadata: [string, Record<string, unknown>, RegExp][] = [
    ["an unknown token_endpoint_auth_method", { token_endpoint_auth_method: "private_key_jwt" }, /token_endpoint_auth_method/],
    ["grant type client_credentials", { grant_types: ["authorization_code", "client_credentials"] }, /grant_types/],
    ["an unknown scope", { scope: "docs:read admin:everything" }, /admin:everything/],
    ["response type token", { response_types: ["token"] }, /response_types/],
  ];
  for (const [what, metadata, description] of badMetadata) {
    test(`RFC 7591 section 3.2.2: ${what} is invalid_client_metadata`, async () => {
      await expectOAuthError(
        await register({ client_name: "Bad metadata", redirect_uris: ["https://app.example.com/cb"], ...metadata }),
        400,
        "invalid_client_metadata",
        description,
      );
    });
  }

  test("RFC 7591 section 3.2.2: a body that is not a JSON object is invalid_client_metadata", async () => {
    await expectOAuthError(await register(["https://app.example.com/cb"]), 400, "invalid_client_metadata", /JSON object/);
  });

  test("RFC 7591 section 3.2.2: a body that is not valid JSON is an RFC 7591 error (invalid_client_metadata, no-store), not the dashboard error shape", async () => {
    const res = await app.request(REGISTER_PATH, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": freshIp() },
      body: '{"redirect_uris": ["https://app.example.com/cb"',
    });
    await expectOAuthError(res, 400, "invalid_client_metadata", /JSON/);
  });
});

describe("rate limit: 10 registrations per IP per hour (docs/interface.md 4.4, 8.1)", () => {
  test("docs/interface.md 8.1: the 10th registration from one IP passes, the 11th is 429 with Retry-After; another IP still passes", async () => {
    const ip = "198.18.0.1";
    for (let i = 1; i <= 10; i++) expect((await register(distinct(), ip)).status).toBe(201);
    const blocked = await register(distinct(), ip);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("cache-control")).toBe("no-store");
    const retryAfter = Number(blocked.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    const body = (await blocked.json()) as Record<string, unknown>;
    expect(typeof body.error).toBe("string");
    expect(body.error_description as string).toMatch(/Too many client registrations/);
    // A confidential client counts the same way.
    expect((await register({ ...distinct(), token_endpoint_auth_method: "client_secret_basic" }, ip)).status).toBe(429);
    expect((await register(distinct(), "198.18.0.2")).status).toBe(201);
  });

  test("docs/interface.md A.14: an identical public-client registration from the same IP returns the same client_id and does not count", async () => {
    const ip = "198.18.1.1";
    const same = distinct();
    const first = await expectNoStoreJson(await register(same, ip), 201);
    for (let i = 0; i < 3; i++) {
      const again = await expectNoStoreJson(await register(same, ip), 201);
      expect(again.client_id).toBe(first.client_id);
    }
    // 1 counted so far: 9 more distinct ones fit, the next does not.
    for (let i = 0; i < 9; i++) expect((await register(distinct(), ip)).status).toBe(201);
    expect((await register(distinct(), ip)).status).toBe(429);
    // The identical one is still answered (with the existing client) at the limit.
    const atLimit = await expectNoStoreJson(await register(same, ip), 201);
    expect(atLimit.client_id).toBe(first.client_id);
    // From another source it is another client.
    const elsewhere = await expectNoStoreJson(await register(same, "198.18.1.2"), 201);
    expect(elsewhere.client_id).not.toBe(first.client_id);
  });

  test("docs/interface.md A.14: identical confidential registrations are separate clients (a secret is never re-sent)", async () => {
    const ip = "198.18.2.1";
    const same = { ...distinct(), token_endpoint_auth_method: "client_secret_post" };
    const a = await expectNoStoreJson(await register(same, ip), 201);
    const b = await expectNoStoreJson(await register(same, ip), 201);
    expect(b.client_id).not.toBe(a.client_id);
    expect(b.client_secret).not.toBe(a.client_secret);
  });

  test("docs/interface.md 8.1: an hour after being refused, the IP may register again", async () => {
    const ip = "198.18.3.1";
    for (let i = 0; i < 10; i++) expect((await register(distinct(), ip)).status).toBe(201);
    expect((await register(distinct(), ip)).status).toBe(429);
    app.clock.advance(3600_000);
    expect((await register(distinct(), ip)).status).toBe(201);
  });

  test("RFC 9110 section 10.2.3: Retry-After is exact — one second earlier is still refused, at Retry-After it passes", async () => {
    const ip = "198.18.4.1";
    for (let i = 0; i < 10; i++) expect((await register(distinct(), ip)).status).toBe(201);
    const blocked = await register(distinct(), ip);
    expect(blocked.status).toBe(429);
    const retryAfter = Number(blocked.headers.get("retry-after"));
    app.clock.advance((retryAfter - 1) * 1000);
    expect((await register(distinct(), ip)).status).toBe(429);
    app.clock.advance(1000);
    expect((await register(distinct(), ip)).status).toBe(201);
  });
});
