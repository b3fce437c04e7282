// Clients: RFC 7591 dynamic registration and RFC 6749 section 2.3 client authentication.
import { randomBytes } from "node:crypto";
import { Type as T, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { and, eq, isNull, lt, sql } from "drizzle-orm";
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import { constantTimeEqual, mintToken, sha256Hex } from "../crypto/tokens.ts";
import type { Db } from "../db/client.ts";
import { prepared } from "../db/prepared.ts";
import { oauthClients, oauthGrants } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { redirectUriProblem } from "./checks/redirect-uri.ts";
import { OAuthError } from "./errors.ts";
import { parseScope } from "./scopes.ts";

/** Interface docs/interface.md 4.4 / docs/interface.md 8.1: 10 registrations per IP per hour (fixed hourly windows). */
export const REGISTRATION_LIMIT = { limit: 10, windowSeconds: 3600 };
export const AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"] as const;
export const GRANT_TYPES = ["authorization_code", "refresh_token"] as const;

const Url = T.String({ maxLength: 2000 });
export const RegistrationRequest = T.Object({
  redirect_uris: T.Array(T.String(), { minItems: 1, maxItems: 20 }),
  token_endpoint_auth_method: T.Optional(T.Union(AUTH_METHODS.map((m) => T.Literal(m)))),
  grant_types: T.Optional(T.Array(T.Union(GRANT_TYPES.map((g) => T.Literal(g))), { minItems: 1, maxItems: 2 })),
  response_types: T.Optional(T.Array(T.Literal("code"), { minItems: 1, maxItems: 1 })),
  client_name: T.Optional(T.String({ minLength: 1, maxLength: 200 })),
  client_uri: T.Optional(Url),
  logo_uri: T.Optional(Url),
  tos_uri: T.Optional(Url),
  policy_uri: T.Optional(Url),
  scope: T.Optional(T.String({ maxLength: 1000 })),
  software_id: T.Optional(T.String({ maxLength: 200 })),
  software_version: T.Optional(T.String({ maxLength: 200 })),
  // OpenID Connect Dynamic Registration 2; MCP 2026-07-28 has clients send it.
  application_type: T.Optional(T.Union([T.Literal("web"), T.Literal("native")])),
});
type RegistrationRequest = Static<typeof RegistrationRequest>;
const ECHOED = ["client_uri", "logo_uri", "tos_uri", "policy_uri", "software_id", "software_version", "application_type"] as const;

export type Client = typeof oauthClients.$inferSelect;

function validate(body: unknown): RegistrationRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new OAuthError("invalid_client_metadata", "The registration request must be a JSON object.");
  // Some clients send explicit nulls for fields they do not use; treat them as absent.
  const input = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null));
  const known = Object.fromEntries(Object.entries(input).filter(([k]) => k in RegistrationRequest.properties));
  const error = Value.Errors(RegistrationRequest, known).First();
  if (error) {
    const field = error.path.split("/")[1] ?? "";
    const code = field === "redirect_uris" ? "invalid_redirect_uri" : "invalid_client_metadata";
    throw new OAuthError(code, `${error.path || "request"}: ${error.message}`);
  }
  const request = known as RegistrationRequest;
  for (const uri of request.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError("invalid_redirect_uri", `redirect_uri ${JSON.stringify(uri)} ${problem}`);
  }
  if (request.scope !== undefined) {
    const parsed = parseScope(request.scope);
    if ("unknown" in parsed) throw new OAuthError("invalid_client_metadata", `scope ${JSON.stringify(parsed.unknown)} is not supported`);
  }
  return request;
}

/** The registration response (RFC 7591 section 3.2.1). Never contains null (docs/interface.md A.8). */
export function clientInformation(client: Client, secret?: string): Record<string, unknown> {
  return {
    client_id: client.id,
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
    ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_name: client.name,
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    grant_types: client.grantTypes,
    response_types: client.responseTypes,
    ...(client.scope ? { scope: client.scope } : {}),
    ...client.metadata,
  };
}

export async function registerClient(
  deps: Pick<Deps, "db" | "limiter" | "now">,
  body: unknown,
  ip: string,
): Promise<{ client: Client; secret?: string; existing: boolean }> {
  const request = validate(body);
  const method = request.token_endpoint_auth_method ?? "client_secret_basic"; // RFC 7591 section 2 default
  const metadata: Record<string, string> = {};
  for (const key of ECHOED) if (request[key] !== undefined) metadata[key] = request[key]!;
  const values = {
    name: request.client_name ?? "Unnamed client",
    redirectUris: request.redirect_uris,
    tokenEndpointAuthMethod: method,
    // Refresh is part of every client's life here (tokens live an hour); registering only
    // authorization_code still gets refresh tokens, and the registration says so.
    grantTypes: [...GRANT_TYPES] as string[],
    responseTypes: ["code"],
    scope: request.scope ?? null,
    metadata,
  };

  // docs/interface.md A.14: hosted clients register from shared egress IPs once per connection; an identical
  // public registration from the same source gets the existing client and does not count.
  const fingerprint = method === "none" ? sha256Hex(`${ip}\n${JSON.stringify(values)}`) : null;
  if (fingerprint) {
    const [existing] = await deps.db.select().from(oauthClients).where(eq(oauthClients.fingerprint, fingerprint)).limit(1);
    if (existing) return { client: existing, existing: true };
  }
  const taken = await deps.limiter.take(`oauth:register:${ip}`, REGISTRATION_LIMIT, deps.now());
  if (!taken.allowed)
    throw new OAuthError("temporarily_unavailable", `Too many client registrations from this address; try again in ${taken.retryAfter} seconds.`, 429, {
      "retry-after": String(taken.retryAfter),
    });

  const secret = method === "none" ? undefined : mintToken("svc_cs_");
  const [client] = await deps.db
    .insert(oauthClients)
    .values({
      id: `mcp_${randomBytes(18).toString("base64url")}`,
      secretHash: secret ? sha256Hex(secret) : null,
      fingerprint,
      createdAt: deps.now(),
      ...values,
    })
    .returning();
  return { client: client!, secret, existing: false };
}

