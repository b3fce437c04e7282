// Shared pieces of the OAuth conformance tests (test/e2e/conformance/*.test.ts). Everything goes
// through the in-process app over HTTP, the way a client and a person's browser would; the only
// look behind the curtain is verifyAccessToken, which is what the tool server calls per request.
import { expect } from "bun:test";
import { seedOrg, type TestApp } from "../../support/app.ts";
import { Browserless, consentFields, pkcePair, tokenRequest } from "../../support/oauth.ts";

/** The loopback redirect URI most tests register (RFC 8252 section 7.3). */
export const REDIRECT = "http://127.0.0.1:9/callback";

export const TOKEN_PATH = "/api/mcp/oauth/token";
export const REVOKE_PATH = "/api/mcp/oauth/revoke";
export const REGISTER_PATH = "/api/mcp/oauth/register";
export const AUTHORIZE_PATH = "/api/mcp/oauth/authorize";
export const CONSENT_PATH = "/api/mcp/oauth/consent";

/** 256 random bits, base64url, after the prefix (docs/interface.md 2.4). */
export const ACCESS_TOKEN = /^svc_at_[A-Za-z0-9_-]{43}$/;
export const REFRESH_TOKEN = /^svc_rt_[A-Za-z0-9_-]{43}$/;
export const CODE = /^svc_ac_[A-Za-z0-9_-]{43}$/;

export const issuerOf = (app: TestApp) => app.deps.config.baseUrl;
export const resourceOf = (app: TestApp) => `${app.deps.config.baseUrl}/api/mcp`;

/** JSON paths of every `null` in a value (docs/interface.md A.8: never emit null). */
export function nullPaths(value: unknown, path = "$"): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => nullPaths(v, `${path}[${i}]`));
  if (typeof value === "object") return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => nullPaths(v, `${path}.${k}`));
  return [];
}

export function expectNoNull(value: unknown): void {
  expect(nullPaths(value)).toEqual([]);
}

/**
 * An RFC 6749 section 5.2 / RFC 7591 section 3.2.2 error: exact status and `error`, a specific
 * `error_description`, JSON, `Cache-Control: no-store` (docs/interface.md A.11), no null.
 */
export async function expectOAuthError(res: Response, status: number, error: string, description: RegExp): Promise<Record<string, unknown>> {
  const text = await res.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { unparseable: text };
  }
  // Status and code together, so a failure shows both (and the body).
  expect({ status: res.status, error: body.error, body }).toMatchObject({ status, error });
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("content-type")).toContain("application/json");
  expect(typeof body.error_description).toBe("string");
  expect(body.error_description as string).toMatch(description);
  expectNoNull(body);
  return body;
}

/** A JSON success body from a token or registration endpoint: status, no-store, no null. */
export async function expectNoStoreJson(res: Response, status: number): Promise<Record<string, unknown>> {
  const text = await res.text();
  expect({ status: res.status, text }).toMatchObject({ status });
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("content-type")).toContain("application/json");
  const body = JSON.parse(text) as Record<string, unknown>;
  expectNoNull(body);
  return body;
}

/** A successful token response (RFC 6749 section 5.1). */
export interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

let ipCounter = 0;
/** A fresh client address, so registrations in one file never meet the per-IP limit by accident. */
export function freshIp(): string {
  ipCounter++;
  return `203.0.${Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`;
}

let clientCounter = 0;
/** Registers a client with a unique name from a fresh IP (so it is never deduplicated into another). */
export async function registerClient(
  app: TestApp,
  metadata: { redirect_uris?: string[]; token_endpoint_auth_method?: string; client_name?: string; [k: string]: unknown } = {},
): Promise<{ client_id: string; client_secret?: string; redirect_uris: string[]; client_name: string }> {
  clientCounter++;
  const res = await app.request(REGISTER_PATH, {
    json: { client_name: `Conformance client ${clientCounter}`, redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", ...metadata },
    ip: freshIp(),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** Basic client authentication (RFC 6749 section 2.3.1: id and secret form-urlencoded, then base64). */
export function basic(clientId: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, "+");
  return `Basic ${Buffer.from(`${enc(clientId)}:${enc(secret)}`).toString("base64")}`;
}

/** A member of a fresh org, signed in through the /signin form in a cookie-jar user agent. */
export async function signedInMember(app: TestApp, name?: string) {
  const org = await seedOrg(app, name ? { name } : {});
  const browser = new Browserless(app);
  await browser.signIn(org.admin_email, org.password);
  return { org, browser };
}

export function authorizeQuery(clientId: string, challenge: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: `state-${crypto.randomUUID()}`,
    ...extra,
  };
}

/** Runs authorize + consent (Allow) and returns the code with what is needed to redeem it. */
export async function obtainCode(
  browser: Browserless,
  clientId: string,
  options: { extra?: Record<string, string>; orgId?: string } = {},
): Promise<{ code: string; verifier: string; redirectUri: string; state: string; location: URL }> {
  const { verifier, challenge } = pkcePair();
  const query = authorizeQuery(clientId, challenge, options.extra);
  const location = await browser.consent(query, "allow", options.orgId);
  expect(location.searchParams.get("error")).toBeNull();
  const code = location.searchParams.get("code");
  expect(code).toMatch(CODE);
  return { code: code!, verifier, redirectUri: query.redirect_uri!, state: query.state!, location };
}

/** Redeems a code at the token endpoint (public client unless `auth` says otherwise). */
export function redeem(
  app: TestApp,
  clientId: string,
  code: { code: string; verifier: string; redirectUri: string },
  extra: Record<string, string> = {},
  headers: Record<string, string> = {},
) {
  return app.request(TOKEN_PATH, {
    form: { grant_type: "authorization_code", client_id: clientId, code: code.code, code_verifier: code.verifier, redirect_uri: code.redirectUri, ...extra },
    headers,
  });
}

/** The whole flow for a public client: consent, then the code exchange; asserts 200. */
export async function obtainTokens(
  app: TestApp,
  browser: Browserless,
  clientId: string,
  options: { extra?: Record<string, string>; orgId?: string } = {},
): Promise<Tokens> {
  const code = await obtainCode(browser, clientId, options);
  const { res, body } = await tokenRequest(app, {
    grant_type: "authorization_code",
    client_id: clientId,
    code: code.code,
    code_verifier: code.verifier,
    redirect_uri: code.redirectUri,
  });
  expect({ status: res.status, body }).toMatchObject({ status: 200 });
  return body as unknown as Tokens;
}

export function refresh(app: TestApp, clientId: string, refreshToken: string, extra: Record<string, string> = {}) {
  return app.request(TOKEN_PATH, { form: { grant_type: "refresh_token", client_id: clientId, refresh_token: refreshToken, ...extra } });
}

export function revoke(app: TestApp, clientId: string, token: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}) {
  return app.request(REVOKE_PATH, { form: { client_id: clientId, token, ...extra }, headers });
}

/** Parses the authorize endpoint's redirect and checks it goes back to `redirectUri`. */
export function redirectParams(location: string | null, redirectUri: string): URLSearchParams {
  expect(location).not.toBeNull();
  const url = new URL(location!);
  const expected = new URL(redirectUri);
  expect(`${url.origin}${url.pathname}`).toBe(`${expected.origin}${expected.pathname}`);
  return url.searchParams;
}

/** Reverses src/html/html.ts escaping (what a browser does with an attribute value). */
export function unescapeHtml(value: string): string {
  return value
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

export { consentFields };

/** Setting up an app and signing members in hashes passwords (argon2id): give hooks room beyond bun's 5 s default. */
export const SETUP_TIMEOUT = 30_000;
