// Discovery documents: RFC 9728 protected-resource metadata for the tool server and RFC 8414
// authorization-server metadata. Absolute URLs from BASE_URL; no nulls (docs/interface.md A.8).
import type { Config } from "../config.ts";
import { AUTH_METHODS, GRANT_TYPES } from "./clients.ts";
import { SCOPES_SUPPORTED } from "./scopes.ts";

/** The authorization server's issuer identifier (RFC 8414 section 2): BASE_URL itself. */
export const issuerOf = (config: Config) => config.baseUrl;
/** The tool server's resource identifier (RFC 8707, RFC 9728 section 2): exactly `<BASE_URL>/api/mcp`. */
export const resourceOf = (config: Config) => `${config.baseUrl}/api/mcp`;
export const protectedResourceMetadataUrl = (config: Config) => `${config.baseUrl}/.well-known/oauth-protected-resource/api/mcp`;
export const authorizationServerMetadataUrl = (config: Config) => `${config.baseUrl}/.well-known/oauth-authorization-server`;

export const endpoints = (config: Config) => ({
  authorization_endpoint: `${config.baseUrl}/api/mcp/oauth/authorize`,
  token_endpoint: `${config.baseUrl}/api/mcp/oauth/token`,
  registration_endpoint: `${config.baseUrl}/api/mcp/oauth/register`,
  revocation_endpoint: `${config.baseUrl}/api/mcp/oauth/revoke`,
});

export function protectedResourceMetadata(config: Config) {
  return {
    resource: resourceOf(config),
    authorization_servers: [issuerOf(config)],
    scopes_supported: SCOPES_SUPPORTED,
    bearer_methods_supported: ["header"],
    resource_name: "svc-agents tool server",
  };
}

export function authorizationServerMetadata(config: Config) {
  return {
    issuer: issuerOf(config),
    ...endpoints(config),
    scopes_supported: SCOPES_SUPPORTED,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: [...GRANT_TYPES],
    code_challenge_methods_supported: ["S256"],
    client_id_metadata_document_supported: true,
    token_endpoint_auth_methods_supported: [...AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...AUTH_METHODS],
    // RFC 9207: authorization responses carry `iss`.
    authorization_response_iss_parameter_supported: true,
  };
}

/**
 * The `WWW-Authenticate` challenge of the tool server (docs/interface.md 5, docs/interface.md A.5–A.6): every
 * value quoted; no `error` when no token was sent.
 */
export function bearerChallenge(
  config: Config,
  error?: { error: "invalid_token" | "insufficient_scope"; description: string; scope?: string },
  scope?: string,
): string {
  const params = [`realm="svc-mcp"`, `resource_metadata="${protectedResourceMetadataUrl(config)}"`, `as_uri="${authorizationServerMetadataUrl(config)}"`];
  if (error) {
    params.push(`error="${error.error}"`, `error_description="${error.description.replace(/["\\]/g, "")}"`);
    if (error.scope) params.push(`scope="${error.scope}"`);
  }
  // RFC 6750 3: the scope the request needs, on a 401 too (docs/interface.md A.5).
  if (scope && !error?.scope) params.push(`scope="${scope}"`);
  return `Bearer ${params.join(", ")}`;
}
