// Secrets at rest (docs/interface.md 2.4: "Only the SHA-256 hash is persisted"; RFC 6749 section 10.3–10.5
// confidentiality of tokens, codes and client credentials).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sha256Hex } from "../../../src/crypto/tokens.ts";
import { oauthAuthorizationRequests, oauthClients, oauthCodes, oauthTokens } from "../../../src/db/schema/index.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { pkcePair } from "../../support/oauth.ts";
import {
  AUTHORIZE_PATH,
  authorizeQuery,
  basic,
  CONSENT_PATH,
  consentFields,
  REDIRECT,
  registerClient,
  signedInMember,
  TOKEN_PATH,
  type Tokens,
  SETUP_TIMEOUT,
} from "./helpers.ts";

let app: TestApp;
/** Every secret the flow handed out, by name. */
const secrets: Record<string, string> = {};
let pendingCsrf: string;

beforeAll(async () => {
  app = await createTestApp();
  const { browser } = await signedInMember(app);
  const client = await registerClient(app, { token_endpoint_auth_method: "client_secret_basic" });
  secrets.client_secret = client.client_secret!;
  const auth = { authorization: basic(client.client_id, client.client_secret!) };

  // Authorize and consent by hand, to see the CSRF token.
  const { verifier, challenge } = pkcePair();
  const page = await (await browser.get(`${AUTHORIZE_PATH}?${new URLSearchParams(authorizeQuery(client.client_id, challenge))}`)).text();
  const fields = consentFields(page);
  secrets.csrf_token = fields.csrf_token!;
  const answer = await browser.post(CONSENT_PATH, { ...fields, decision: "allow" });
  expect(answer.status).toBe(303);
  secrets.code = new URL(answer.headers.get("location")!).searchParams.get("code")!;

  const exchanged = await app.request(TOKEN_PATH, {
    form: { grant_type: "authorization_code", code: secrets.code, code_verifier: verifier, redirect_uri: REDIRECT },
    headers: auth,
  });
  expect(exchanged.status).toBe(200);
  const first = (await exchanged.json()) as Tokens;
  secrets.access_token = first.access_token;
  secrets.refresh_token = first.refresh_token;

  const refreshed = await app.request(TOKEN_PATH, { form: { grant_type: "refresh_token", refresh_token: first.refresh_token }, headers: auth });
  expect(refreshed.status).toBe(200);
  const second = (await refreshed.json()) as Tokens;
  secrets.rotated_access_token = second.access_token;
  secrets.rotated_refresh_token = second.refresh_token;

  // A consent page left unanswered: its CSRF token must not be stored either.
  const pending = consentFields(
    await (await browser.get(`${AUTHORIZE_PATH}?${new URLSearchParams(authorizeQuery(client.client_id, pkcePair().challenge, { prompt: "consent" }))}`)).text(),
  );
  pendingCsrf = pending.csrf_token!;
  secrets.pending_csrf_token = pendingCsrf;
}, SETUP_TIMEOUT);
afterAll(() => app.close());

async function allRows() {
  return {
    oauth_clients: await app.deps.db.select().from(oauthClients),
    oauth_codes: await app.deps.db.select().from(oauthCodes),
    oauth_tokens: await app.deps.db.select().from(oauthTokens),
    oauth_authorization_requests: await app.deps.db.select().from(oauthAuthorizationRequests),
  };
}

test("docs/interface.md 2.4: no row of oauth_clients, oauth_codes, oauth_tokens or oauth_authorization_requests contains a plaintext secret", async () => {
  const rows = await allRows();
  expect(rows.oauth_clients.length).toBeGreaterThan(0);
  expect(rows.oauth_codes.length).toBeGreaterThan(0);
  expect(rows.oauth_tokens.length).toBe(4);
  expect(rows.oauth_authorization_requests.length).toBe(2);
  for (const [table, tableRows] of Object.entries(rows)) {
    const dump = JSON.stringify(tableRows);
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length).toBeGreaterThan(40);
      // Neither the whole secret nor its random part without the prefix.
      const random = secret.replace(/^svc_[a-z]+_/, "");
      expect(random.length).toBe(43);
      expect({ table, name, whole: dump.includes(secret), random: dump.includes(random) }).toEqual({ table, name, whole: false, random: false });
    }
  }
});

test("docs/interface.md 2.4: the SHA-256 of each secret is what is stored", async () => {
  const rows = await allRows();
  expect(rows.oauth_clients.map((r) => r.secretHash)).toContain(sha256Hex(secrets.client_secret!));
  expect(rows.oauth_codes.map((r) => r.codeHash)).toContain(sha256Hex(secrets.code!));
  const tokenHashes = rows.oauth_tokens.map((r) => [r.kind, r.tokenHash]);
  expect(tokenHashes).toContainEqual(["access", sha256Hex(secrets.access_token!)]);
  expect(tokenHashes).toContainEqual(["refresh", sha256Hex(secrets.refresh_token!)]);
  expect(tokenHashes).toContainEqual(["access", sha256Hex(secrets.rotated_access_token!)]);
  expect(tokenHashes).toContainEqual(["refresh", sha256Hex(secrets.rotated_refresh_token!)]);
  const csrfHashes = rows.oauth_authorization_requests.map((r) => r.csrfHash);
  expect(csrfHashes).toContain(sha256Hex(secrets.csrf_token!));
  expect(csrfHashes).toContain(sha256Hex(pendingCsrf));
});

test("docs/interface.md 2.4: no secret reaches the log", () => {
  const log = app.rawLogs.join("\n");
  expect(app.rawLogs.length).toBeGreaterThan(0);
  for (const [name, secret] of Object.entries(secrets)) expect({ name, logged: log.includes(secret) }).toEqual({ name, logged: false });
});
