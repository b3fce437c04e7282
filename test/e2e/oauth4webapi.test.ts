// A strict RFC client library, oauth4webapi, against our authorization server with none of its
// checks relaxed: protected-resource and authorization-server discovery (issuer compared), dynamic
// registration (a public client with "none", a confidential one with client_secret_basic),
// authorization code + PKCE S256 with the RFC 9207 `iss` check, refresh, revocation. oauth4webapi
// refuses plain http, so the app is served over HTTPS with a throwaway self-signed certificate
// that the client trusts as its only CA: the TLS connection is verified, not waved through.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as oauth from "oauth4webapi";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { Browserless, consentFields, verifyAccessToken } from "../support/oauth.ts";
import { freePort } from "../support/process.ts";
import { selfSignedCertificate } from "../support/tls.ts";

let app: TestApp;
let server: ReturnType<typeof Bun.serve>;
let org: Awaited<ReturnType<typeof seedOrg>>;
let issuer: string;
let resource: string;
let cert: string;
/** Every request oauth4webapi made, as "METHOD url", to show it really went over the network. */
const sent: string[] = [];

/** Bun's fetch, verifying the server against our throwaway certificate (and nothing else). */
const options = {
  [oauth.customFetch]: (url: string, init: oauth.CustomFetchOptions<string, unknown>) => {
    sent.push(`${init.method} ${url}`);
    return fetch(url, { ...(init as RequestInit), tls: { ca: cert } });
  },
};

beforeAll(async () => {
  const tls = selfSignedCertificate();
  cert = tls.cert;
  const port = freePort();
  issuer = `https://localhost:${port}`;
  resource = `${issuer}/api/mcp`;
  app = await createTestApp({ BASE_URL: issuer });
  server = Bun.serve({ port, hostname: "127.0.0.1", tls: { cert: tls.cert, key: tls.key }, fetch: (request, srv) => app.handle(request, srv) });
  org = await seedOrg(app);
}, 60_000);

afterAll(async () => {
  server?.stop(true);
  await app?.close();
});

let as: oauth.AuthorizationServer;
/** The metadata, discovered once (by the discovery test, or by whichever test runs first). */
async function discover(): Promise<oauth.AuthorizationServer> {
  as ??= await oauth.processDiscoveryResponse(new URL(issuer), await oauth.discoveryRequest(new URL(issuer), { ...options, algorithm: "oauth2" }));
  return as;
}

