// Where the authorization server meets the tool server: the Bearer challenge leads a client to
// the discovery documents (RFC 9728 section 5.1, RFC 6750 section 3, docs/interface.md A.5), and tokens from the flow
// are accepted until expired or revoked, then answered 401 so clients refresh (docs/interface.md A.6).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { Browserless } from "../../support/oauth.ts";
import { obtainTokens, refresh, registerClient, revoke, signedInMember, type Tokens, SETUP_TIMEOUT } from "./helpers.ts";

let app: TestApp;
let browser: Browserless;
let client: string;

beforeAll(async () => {
  app = await createTestApp();
  ({ browser } = await signedInMember(app));
  ({ client_id: client } = await registerClient(app));
}, SETUP_TIMEOUT);
afterAll(() => app.close());

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "conformance", version: "1" } },
};
const callMcp = (token?: string) => app.request("/api/mcp", { json: initialize, headers: token ? { authorization: `Bearer ${token}` } : {} });

/** `Bearer k="v", …` → {k: v}; every value must be quoted (docs/interface.md A.5). */
function challengeParams(header: string | null): Record<string, string> {
  expect(header).toStartWith("Bearer ");
  const rest = header!.slice("Bearer ".length);
  const params: Record<string, string> = {};
  for (const part of rest.split(/,\s*(?=[a-z_]+=)/)) {
    const m = /^([a-z_]+)="([^"]*)"$/.exec(part.trim());
    expect({ part, quoted: m !== null }).toEqual({ part, quoted: true });
    params[m![1]!] = m![2]!;
  }
  return params;
}

test("RFC 9728 section 5.1 / docs/interface.md A.5: without a token, the challenge (no error) points at metadata that names this resource and its authorization server", async () => {
  const res = await callMcp();
  expect(res.status).toBe(401);
  const params = challengeParams(res.headers.get("www-authenticate"));
  expect(params.error).toBeUndefined();
  const prmUrl = new URL(params.resource_metadata!);
  expect(prmUrl.origin).toBe(app.deps.config.baseUrl);
  const prm = (await (await app.request(prmUrl.pathname)).json()) as { resource: string; authorization_servers: string[] };
  // RFC 9728 section 3.3: the resource in the metadata is the resource the client called.
  expect(prm.resource).toBe(`${app.deps.config.baseUrl}/api/mcp`);
  const asUrl = new URL(params.as_uri!);
  const asm = (await (await app.request(asUrl.pathname)).json()) as { issuer: string };
  expect(asm.issuer).toBe(prm.authorization_servers[0]!);
});

test("RFC 6750 section 2.1: an access token from the flow is accepted as a Bearer token", async () => {
  const t = await obtainTokens(app, browser, client);
  const res = await callMcp(t.access_token);
  expect(res.status).toBe(200);
  expect(((await res.json()) as { result: { protocolVersion: string } }).result.protocolVersion).toBe("2025-03-26");
});

test('RFC 6750 section 3.1 / docs/interface.md A.6: a revoked access token → 401 with error="invalid_token"; the refreshed one works', async () => {
  const t = await obtainTokens(app, browser, client, { extra: { prompt: "consent" } });
  expect((await revoke(app, client, t.access_token)).status).toBe(200);
  const res = await callMcp(t.access_token);
  expect(res.status).toBe(401);
  expect(challengeParams(res.headers.get("www-authenticate")).error).toBe("invalid_token");
  const next = (await (await refresh(app, client, t.refresh_token)).json()) as Tokens;
  expect((await callMcp(next.access_token)).status).toBe(200);
});

test("RFC 7009 section 2.2 / docs/interface.md A.6: a token in use, once revoked, is refused (allowing a propagation delay of one second)", async () => {
  const t = await obtainTokens(app, browser, client, { extra: { prompt: "consent" } });
  expect((await callMcp(t.access_token)).status).toBe(200);
  expect((await revoke(app, client, t.access_token)).status).toBe(200);
  // RFC 7009 section 2.2: "In practice, there could be a propagation delay" — but not an open-ended one.
  app.clock.advance(1000);
  const res = await callMcp(t.access_token);
  expect(res.status).toBe(401);
  expect(challengeParams(res.headers.get("www-authenticate")).error).toBe("invalid_token");
});

test('RFC 6750 section 3.1 / docs/interface.md A.6: an expired access token → 401 with error="invalid_token" (clients refresh only on 401)', async () => {
  const t = await obtainTokens(app, browser, client, { extra: { prompt: "consent" } });
  app.clock.advance(3600_000);
  const res = await callMcp(t.access_token);
  expect(res.status).toBe(401);
  expect(challengeParams(res.headers.get("www-authenticate")).error).toBe("invalid_token");
  const next = (await (await refresh(app, client, t.refresh_token)).json()) as Tokens;
  expect((await callMcp(next.access_token)).status).toBe(200);
});

test('RFC 6750 section 3.1: a refresh token is not an access token → 401 error="invalid_token"', async () => {
  const t = await obtainTokens(app, browser, client, { extra: { prompt: "consent" } });
  const res = await callMcp(t.refresh_token);
  expect(res.status).toBe(401);
  expect(challengeParams(res.headers.get("www-authenticate")).error).toBe("invalid_token");
});