/** Every token and revocation request looks its client up: built once (src/db/prepared.ts). */
const clientById = (db: Db) =>
  db
    .select()
    .from(oauthClients)
    .where(eq(oauthClients.id, sql.placeholder("id")))
    .prepare("oauth_client_by_id");

export async function findClient(deps: Pick<Deps, "db" | "statements">, clientId: string): Promise<Client | null> {
  // Ours are short; a metadata document's URL (src/oauth/client-metadata.ts) may be up to 2000.
  if (clientId.length > (clientId.startsWith("https://") ? 2000 : 100)) return null;
  const [client] = await prepared(deps, "oauth_client_by_id", clientById).execute({ id: clientId });
  return client ?? null;
}

const BASIC_CHALLENGE = { "www-authenticate": 'Basic realm="svc-agents"' };

/**
 * RFC 6749 section 2.3: who is calling the token or revocation endpoint. Basic (section 2.3.1, id and secret
 * form-urlencoded), a secret in the body, or — for public clients only — just `client_id`.
 */
export async function authenticateClient(deps: Pick<Deps, "db" | "statements">, authorization: string | null, body: Record<string, string>): Promise<Client> {
  if (authorization?.toLowerCase().startsWith("basic ")) {
    if (body.client_secret !== undefined)
      throw new OAuthError("invalid_request", "Use one client authentication method, not Basic and client_secret together.");
    let id: string;
    let secret: string;
    try {
      const decoded = Buffer.from(authorization.slice(6).trim(), "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      if (colon < 0) throw new Error("no colon");
      id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " "));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " "));
    } catch {
      throw new OAuthError("invalid_client", "The Basic credentials are malformed.", 401, BASIC_CHALLENGE);
    }
    if (body.client_id !== undefined && body.client_id !== id)
      throw new OAuthError("invalid_request", "client_id in the body differs from the authenticated client.");
    const client = await findClient(deps, id);
    if (!client?.secretHash || !constantTimeEqual(sha256Hex(secret), client.secretHash))
      throw new OAuthError("invalid_client", "Client authentication failed.", 401, BASIC_CHALLENGE);
    return client;
  }
  if (!body.client_id)
    throw new OAuthError("invalid_client", "The client is not identified: send client_id, or authenticate with HTTP Basic.", 401, BASIC_CHALLENGE);
  const client = await findClient(deps, body.client_id);
  if (!client) throw new OAuthError("invalid_client", "Unknown client_id.", 401);
  if (body.client_secret !== undefined) {
    if (!client.secretHash || !constantTimeEqual(sha256Hex(body.client_secret), client.secretHash))
      throw new OAuthError("invalid_client", "Client authentication failed.", 401);
    return client;
  }
  if (client.secretHash) throw new OAuthError("invalid_client", "This client is confidential: authenticate with its client secret.", 401, BASIC_CHALLENGE);
  return client;
}

/**
 * Clients that never obtained a token within the configured time are removed (docs/interface.md A.14).
 * Such a client may still hold a grant whose code was never exchanged; each org with one sees
 * the deletion in its activity log (the grant goes with the client).
 */
export async function deleteUnusedClients(deps: Pick<Deps, "config" | "db" | "now">, actor: Actor): Promise<void> {
  const cutoff = new Date(deps.now().getTime() - deps.config.oauthUnusedClientTtlHours * 3600_000);
  const unused = and(isNull(oauthClients.firstTokenAt), lt(oauthClients.createdAt, cutoff));
  const seen = await deps.db
    .selectDistinct({ clientId: oauthClients.id, name: oauthClients.name, orgId: oauthGrants.orgId })
    .from(oauthClients)
    .innerJoin(oauthGrants, eq(oauthGrants.clientId, oauthClients.id))
    .where(unused);
  const deleted = new Set((await deps.db.delete(oauthClients).where(unused).returning({ id: oauthClients.id })).map((c) => c.id));
  for (const s of seen.filter((s) => deleted.has(s.clientId)))
    await recordActivity(deps, {
      orgId: s.orgId,
      actor,
      action: "oauth_client.deleted",
      objectType: "oauth_client",
      objectId: s.clientId,
      summary: { name: s.name, reason: "never_used" },
    });
}
