// Grants, authorization codes, access and refresh tokens (RFC 6749 §4.1, §6; OAuth 2.1).
// Every token is 256 random bits after its prefix (§2.4) and stored as SHA-256 only.
//
// Refresh rotation (INTEROP A.12): every use issues a new refresh token whose parent is the one
// used. A refresh token stays valid until one of its successors is used for the first time
// (clients retry, and send the same token from parallel requests), plus a 10-second grace for
// requests already in flight; using it after that is reuse, which revokes the whole grant.
import { and, eq, gt, isNull, lte } from "drizzle-orm";
import { mintToken, sha256Hex } from "../crypto/tokens.ts";
import type { Db } from "../db/client.ts";
import { memberships, oauthAuthorizationRequests, oauthClients, oauthCodes, oauthGrants, oauthTokens } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { CHALLENGE, VERIFIER, verifierMatches } from "./checks/pkce.ts";
import type { Client } from "./clients.ts";
import { OAuthError } from "./errors.ts";
import { parseScope, sameScopes } from "./scopes.ts";

export const ACCESS_TOKEN_PREFIX = "svc_at_";
export const REFRESH_TOKEN_PREFIX = "svc_rt_";
export const CODE_PREFIX = "svc_ac_";
/**
 * A refresh token whose successor has been used is still honoured for this long (parallel
 * refreshes race); after that, presenting it is reuse and revokes the grant.
 */
export const REFRESH_REUSE_GRACE_MS = 10_000;
/** Interface §2.4: authorization codes live 5 minutes. */
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
export async function issueCode(deps: Deps, request: GrantRequest): Promise<string> {
  const code = mintToken(CODE_PREFIX);
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    const [grant] = await tx
      .insert(oauthGrants)
      .values({ clientId: request.clientId, memberId: request.memberId, orgId: request.orgId, scopes: request.scopes, resource: request.resource, createdAt: now })
      .returning({ id: oauthGrants.id });
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

/** Does this client hold a live grant for this member, org, scopes and resource? (Consent may then be skipped.) */
export async function hasLiveGrant(deps: Deps, g: { clientId: string; memberId: string; orgId: string; scopes: string[]; resource: string }): Promise<boolean> {
  const now = deps.now();
  const rows = await deps.db
    .select({ scopes: oauthGrants.scopes })
    .from(oauthGrants)
    .innerJoin(oauthTokens, eq(oauthTokens.grantId, oauthGrants.id))
    .where(
      and(
        eq(oauthGrants.clientId, g.clientId),
        eq(oauthGrants.memberId, g.memberId),
        eq(oauthGrants.orgId, g.orgId),
        eq(oauthGrants.resource, g.resource),
        isNull(oauthGrants.revokedAt),
        eq(oauthTokens.kind, "refresh"),
        isNull(oauthTokens.revokedAt),
        isNull(oauthTokens.supersededAt),
        gt(oauthTokens.expiresAt, now),
      ),
    );
  return rows.some((r) => sameScopes(r.scopes, g.scopes));
}

export async function revokeGrant(db: Db, grantId: string, now: Date): Promise<void> {
  await db.update(oauthGrants).set({ revokedAt: now }).where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)));
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
 * token (a narrowing refresh); the refresh token keeps the scopes of the one it replaces (RFC 6749 §6).
 */
async function issueTokens(tx: Db, deps: Deps, grantId: string, clientId: string, scopes: string[], parentId: string | null, refreshScopes = scopes): Promise<TokenResponse> {
  const now = deps.now();
  const access = mintToken(ACCESS_TOKEN_PREFIX);
  const refresh = mintToken(REFRESH_TOKEN_PREFIX);
  await tx.insert(oauthTokens).values([
    { tokenHash: sha256Hex(access), kind: "access", grantId, scopes, createdAt: now, expiresAt: new Date(now.getTime() + deps.config.oauthAccessTokenTtlSeconds * 1000) },
    { tokenHash: sha256Hex(refresh), kind: "refresh", grantId, scopes: refreshScopes, parentId, createdAt: now, expiresAt: new Date(now.getTime() + deps.config.oauthRefreshTokenTtlDays * 86_400_000) },
  ]);
  await tx.update(oauthClients).set({ firstTokenAt: now }).where(and(eq(oauthClients.id, clientId), isNull(oauthClients.firstTokenAt)));
  return { access_token: access, token_type: "Bearer", expires_in: deps.config.oauthAccessTokenTtlSeconds, refresh_token: refresh, scope: scopes.join(" ") };
}

function checkResource(given: string | undefined, expected: string) {
  // RFC 8707 §2.2: the resource of a token request must be one the grant covers.
  if (given !== undefined && given !== expected) throw new OAuthError("invalid_target", `resource must be ${expected}.`);
}

/** RFC 6749 §4.1.3 with PKCE (RFC 7636 §4.5–4.6). Every check runs before the code is consumed. */
export async function exchangeCode(deps: Deps, client: Client, params: Record<string, string>): Promise<TokenResponse> {
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
    // RFC 6749 §4.1.2: a code used twice revokes the tokens issued from it.
    await revokeGrant(deps.db, grant.id, now);
    throw new OAuthError("invalid_grant", "The authorization code has already been used; the tokens issued from it are revoked.");
  }
  if (code.expiresAt <= now) throw new OAuthError("invalid_grant", "The authorization code has expired.");
  if ((code.redirectUriGiven || params.redirect_uri !== undefined) && params.redirect_uri !== code.redirectUri)
    throw new OAuthError("invalid_grant", "redirect_uri does not match the one in the authorization request.");
  checkResource(params.resource, grant.resource);
  if (!VERIFIER.test(params.code_verifier)) throw new OAuthError("invalid_request", "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 §4.1).");
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
    return issueTokens(tx as unknown as Db, deps, grant.id, client.id, grant.scopes, null);
  });
  if (!issued) {
    await revokeGrant(deps.db, grant.id, now);
    throw new OAuthError("invalid_grant", "The authorization code has already been used; the tokens issued from it are revoked.");
  }
  return issued;
}

