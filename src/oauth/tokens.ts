// Issuing: authorization codes for a consented grant, and the code exchange for access and
// refresh tokens (RFC 6749 section 4.1, OAuth 2.1). Every token is 256 random bits after its prefix
// (docs/interface.md 2.4) and stored as SHA-256 only. Rotation is in rotation.ts, revocation in revocation.ts,
// verification in verify.ts, grants in grants.ts.
import { and, eq, isNull, lte } from "drizzle-orm";
import { memberActor, systemActor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import { mintToken, sha256Hex } from "../crypto/tokens.ts";
import type { Db } from "../db/client.ts";
import { oauthAuthorizationRequests, oauthClients, oauthCodes, oauthGrants, oauthTokens } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { CHALLENGE, VERIFIER, verifierMatches } from "./checks/pkce.ts";
import type { Client } from "./clients.ts";
import { OAuthError } from "./errors.ts";
import { revokeGrant } from "./grants.ts";

export const ACCESS_TOKEN_PREFIX = "svc_at_";
export const REFRESH_TOKEN_PREFIX = "svc_rt_";
export const CODE_PREFIX = "svc_ac_";
/** Interface docs/interface.md 2.4: authorization codes live 5 minutes. */
export const CODE_TTL_MS = 5 * 60_000;

export interface GrantRequest {
  clientId: string;
  memberId: string;
  orgId: string;
  scopes: string[];
  resource: string;
  redirectUri: string;
  redirectUriGiven: boolean;
  codeChallenge: string;
}

/** Records what the member allowed and returns a one-time authorization code for it. */
export async function issueCode(deps: Pick<Deps, "db" | "now">, request: GrantRequest): Promise<string> {
  const code = mintToken(CODE_PREFIX);
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    const [grant] = await tx
      .insert(oauthGrants)
      .values({
        clientId: request.clientId,
        memberId: request.memberId,
        orgId: request.orgId,
        scopes: request.scopes,
        resource: request.resource,
        createdAt: now,
      })
      .returning({ id: oauthGrants.id });
    await recordActivity(
      { db: tx, now: deps.now },
      {
        orgId: request.orgId,
        actor: memberActor(request.memberId),
        action: "oauth_grant.created",
        objectType: "oauth_grant",
        objectId: grant!.id,
        summary: { client_id: request.clientId, scopes: request.scopes },
      },
    );
    await tx.insert(oauthCodes).values({
      codeHash: sha256Hex(code),
      grantId: grant!.id,
      clientId: request.clientId,
      redirectUri: request.redirectUri,
      redirectUriGiven: request.redirectUriGiven,
      codeChallenge: request.codeChallenge,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    });
  });
  return code;
}

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/**
 * One access and one refresh token. The access token may carry fewer scopes than the refresh
 * token (a narrowing refresh); the refresh token keeps the scopes of the one it replaces (RFC 6749 section 6).
 */
export async function issueTokens(
  tx: Db,
  deps: Pick<Deps, "config" | "now">,
  grantId: string,
  clientId: string,
  scopes: string[],
  parentId: string | null,
  refreshScopes = scopes,
): Promise<TokenResponse> {
  const now = deps.now();
  const minted = mintTokens(deps, grantId, scopes, parentId, refreshScopes);
  await tx.insert(oauthTokens).values(minted.rows);
  await tx
    .update(oauthClients)
    .set({ firstTokenAt: now })
    .where(and(eq(oauthClients.id, clientId), isNull(oauthClients.firstTokenAt)));
  return minted.response;
}

/** A new access and refresh token pair: the rows to store (hashes only) and the answer to give. */
export function mintTokens(deps: Pick<Deps, "config" | "now">, grantId: string, scopes: string[], parentId: string | null, refreshScopes = scopes) {
  const now = deps.now();
  const access = mintToken(ACCESS_TOKEN_PREFIX);
  const refresh = mintToken(REFRESH_TOKEN_PREFIX);
  const rows: (typeof oauthTokens.$inferInsert)[] = [
    {
      tokenHash: sha256Hex(access),
      kind: "access",
      grantId,
      scopes,
      createdAt: now,
      expiresAt: new Date(now.getTime() + deps.config.oauthAccessTokenTtlSeconds * 1000),
    },
    {
      tokenHash: sha256Hex(refresh),
      kind: "refresh",
      grantId,
      scopes: refreshScopes,
      parentId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + deps.config.oauthRefreshTokenTtlDays * 86_400_000),
    },
  ];
  const response: TokenResponse = {
    access_token: access,
    token_type: "Bearer",
    expires_in: deps.config.oauthAccessTokenTtlSeconds,
    refresh_token: refresh,
    scope: scopes.join(" "),
  };
  return { rows, response };
}

