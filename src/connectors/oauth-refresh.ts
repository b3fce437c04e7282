// Refreshing a connector's OAuth2 tokens after the MCP server answered 401.
// The path is the one MCP clients follow: the server's protected-resource metadata (RFC 9728,
// from its WWW-Authenticate `resource_metadata` or the well-known locations) names the
// authorization server; its RFC 8414 metadata names the token endpoint; a `refresh_token` grant
// there gives new tokens. Every request goes through the outbound guard.
import { type GuardOptions, guardedFetch, readCapped } from "../net/guard.ts";
import { messageOf } from "../errors.ts";

export class RefreshFailed extends Error {
  override name = "RefreshFailed";
}

export interface OAuthCredentials {
  access_token: string;
  refresh_token?: string;
  client_id?: string;
  client_secret?: string;
}

const METADATA_BYTES = 256 * 1024;

async function getJson(url: string, guard: GuardOptions, signal: AbortSignal): Promise<Record<string, unknown> | null> {
  try {
    const response = await guardedFetch(url, { headers: { accept: "application/json" }, signal }, guard);
    if (!response.ok) {
      await response.body?.cancel();
      return null;
    }
    const value = JSON.parse(new TextDecoder().decode(await readCapped(response, METADATA_BYTES)));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

/** RFC 8414 section 3.1 / RFC 9728 section 3.1: the well-known suffix goes between the origin and the path. */
function wellKnown(resource: string, suffix: string): string[] {
  const url = new URL(resource);
  const path = url.pathname.replace(/\/$/, "");
  return [...(path ? [`${url.origin}/.well-known/${suffix}${path}`] : []), `${url.origin}/.well-known/${suffix}`];
}

function resourceMetadataFrom(wwwAuthenticate: string | null | undefined): string | undefined {
  return wwwAuthenticate ? /resource_metadata="([^"]+)"/.exec(wwwAuthenticate)?.[1] : undefined;
}

export async function refreshOAuthTokens(
  serverUrl: string,
  credentials: OAuthCredentials,
  wwwAuthenticate: string | null | undefined,
  guard: GuardOptions,
  signal: AbortSignal,
): Promise<OAuthCredentials> {
  if (!credentials.refresh_token) throw new RefreshFailed("no refresh token was given for this connector");
  const hinted = resourceMetadataFrom(wwwAuthenticate);
  let resourceMetadata: Record<string, unknown> | null = null;
  for (const url of [...(hinted ? [hinted] : []), ...wellKnown(serverUrl, "oauth-protected-resource")]) {
    resourceMetadata = await getJson(url, guard, signal);
    if (resourceMetadata) break;
  }
  const issuer = Array.isArray(resourceMetadata?.authorization_servers) ? resourceMetadata.authorization_servers[0] : undefined;
  if (typeof issuer !== "string") throw new RefreshFailed("the server does not say which authorization server issues its tokens");
  let asMetadata: Record<string, unknown> | null = null;
  for (const url of [...wellKnown(issuer, "oauth-authorization-server"), ...wellKnown(issuer, "openid-configuration")]) {
    asMetadata = await getJson(url, guard, signal);
    if (asMetadata) break;
  }
  const tokenEndpoint = asMetadata?.token_endpoint;
  if (typeof tokenEndpoint !== "string") throw new RefreshFailed("the authorization server publishes no token endpoint");

  const form = new URLSearchParams({ grant_type: "refresh_token", refresh_token: credentials.refresh_token });
  if (credentials.client_id) form.set("client_id", credentials.client_id);
  if (credentials.client_secret) form.set("client_secret", credentials.client_secret);
  let body: Record<string, unknown>;
  try {
    const response = await guardedFetch(
      tokenEndpoint,
      { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" }, body: form.toString(), signal },
      guard,
    );
    body = JSON.parse(new TextDecoder().decode(await readCapped(response, METADATA_BYTES)));
    if (!response.ok) throw new RefreshFailed(`the token endpoint refused the refresh (${String(body.error ?? response.status)})`);
  } catch (error) {
    if (error instanceof RefreshFailed) throw error;
    throw new RefreshFailed(`the token endpoint could not be used: ${messageOf(error)}`);
  }
  if (typeof body.access_token !== "string" || body.access_token.length > 8000) throw new RefreshFailed("the token endpoint returned no usable access token");
  return {
    ...credentials,
    access_token: body.access_token,
    // RFC 6749 section 6: a new refresh token replaces the old one; without one, the old one stays.
    ...(typeof body.refresh_token === "string" && body.refresh_token.length <= 8000 ? { refresh_token: body.refresh_token } : {}),
  };
}
