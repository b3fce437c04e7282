// The authorization server's endpoints (docs/interface.md 4.3 and 4.4). Handlers check the request's
// form, call one function from this folder and turn its outcome into HTTP.
import { Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { Elysia, t } from "elysia";
import { sameOriginPost } from "../auth/routes.ts";
import { authenticate, orgOf, sessionToken } from "../auth/guard.ts";
import { hasRole } from "../auth/roles.ts";
import { resolveSession } from "../auth/sessions.ts";
import type { Deps } from "../deps.ts";
import { parseForm, RawBody } from "../http/body.ts";
import { JsonInputError, parseJsonBounded } from "../http/json.ts";
import { findControlCharacter } from "../http/json-strings.ts";
import { requestMeta } from "../http/request-meta.ts";
import { answerConsent, authorize } from "./authorize.ts";
import { authenticateClient, clientInformation, registerClient } from "./clients.ts";
import { OAuthError } from "./errors.ts";
import { listGrants, revokeGrantOfOrg } from "./grants.ts";
import { authorizationServerMetadata, protectedResourceMetadata } from "./metadata.ts";
import { consentPage, oauthErrorPage } from "./pages.ts";
import { revokeToken } from "./revocation.ts";
import { refreshTokens } from "./rotation.ts";
import { exchangeCode } from "./tokens.ts";

const DISCOVERY_HEADERS = { "cache-control": "public, max-age=300" };
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

const FormParams = T.Record(T.String({ maxLength: 64 }), T.String({ maxLength: 4096 }));

function rawText(body: unknown): string {
  const raw = body instanceof RawBody ? body : new RawBody("");
  if (raw.error) throw new OAuthError("invalid_request", raw.error.message, raw.error.status);
  return raw.text;
}

/** Token and revocation requests: form-encoded (RFC 6749 section 3.2), no parameter twice. */
function formParams(request: Request, body: unknown): Record<string, string> {
  const text = rawText(body);
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") throw new OAuthError("invalid_request", "The request body must be application/x-www-form-urlencoded.");
  const params = parseForm(text);
  for (const [name, value] of Object.entries(params)) if (Array.isArray(value)) throw new OAuthError("invalid_request", `The parameter ${name} is repeated.`);
  // %00 decodes to NUL, which PostgreSQL refuses (it was a 500 once).
  for (const [name, value] of Object.entries(params))
    if (findControlCharacter(name + value)) throw new OAuthError("invalid_request", `The parameter ${name.slice(0, 64)} contains a control character.`);
  const invalid = Value.Errors(FormParams, params).First();
  if (invalid) throw new OAuthError("invalid_request", `${invalid.path.slice(1) || "body"}: ${invalid.message}`);
  return params as Record<string, string>;
}

/** Registration requests: a JSON object (RFC 7591 section 3.1); anything else is invalid_client_metadata. */
function registrationBody(body: unknown): unknown {
  const text = rawText(body);
  try {
    return parseJsonBounded(text);
  } catch (error) {
    // Nesting, control characters, duplicate keys (src/http/json.ts) are named; bad syntax is not.
    if (error instanceof JsonInputError && error.kind !== "syntax") throw new OAuthError("invalid_client_metadata", error.message);
    throw new OAuthError("invalid_client_metadata", "The registration request must be a JSON object (application/json).");
  }
}

/** Dashboard callers of the grant APIs: any member of the org; org:manage reaches every member's grants. */
async function grantCaller(deps: Pick<Deps, "config" | "db" | "now">, request: Request) {
  const principal = await authenticate(deps, request);
  const membership = orgOf(principal, request);
  return { orgId: membership.orgId, memberId: principal.member.id, everyone: hasRole(membership.roles, "org:manage") };
}

async function principalOf(deps: Pick<Deps, "db" | "now">, request: Request) {
  const token = sessionToken(request);
  return token ? resolveSession(deps, token) : null;
}

export function oauthRoutes(
  deps: Pick<Deps, "accessTokens" | "clientDocumentFetches" | "clientDocuments" | "config" | "db" | "guard" | "limiter" | "log" | "now" | "statements">,
) {
  const prm = () => Response.json(protectedResourceMetadata(deps.config), { headers: DISCOVERY_HEADERS });
  return (
    new Elysia({ name: "oauth" })
      .get("/.well-known/oauth-protected-resource", prm)
      .get("/.well-known/oauth-protected-resource/api/mcp", prm)
      .get("/.well-known/oauth-authorization-server", () => Response.json(authorizationServerMetadata(deps.config), { headers: DISCOVERY_HEADERS }))
      .post("/api/mcp/oauth/register", async ({ body, request }) => {
        const { client, secret } = await registerClient(deps, registrationBody(body), requestMeta(request).ip);
        return Response.json(clientInformation(client, secret), { status: 201, headers: NO_STORE });
      })
      .get("/api/mcp/oauth/authorize", async ({ request }) => {
        const url = new URL(request.url);
        const outcome = await authorize(deps, url, await principalOf(deps, request), requestMeta(request).ip);
        switch (outcome.kind) {
          case "error_page":
            return oauthErrorPage(outcome.status, outcome.title, outcome.message, outcome.headers);
          case "redirect":
            return new Response(null, { status: 302, headers: { location: outcome.location, ...NO_STORE } });
          case "signin":
            return new Response(null, {
              status: 302,
              headers: { location: `/signin?return_to=${encodeURIComponent(url.pathname + url.search)}`, ...NO_STORE },
            });
          case "consent":
            return consentPage(outcome.view);
        }
      })
      .post("/api/mcp/oauth/consent", async ({ body, request }) => {
        const principal = await principalOf(deps, request);
        if (!principal) return oauthErrorPage(401, "Signed out", "Your session has ended. Start again from the application.");
        if (!sameOriginPost(deps.config.baseUrl, request)) return oauthErrorPage(403, "Refused", "This form was posted from another site.");
        const form = Object.fromEntries(Object.entries((body ?? {}) as Record<string, unknown>).filter(([, v]) => typeof v === "string")) as Record<
          string,
          string
        >;
        const outcome = await answerConsent(deps, principal, form);
        if (outcome.kind === "error_page") return oauthErrorPage(outcome.status, outcome.title, outcome.message);
        return new Response(null, { status: 303, headers: { location: outcome.location, ...NO_STORE } });
      })
      .post("/api/mcp/oauth/token", async ({ body, request }) => {
        const params = formParams(request, body);
        if (!params.grant_type) throw new OAuthError("invalid_request", "grant_type is required.");
        if (params.grant_type !== "authorization_code" && params.grant_type !== "refresh_token")
          throw new OAuthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token.");
        const client = await authenticateClient(deps, request.headers.get("authorization"), params);
        const tokens = params.grant_type === "authorization_code" ? await exchangeCode(deps, client, params) : await refreshTokens(deps, client, params);
        return Response.json(tokens, { headers: NO_STORE });
      })
      .post("/api/mcp/oauth/revoke", async ({ body, request }) => {
        const params = formParams(request, body);
        const client = await authenticateClient(deps, request.headers.get("authorization"), params);
        if (!params.token) throw new OAuthError("invalid_request", "token is required.");
        await revokeToken(deps, client, params.token);
        return new Response(null, { status: 200, headers: NO_STORE });
      })
      // Connected apps in the dashboard: a member's own grants (every member's with org:manage).
      .get(
        "/api/oauth/grants",
        async ({ request }) => {
          const { orgId, memberId, everyone } = await grantCaller(deps, request);
          return listGrants(deps, orgId, memberId, everyone);
        },
        {
          response: {
            200: t.Object({
              grants: t.Array(
                t.Object({
                  id: t.String(),
                  client: t.Object({ id: t.String(), name: t.String() }),
                  member: t.Object({ id: t.String(), email: t.String() }),
                  scopes: t.Array(t.String()),
                  resource: t.String(),
                  created_at: t.String({ format: "date-time" }),
                }),
              ),
            }),
          },
          detail: {
            summary: "Connected apps: your OAuth grants to the tool server (everyone's with org:manage)",
            tags: ["Connected apps"],
            security: [{ dashboard: [] }],
          },
        },
      )
      .delete(
        "/api/oauth/grants/:id",
        async ({ params, request }) => {
          const { orgId, memberId, everyone } = await grantCaller(deps, request);
          await revokeGrantOfOrg(deps, orgId, memberId, everyone, params.id);
          return new Response(null, { status: 204 });
        },
        {
          params: t.Object({ id: t.String({ maxLength: 64 }) }),
          response: { 204: t.Null({ description: "No content" }) },
          detail: { summary: "Revoke a connected app's grant: its tokens stop working", tags: ["Connected apps"], security: [{ dashboard: [] }] },
        },
      )
  );
}