export function checkResource(given: string | undefined, expected: string) {
  // RFC 8707 section 2.2: the resource of a token request must be one the grant covers.
  if (given !== undefined && given !== expected) throw new OAuthError("invalid_target", `resource must be ${expected}.`);
}

/** RFC 6749 section 4.1.3 with PKCE (RFC 7636 section 4.5–4.6). Every check runs before the code is consumed. */
export async function exchangeCode(
  deps: Pick<Deps, "accessTokens" | "config" | "db" | "now">,
  client: Client,
  params: Record<string, string>,
): Promise<TokenResponse> {
  if (!params.code) throw new OAuthError("invalid_request", "code is required.");
  if (params.code_verifier === undefined) throw new OAuthError("invalid_request", "code_verifier is required (PKCE).");
  const now = deps.now();
  const [row] = await deps.db
    .select({ code: oauthCodes, grant: oauthGrants })
    .from(oauthCodes)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthCodes.grantId))
    .where(eq(oauthCodes.codeHash, sha256Hex(params.code)));
  if (!row) throw new OAuthError("invalid_grant", "The authorization code is invalid.");
  const { code, grant } = row;
  if (code.clientId !== client.id) throw new OAuthError("invalid_grant", "The authorization code was issued to another client.");
  if (code.consumedAt) {
    // RFC 6749 section 4.1.2: a code used twice revokes the tokens issued from it.
    await revokeGrant(deps, grant.id, systemActor("oauth"), "code_reused");
    throw new OAuthError("invalid_grant", "The authorization code has already been used; the tokens issued from it are revoked.");
  }
  if (code.expiresAt <= now) throw new OAuthError("invalid_grant", "The authorization code has expired.");
  if ((code.redirectUriGiven || params.redirect_uri !== undefined) && params.redirect_uri !== code.redirectUri)
    throw new OAuthError("invalid_grant", "redirect_uri does not match the one in the authorization request.");
  checkResource(params.resource, grant.resource);
  if (!VERIFIER.test(params.code_verifier))
    throw new OAuthError("invalid_request", "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 section 4.1).");
  if (!CHALLENGE.test(code.codeChallenge) || !verifierMatches(params.code_verifier, code.codeChallenge))
    throw new OAuthError("invalid_grant", "code_verifier does not match code_challenge.");
  if (grant.revokedAt) throw new OAuthError("invalid_grant", "The grant behind this code has been revoked.");

  const issued = await deps.db.transaction(async (tx) => {
    const consumed = await tx
      .update(oauthCodes)
      .set({ consumedAt: now })
      .where(and(eq(oauthCodes.id, code.id), isNull(oauthCodes.consumedAt)))
      .returning({ id: oauthCodes.id });
    if (consumed.length === 0) return null; // a concurrent exchange consumed it first
    return issueTokens(tx, deps, grant.id, client.id, grant.scopes, null);
  });
  if (!issued) {
    await revokeGrant(deps, grant.id, systemActor("oauth"), "code_reused");
    throw new OAuthError("invalid_grant", "The authorization code has already been used; the tokens issued from it are revoked.");
  }
  return issued;
}

/** Removes what can never be used again: expired codes and tokens of every kind. */
export async function deleteExpiredOAuthState(deps: Pick<Deps, "db" | "now">): Promise<void> {
  const now = deps.now();
  await deps.db.delete(oauthAuthorizationRequests).where(lte(oauthAuthorizationRequests.expiresAt, now));
  await deps.db.delete(oauthCodes).where(lte(oauthCodes.expiresAt, now));
  await deps.db.delete(oauthTokens).where(lte(oauthTokens.expiresAt, now));
}