/** RFC 6749 §6, with rotation (OAuth 2.1 §4.3.1) and the reuse rule above. */
export async function refreshTokens(deps: Deps, client: Client, params: Record<string, string>): Promise<TokenResponse> {
  if (!params.refresh_token) throw new OAuthError("invalid_request", "refresh_token is required.");
  const now = deps.now();
  const [row] = await deps.db
    .select({ token: oauthTokens, grant: oauthGrants })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(and(eq(oauthTokens.tokenHash, sha256Hex(params.refresh_token)), eq(oauthTokens.kind, "refresh")));
  if (!row) throw new OAuthError("invalid_grant", "The refresh token is invalid.");
  const { token, grant } = row;
  if (grant.clientId !== client.id) throw new OAuthError("invalid_grant", "The refresh token was issued to another client.");
  if (token.revokedAt || grant.revokedAt) throw new OAuthError("invalid_grant", "The refresh token has been revoked.");
  // Reuse detection, with a short grace: clients refresh from several requests at once, and one
  // of them may present this token just after another already used its successor.
  if (token.supersededAt && now.getTime() - token.supersededAt.getTime() > REFRESH_REUSE_GRACE_MS) {
    await revokeGrant(deps.db, grant.id, now);
    throw new OAuthError("invalid_grant", "The refresh token was already rotated and its successor used; the grant has been revoked.");
  }
  if (token.expiresAt <= now) throw new OAuthError("invalid_grant", "The refresh token has expired.");
  checkResource(params.resource, grant.resource);
  let scopes = token.scopes;
  if (params.scope !== undefined) {
    const parsed = parseScope(params.scope);
    if ("unknown" in parsed || !parsed.scopes.every((s) => token.scopes.includes(s)))
      throw new OAuthError("invalid_scope", "The requested scope exceeds what was granted.");
    scopes = parsed.scopes;
  }
  const member = await deps.db
    .select({ orgId: memberships.orgId })
    .from(memberships)
    .where(and(eq(memberships.memberId, grant.memberId), eq(memberships.orgId, grant.orgId)));
  if (member.length === 0) {
    await revokeGrant(deps.db, grant.id, now);
    throw new OAuthError("invalid_grant", "The member who granted access no longer belongs to the organisation.");
  }
  return deps.db.transaction(async (tx) => {
    if (token.parentId)
      await tx.update(oauthTokens).set({ supersededAt: now }).where(and(eq(oauthTokens.id, token.parentId), isNull(oauthTokens.supersededAt)));
    return issueTokens(tx as unknown as Db, deps, grant.id, client.id, scopes, token.id, token.scopes);
  });
}

/** RFC 7009 §2.1: revoking a refresh token ends its grant; another client's token is left alone. */
export async function revokeToken(deps: Deps, client: Client, token: string): Promise<void> {
  if (!token.startsWith(ACCESS_TOKEN_PREFIX) && !token.startsWith(REFRESH_TOKEN_PREFIX)) return;
  const [row] = await deps.db
    .select({ id: oauthTokens.id, kind: oauthTokens.kind, grantId: oauthTokens.grantId, clientId: oauthGrants.clientId })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(eq(oauthTokens.tokenHash, sha256Hex(token)));
  if (!row || row.clientId !== client.id) return;
  const now = deps.now();
  if (row.kind === "refresh") await revokeGrant(deps.db, row.grantId, now);
  else await deps.db.update(oauthTokens).set({ revokedAt: now }).where(and(eq(oauthTokens.id, row.id), isNull(oauthTokens.revokedAt)));
}

export interface AccessContext {
  tokenId: string;
  grantId: string;
  clientId: string;
  memberId: string;
  orgId: string;
  scopes: string[];
  expiresAt: Date;
}

/** Looks up an access token. Null for anything not live: unknown, expired, revoked, or its member gone from the org. */
export async function verifyAccessToken(deps: Deps, token: string): Promise<AccessContext | null> {
  if (!token.startsWith(ACCESS_TOKEN_PREFIX) || token.length > 128) return null;
  return verifyAccessTokenHash(deps, sha256Hex(token));
}

export async function verifyAccessTokenHash(deps: Deps, tokenHash: string): Promise<AccessContext | null> {
  const [row] = await deps.db
    .select({
      tokenId: oauthTokens.id,
      grantId: oauthGrants.id,
      clientId: oauthGrants.clientId,
      memberId: oauthGrants.memberId,
      orgId: oauthGrants.orgId,
      scopes: oauthTokens.scopes,
      expiresAt: oauthTokens.expiresAt,
    })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .innerJoin(memberships, and(eq(memberships.memberId, oauthGrants.memberId), eq(memberships.orgId, oauthGrants.orgId)))
    .where(and(eq(oauthTokens.tokenHash, tokenHash), eq(oauthTokens.kind, "access"), isNull(oauthTokens.revokedAt), isNull(oauthGrants.revokedAt)));
  if (!row || row.expiresAt <= deps.now()) return null;
  return row;
}

/** Removes what can never be used again: expired codes and tokens of every kind. */
export async function deleteExpiredOAuthState(deps: Deps): Promise<void> {
  const now = deps.now();
  await deps.db.delete(oauthAuthorizationRequests).where(lte(oauthAuthorizationRequests.expiresAt, now));
  await deps.db.delete(oauthCodes).where(lte(oauthCodes.expiresAt, now));
  await deps.db.delete(oauthTokens).where(lte(oauthTokens.expiresAt, now));
}
