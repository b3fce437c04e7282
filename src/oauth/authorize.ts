// The authorization endpoint (RFC 6749 section 4.1.1 with PKCE, RFC 8707 resource, RFC 9207 iss) and
// the member's answer on the consent page. Outcomes are plain values; src/oauth/routes.ts turns
// them into redirects and pages.
//
// Until the client and its redirect URI are known to be genuine, errors are shown on our own
// page and never redirected (RFC 6749 section 4.1.2.1): otherwise we would be an open redirector.
import {
  isMetadataClientId,
  keepMetadataClient,
  type MetadataClient,
  metadataClient,
  MetadataDocumentError,
  MetadataFetchLimitedError,
} from "./client-metadata.ts";
import { Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { and, eq, gt, isNull } from "drizzle-orm";
import type { Principal } from "../auth/sessions.ts";
import { mintToken, sha256Hex } from "../crypto/tokens.ts";
import { oauthAuthorizationRequests } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { isUuid } from "../kit/ids.ts";
import { CHALLENGE } from "./checks/pkce.ts";
import { redirectUriRegistered } from "./checks/redirect-uri.ts";
import { findClient } from "./clients.ts";
import type { OAuthErrorCode } from "./errors.ts";
import { issuerOf, resourceOf } from "./metadata.ts";
import { parseScope } from "./scopes.ts";
import { hasLiveGrant } from "./grants.ts";
import { issueCode } from "./tokens.ts";

/** How long a consent page may stay open before its answer is refused. */
export const CONSENT_TTL_MS = 10 * 60_000;

const Param = T.String({ maxLength: 4096 });
export const AuthorizeQuery = T.Object({
  response_type: T.Optional(Param),
  client_id: T.Optional(Param),
  redirect_uri: T.Optional(Param),
  code_challenge: T.Optional(Param),
  code_challenge_method: T.Optional(Param),
  state: T.Optional(Param),
  scope: T.Optional(Param),
  resource: T.Optional(Param),
  prompt: T.Optional(Param),
});

export type AuthorizeOutcome =
  | { kind: "error_page"; status: number; title: string; message: string; headers?: Record<string, string> }
  | { kind: "redirect"; location: string }
  | { kind: "signin" }
  | { kind: "consent"; view: ConsentView };

export interface ConsentView {
  requestId: string;
  csrfToken: string;
  clientName: string;
  /** The host of a client metadata document's URL (its client_id): shown beside the name. */
  clientHost?: string;
  redirectUri: string;
  scopes: string[];
  orgs: { id: string; name: string }[];
}

/** The redirect back to the client, always with `iss` (RFC 9207) and the client's `state`. */
export function clientRedirect(deps: Pick<Deps, "config">, redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  url.searchParams.set("iss", issuerOf(deps.config));
  return url.toString();
}

function errorRedirect(
  deps: Pick<Deps, "config">,
  redirectUri: string,
  state: string | undefined,
  error: OAuthErrorCode,
  description: string,
): AuthorizeOutcome {
  return { kind: "redirect", location: clientRedirect(deps, redirectUri, { error, error_description: description, state }) };
}

/** The client a request names: a metadata document's (nothing written yet) or a registered one. */
async function requestedClient(
  deps: Pick<Deps, "clientDocumentFetches" | "clientDocuments" | "db" | "guard" | "limiter" | "log" | "now" | "statements">,
  clientId: string,
  ip: string,
): Promise<{ client: { id: string; name: string; redirectUris: string[] } | null; document?: MetadataClient } | { refused: AuthorizeOutcome }> {
  if (!isMetadataClientId(clientId)) return { client: await findClient(deps, clientId) };
  try {
    const document = await metadataClient(deps, clientId, ip);
    return { client: { id: clientId, name: document.name, redirectUris: document.redirectUris }, document };
  } catch (error) {
    if (error instanceof MetadataFetchLimitedError)
      return {
        refused: {
          kind: "error_page",
          status: 429,
          title: "Too many requests",
          message: error.message,
          headers: { "retry-after": String(error.retryAfter) },
        },
      };
    if (error instanceof MetadataDocumentError)
      return {
        refused: { kind: "error_page", status: 400, title: "Application not verified", message: `The application could not be verified: ${error.message}.` },
      };
    throw error;
  }
}

/** `ip` is the caller's address (src/http/request-meta.ts): what fetching a metadata document is limited by. */
export async function authorize(
  deps: Pick<Deps, "clientDocumentFetches" | "clientDocuments" | "config" | "db" | "guard" | "limiter" | "log" | "now" | "statements">,
  url: URL,
  principal: Principal | null,
  ip: string,
): Promise<AuthorizeOutcome> {
  const search = url.searchParams;
  const repeated = [...new Set([...search.keys()].filter((k) => search.getAll(k).length > 1))];
  const query = Object.fromEntries(search);
  const page = (status: number, title: string, message: string): AuthorizeOutcome => ({ kind: "error_page", status, title, message });

  if (repeated.includes("client_id") || repeated.includes("redirect_uri"))
    return page(400, "Invalid request", "The request repeats client_id or redirect_uri.");
  if (!query.client_id) return page(400, "Invalid request", "The request does not say which application is asking (client_id is missing).");
  // An https URL client_id is a metadata document: fetched (or cached) and checked; its row waits for consent.
  const requested = await requestedClient(deps, query.client_id, ip);
  if ("refused" in requested) return requested.refused;
  const { client, document } = requested;
  if (!client) return page(400, "Unknown application", "This application is not registered with svc-agents. Ask it to connect again.");
  const redirectUri = query.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri) return page(400, "Invalid request", "The application did not say where to return (redirect_uri is missing).");
  // A metadata document's redirect URIs match exactly (no loopback port leeway).
  if (document ? !document.redirectUris.includes(redirectUri) : !redirectUriRegistered(redirectUri, client.redirectUris))
    return page(400, "Invalid redirect", "The address this application asked to return to is not one it registered. Nothing was sent to it.");

  // From here on the redirect URI is trusted: errors go back to the client.
  const state = query.state;
  const fail = (error: OAuthErrorCode, description: string) => errorRedirect(deps, redirectUri, state, error, description);
  if (repeated.length > 0) return fail("invalid_request", `The parameter ${repeated[0]} is repeated.`);
  const invalid = Value.Errors(AuthorizeQuery, query).First();
  if (invalid) return fail("invalid_request", `${invalid.path.slice(1)}: ${invalid.message}`);
  if (query.response_type === undefined) return fail("invalid_request", "response_type is required (it must be code).");
  if (query.response_type !== "code") return fail("unsupported_response_type", "response_type must be code.");
  if (!query.code_challenge) return fail("invalid_request", "code_challenge is required (PKCE with S256).");
  if (query.code_challenge_method !== "S256") return fail("invalid_request", "code_challenge_method must be S256.");
  if (!CHALLENGE.test(query.code_challenge))
    return fail("invalid_request", "code_challenge must be 43 characters of base64url (BASE64URL(SHA256(code_verifier))).");
  const parsed = parseScope(query.scope);
  if ("unknown" in parsed) return fail("invalid_scope", `The scope ${parsed.unknown} is not supported.`);
  const resource = resourceOf(deps.config);
  if (query.resource !== undefined && query.resource !== resource) return fail("invalid_target", `resource must be ${resource}.`);

  if (!principal) return { kind: "signin" };
  const orgs = principal.memberships.map((m) => ({ id: m.orgId, name: m.orgName }));
  if (orgs.length === 0) return page(403, "No organisation", "Your account does not belong to any organisation, so there is nothing to grant access to.");
  // A signed-in member is at consent: only now does a metadata document's client get its row.
  if (document) await keepMetadataClient(deps, client.id, document);

  const grant = {
    clientId: client.id,
    memberId: principal.member.id,
    scopes: parsed.scopes,
    resource,
    redirectUri,
    redirectUriGiven: query.redirect_uri !== undefined,
    codeChallenge: query.code_challenge,
  };
  // Consent is skipped only when this client already holds a live grant for the same member,
  // org and scopes (a member of several orgs always chooses).
  if (query.prompt !== "consent" && orgs.length === 1 && (await hasLiveGrant(deps, { ...grant, orgId: orgs[0]!.id }))) {
    const code = await issueCode(deps, { ...grant, orgId: orgs[0]!.id });
    return { kind: "redirect", location: clientRedirect(deps, redirectUri, { code, state }) };
  }

  const csrfToken = mintToken("svc_csrf_");
  const now = deps.now();
  const [pending] = await deps.db
    .insert(oauthAuthorizationRequests)
    .values({
      csrfHash: sha256Hex(csrfToken),
      sessionId: principal.sessionId,
      clientId: client.id,
      redirectUri,
      redirectUriGiven: grant.redirectUriGiven,
      codeChallenge: grant.codeChallenge,
      scopes: grant.scopes,
      resource,
      state: state ?? null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CONSENT_TTL_MS),
    })
    .returning({ id: oauthAuthorizationRequests.id });
  return {
    kind: "consent",
    view: {
      requestId: pending!.id,
      csrfToken,
      clientName: client.name,
      ...(document ? { clientHost: document.host } : {}),
      redirectUri,
      scopes: grant.scopes,
      orgs,
    },
  };
}

