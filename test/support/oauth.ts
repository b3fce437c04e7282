// Walking the authorization-code flow the way a person's browser does, without a browser:
// follow redirects by hand with a cookie jar, sign in, read the consent form, answer it.
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { s256 } from "../../src/oauth/checks/pkce.ts";
import { verifyAccessTokenHash } from "../../src/oauth/verify.ts";
import type { TestApp } from "./app.ts";

export function pkcePair() {
  const verifier = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  return { verifier, challenge: s256(verifier) };
}

export async function registerPublicClient(
  app: TestApp,
  redirectUris = ["http://127.0.0.1:9/callback"],
  extra: Record<string, unknown> = {},
  ip = "198.51.100.1",
) {
  const res = await app.request("/api/mcp/oauth/register", {
    json: { client_name: "Test client", redirect_uris: redirectUris, token_endpoint_auth_method: "none", ...extra },
    ip,
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { client_id: string; client_secret?: string; redirect_uris: string[] };
}

/** Hidden inputs of the consent form. */
export function consentFields(page: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[m[1]!] = m[2]!;
  return fields;
}

export class Browserless {
  cookie = "";
  constructor(readonly app: TestApp) {}

  async get(pathOrUrl: string): Promise<Response> {
    const res = await this.app.request(pathOrUrl, { headers: this.cookie ? { cookie: this.cookie } : {} });
    return res;
  }

  async post(path: string, form: Record<string, string>): Promise<Response> {
    const res = await this.app.request(path, { form, headers: this.cookie ? { cookie: this.cookie } : {} });
    const set = res.headers.get("set-cookie");
    if (set) this.cookie = set.split(";")[0]!;
    return res;
  }

  async signIn(email: string, password: string) {
    const res = await this.post("/signin", { email, password, return_to: "/" });
    if (res.status !== 303) throw new Error(`sign-in failed: ${res.status}`);
  }

  /** GET the authorize URL; returns the consent page text or the redirect location. */
  async authorize(query: Record<string, string>): Promise<{ status: number; location: string | null; page: string }> {
    const res = await this.get(`/api/mcp/oauth/authorize?${new URLSearchParams(query)}`);
    return { status: res.status, location: res.headers.get("location"), page: await res.text() };
  }

  /** Authorize, then answer the consent page; returns the final redirect URL. */
  async consent(query: Record<string, string>, decision: "allow" | "deny" = "allow", orgId?: string): Promise<URL> {
    const first = await this.authorize(query);
    if (first.status === 302 && first.location) return new URL(first.location); // consent skipped
    if (first.status !== 200) throw new Error(`authorize answered ${first.status}: ${first.page.slice(0, 300)}`);
    const fields = consentFields(first.page);
    const res = await this.post("/api/mcp/oauth/consent", { ...fields, decision, ...(orgId ? { org_id: orgId } : {}) });
    if (res.status !== 303) throw new Error(`consent answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    return new URL(res.headers.get("location")!);
  }
}

export async function tokenRequest(app: TestApp, params: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await app.request("/api/mcp/oauth/token", { form: params, headers });
  return { res, body: (await res.json()) as Record<string, unknown> };
}

/** A signed-in member's access and refresh tokens for `scope` (default: what the server grants by default). */
export async function tokensFor(app: TestApp, member: { admin_email: string; password: string }, scope?: string, ip = "198.51.100.7") {
  const client = await registerPublicClient(app, ["http://127.0.0.1:9/callback"], { client_name: `client-${crypto.randomUUID()}` }, ip);
  const ua = new Browserless(app);
  await ua.signIn(member.admin_email, member.password);
  const { verifier, challenge } = pkcePair();
  const back = await ua.consent({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: "http://127.0.0.1:9/callback",
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...(scope ? { scope } : {}),
  });
  const { res, body } = await tokenRequest(app, {
    grant_type: "authorization_code",
    code: back.searchParams.get("code")!,
    code_verifier: verifier,
    client_id: client.client_id,
    redirect_uri: "http://127.0.0.1:9/callback",
  });
  if (res.status !== 200) throw new Error(`token exchange failed: ${JSON.stringify(body)}`);
  return { clientId: client.client_id, accessToken: body.access_token as string, refreshToken: body.refresh_token as string };
}

/** POSTs one JSON-RPC message (or a batch, or raw text) to /api/mcp with a bearer token. */
export async function rpc(app: TestApp, token: string | undefined, message: unknown, headers: Record<string, string> = {}) {
  const res = await app.request("/api/mcp", {
    method: "POST",
    body: typeof message === "string" ? message : JSON.stringify(message),
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
  });
  const text = await res.text();
  return { res, text, body: text ? (JSON.parse(text) as any) : undefined };
}

/**
 * The tool server's own check of an access token (src/oauth/verify.ts), without the cache: the
 * one look behind the curtain the OAuth tests take. Null for anything that is not a live token.
 */
export function verifyAccessToken(app: { deps: TestApp["deps"] } | TestApp["deps"], token: string) {
  const deps = "deps" in app ? app.deps : app;
  return verifyAccessTokenHash(deps, sha256Hex(token));
}