describe("oauth4webapi against the authorization server over HTTPS", () => {
  test("the TLS connection is verified: without our certificate as CA the request fails", async () => {
    const untrusted = await fetch(`${issuer}/.well-known/oauth-authorization-server`).then(
      () => null,
      (error: unknown) => error,
    );
    expect(String(untrusted)).toContain("self signed certificate");
    const res = await fetch(`${issuer}/.well-known/oauth-authorization-server`, { tls: { ca: cert } });
    expect(res.status).toBe(200);
  });

  test("discovery: protected-resource metadata names the issuer; the metadata passes the issuer check byte-for-byte", async () => {
    const rs = await oauth.processResourceDiscoveryResponse(new URL(resource), await oauth.resourceDiscoveryRequest(new URL(resource), options));
    expect(rs.resource).toBe(resource);
    expect(rs.authorization_servers).toEqual([issuer]);

    // RFC 8414 discovery of exactly the issuer the resource named.
    const discovered = new URL(rs.authorization_servers![0]!);
    const as = await oauth.processDiscoveryResponse(discovered, await oauth.discoveryRequest(discovered, { ...options, algorithm: "oauth2" }));
    expect(sent).toContain(`GET ${issuer}/.well-known/oauth-authorization-server`);
    expect(sent).toContain(`GET ${issuer}/.well-known/oauth-protected-resource/api/mcp`);
    // Byte-equal: no trailing slash, no case change, same as authorization_servers[0] and BASE_URL.
    expect(as.issuer).toBe(issuer);
    expect(as.issuer).toBe(rs.authorization_servers![0]!);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.code_challenge_methods_supported).toEqual(["S256"]);
    expect(as.token_endpoint_auth_methods_supported).toContain("none");
    expect(as.token_endpoint_auth_methods_supported).toContain("client_secret_basic");
    for (const endpoint of ["authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint"] as const)
      expect(as[endpoint]).toStartWith(`${issuer}/api/mcp/oauth/`);

    // The issuer check is real: the same document under another expected issuer is refused.
    const elsewhere = new URL(`${issuer}/tenant`);
    const refused = await oauth.processDiscoveryResponse(elsewhere, await oauth.discoveryRequest(discovered, { ...options, algorithm: "oauth2" })).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(oauth.OperationProcessingError);
    expect((refused as oauth.OperationProcessingError).code).toBe(oauth.JSON_ATTRIBUTE_COMPARISON);
  });

  const cases: {
    kind: string;
    metadata: { client_name: string; redirect_uris: string[]; token_endpoint_auth_method: "none" | "client_secret_basic" };
    scope: string;
  }[] = [
    {
      kind: "public client (token_endpoint_auth_method none)",
      metadata: { client_name: "oauth4webapi public", redirect_uris: ["http://127.0.0.1:8765/callback"], token_endpoint_auth_method: "none" },
      scope: "inbox:write docs:read",
    },
    {
      kind: "confidential client (client_secret_basic)",
      metadata: {
        client_name: "oauth4webapi confidential",
        redirect_uris: ["https://client.example.com/oauth/callback"],
        token_endpoint_auth_method: "client_secret_basic",
      },
      scope: "data:read data:write",
    },
  ];

  for (const c of cases) {
    test(`${c.kind}: register, authorize with PKCE S256, exchange the code, refresh, revoke`, async () => {
      const as = await discover();
      // Dynamic client registration (RFC 7591).
      const client = await oauth.processDynamicClientRegistrationResponse(
        await oauth.dynamicClientRegistrationRequest(
          as,
          { ...c.metadata, grant_types: ["authorization_code", "refresh_token"], response_types: ["code"] },
          options,
        ),
      );
      expect(client.client_id).toStartWith("mcp_");
      expect(client.token_endpoint_auth_method).toBe(c.metadata.token_endpoint_auth_method);
      expect(client.redirect_uris).toEqual(c.metadata.redirect_uris);
      let auth: oauth.ClientAuth;
      if (c.metadata.token_endpoint_auth_method === "none") {
        expect(client.client_secret).toBeUndefined();
        auth = oauth.None();
      } else {
        expect(client.client_secret).toMatch(/^svc_cs_/);
        expect(client.client_secret_expires_at).toBe(0);
        auth = oauth.ClientSecretBasic(client.client_secret as string);
      }
      const redirectUri = c.metadata.redirect_uris[0]!;

      // The authorization request, built on the discovered endpoint.
      const verifier = oauth.generateRandomCodeVerifier();
      const challenge = await oauth.calculatePKCECodeChallenge(verifier);
      const state = oauth.generateRandomState();
      const authorizationUrl = new URL(as.authorization_endpoint!);
      for (const [k, v] of Object.entries({
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: redirectUri,
        scope: c.scope,
        state,
        code_challenge: challenge,
        code_challenge_method: "S256",
        resource,
      }))
        authorizationUrl.searchParams.set(k, v);

      // The person: signs in, opens the authorization URL, clicks Allow.
      const ua = new Browserless(app);
      await ua.signIn(org.admin_email, org.password);
      const consent = await ua.get(authorizationUrl.href);
      expect(consent.status).toBe(200);
      const page = await consent.text();
      expect(page).toContain(`Allow ${c.metadata.client_name} to use svc-agents?`);
      const answer = await ua.post("/api/mcp/oauth/consent", { ...consentFields(page), decision: "allow" });
      expect(answer.status).toBe(303);
      const callback = new URL(answer.headers.get("location")!);
      expect(callback.origin + callback.pathname).toBe(redirectUri);

      // RFC 9207: the response's iss must be exactly the discovered issuer; state must match.
      const params = oauth.validateAuthResponse(as, client, callback, state);
      expect(params.get("iss")).toBe(issuer);
      expect(params.get("code")).toMatch(/^svc_ac_/);
      // Byte-for-byte: an iss that differs only by a trailing slash is refused.
      const tampered = new URL(callback);
      tampered.searchParams.set("iss", `${issuer}/`);
      expect(() => oauth.validateAuthResponse(as, client, tampered, state)).toThrow(/unexpected "iss"/);

      // Code exchange (RFC 6749 section 4.1.3 + RFC 7636).
      const tokens = await oauth.processAuthorizationCodeResponse(
        as,
        client,
        await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, { ...options, additionalParameters: { resource } }),
      );
      expect(tokens.token_type).toBe("bearer");
      expect(tokens.expires_in).toBe(3600);
      expect(tokens.access_token).toMatch(/^svc_at_[A-Za-z0-9_-]{43}$/);
      expect(tokens.refresh_token).toMatch(/^svc_rt_[A-Za-z0-9_-]{43}$/);
      expect(tokens.scope!.split(" ").sort()).toEqual(c.scope.split(" ").sort());

      // The access token works on the tool server.
      const initialize = await oauth.protectedResourceRequest(
        tokens.access_token,
        "POST",
        new URL(resource),
        new Headers({ "content-type": "application/json", accept: "application/json, text/event-stream" }),
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "oauth4webapi", version: "3.8.8" } },
        }),
        options,
      );
      expect(initialize.status).toBe(200);
      expect(((await initialize.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe("svc-agents");

      // Refresh (RFC 6749 section 6): a new pair, same scope.
      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, options),
      );
      expect(refreshed.token_type).toBe("bearer");
      expect(refreshed.expires_in).toBe(3600);
      expect(refreshed.scope!.split(" ").sort()).toEqual(c.scope.split(" ").sort());
      expect(refreshed.access_token).not.toBe(tokens.access_token);
      expect(refreshed.refresh_token).toMatch(/^svc_rt_/);
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

      // Revocation (RFC 7009) of the current refresh token ends the grant; it is idempotent.
      for (let i = 0; i < 2; i++)
        expect(
          await oauth.processRevocationResponse(
            await oauth.revocationRequest(as, client, auth, refreshed.refresh_token!, {
              ...options,
              additionalParameters: { token_type_hint: "refresh_token" },
            }),
          ),
        ).toBeUndefined();

      // A refresh with the revoked token: invalid_grant, as a ResponseBodyError.
      const failed = await oauth
        .refreshTokenGrantRequest(as, client, auth, refreshed.refresh_token!, options)
        .then((res) => oauth.processRefreshTokenResponse(as, client, res))
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(failed).toBeInstanceOf(oauth.ResponseBodyError);
      expect((failed as oauth.ResponseBodyError).error).toBe("invalid_grant");
      expect((failed as oauth.ResponseBodyError).status).toBe(400);

      // The grant's access token died with it: the tool server answers 401 with a Bearer
      // challenge oauth4webapi parses (every value quoted, docs/interface.md A.5).
      expect(await verifyAccessToken(app.deps, refreshed.access_token)).toBeNull();
      const rejected = await oauth
        .protectedResourceRequest(
          refreshed.access_token,
          "POST",
          new URL(resource),
          new Headers({ "content-type": "application/json", accept: "application/json, text/event-stream" }),
          JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
          options,
        )
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect(rejected).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
      const challenge401 = (rejected as oauth.WWWAuthenticateChallengeError).cause[0]!;
      expect((rejected as oauth.WWWAuthenticateChallengeError).status).toBe(401);
      expect(challenge401.scheme).toBe("bearer");
      expect(challenge401.parameters.error).toBe("invalid_token");
      expect(challenge401.parameters.resource_metadata).toBe(`${issuer}/.well-known/oauth-protected-resource/api/mcp`);
    });
  }

  test("client_secret_basic with a wrong secret: 401 invalid_client with a Basic challenge", async () => {
    const as = await discover();
    const client = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: "oauth4webapi wrong secret", redirect_uris: ["https://client.example.com/cb"], token_endpoint_auth_method: "client_secret_basic" },
        options,
      ),
    );
    const error = await oauth
      .refreshTokenGrantRequest(as, client, oauth.ClientSecretBasic(`${client.client_secret as string}x`), "svc_rt_unknown", options)
      .then((res) => oauth.processRefreshTokenResponse(as, client, res))
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect((error as oauth.WWWAuthenticateChallengeError).status).toBe(401);
    expect((error as oauth.WWWAuthenticateChallengeError).cause[0]!.scheme).toBe("basic");
    expect(await (error as oauth.WWWAuthenticateChallengeError).response.json()).toMatchObject({ error: "invalid_client" });
  });
});