export type ConsentOutcome = { kind: "error_page"; status: number; title: string; message: string } | { kind: "redirect"; location: string };

/**
 * The member's answer. The anti-CSRF token is one-time and bound to both the session and this
 * authorization request; it is spent atomically whatever the answer.
 */
export async function answerConsent(
  deps: Pick<Deps, "config" | "db" | "now">,
  principal: Principal,
  form: { request_id?: string; csrf_token?: string; decision?: string; org_id?: string },
): Promise<ConsentOutcome> {
  const stale = {
    kind: "error_page" as const,
    status: 400,
    title: "This request has expired",
    message: "This consent form has expired or was already answered. Start again from the application.",
  };
  if (!form.request_id || !form.csrf_token || !isUuid(form.request_id)) return stale;
  if (form.decision !== "allow" && form.decision !== "deny")
    return { kind: "error_page", status: 400, title: "Invalid answer", message: "Choose Allow or Deny." };
  const now = deps.now();
  const [request] = await deps.db
    .update(oauthAuthorizationRequests)
    .set({ usedAt: now })
    .where(
      and(
        eq(oauthAuthorizationRequests.id, form.request_id),
        eq(oauthAuthorizationRequests.csrfHash, sha256Hex(form.csrf_token)),
        eq(oauthAuthorizationRequests.sessionId, principal.sessionId),
        isNull(oauthAuthorizationRequests.usedAt),
        gt(oauthAuthorizationRequests.expiresAt, now),
      ),
    )
    .returning();
  if (!request) return stale;
  const state = request.state ?? undefined;
  if (form.decision === "deny")
    return {
      kind: "redirect",
      location: clientRedirect(deps, request.redirectUri, { error: "access_denied", error_description: "The user denied access.", state }),
    };
  const orgId = form.org_id ?? (principal.memberships.length === 1 ? principal.memberships[0]!.orgId : undefined);
  if (!orgId || !principal.memberships.some((m) => m.orgId === orgId))
    return { kind: "error_page", status: 400, title: "Choose an organisation", message: "Choose one of your organisations. Start again from the application." };
  const code = await issueCode(deps, {
    clientId: request.clientId,
    memberId: principal.member.id,
    orgId,
    scopes: request.scopes,
    resource: request.resource,
    redirectUri: request.redirectUri,
    redirectUriGiven: request.redirectUriGiven,
    codeChallenge: request.codeChallenge,
  });
  return { kind: "redirect", location: clientRedirect(deps, request.redirectUri, { code, state }) };
}
