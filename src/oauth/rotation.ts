// Refresh with rotation (RFC 6749 §6, OAuth 2.1 §4.3.1) and reuse detection (INTEROP A.12):
// every use issues a new refresh token whose parent is the one used. A refresh token stays valid
// until one of its successors is used for the first time (clients retry, and send the same token
// from parallel requests), plus a 10-second grace for requests already in flight; using it after
// that is reuse, which revokes the whole grant.
import { and, eq, isNull } from "drizzle-orm";
import { systemActor } from "../activity/actor.ts";
import { sha256Hex } from "../crypto/tokens.ts";
import type { Db } from "../db/client.ts";
import { memberships, oauthGrants, oauthTokens } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import type { Client } from "./clients.ts";
import { OAuthError } from "./errors.ts";
import { revokeGrant } from "./grants.ts";
import { parseScope } from "./scopes.ts";
import { checkResource, issueTokens, type TokenResponse } from "./tokens.ts";

/**
 * A refresh token whose successor has been used is still honoured for this long (parallel
 * refreshes race); after that, presenting it is reuse and revokes the grant.
 */
export const REFRESH_REUSE_GRACE_MS = 10_000;

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
    await revokeGrant(deps, grant.id, systemActor("oauth"), "refresh_token_reused");
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
    await revokeGrant(deps, grant.id, systemActor("oauth"), "member_left_org");
    throw new OAuthError("invalid_grant", "The member who granted access no longer belongs to the organisation.");
  }
  return deps.db.transaction(async (tx) => {
    if (token.parentId)
      await tx.update(oauthTokens).set({ supersededAt: now }).where(and(eq(oauthTokens.id, token.parentId), isNull(oauthTokens.supersededAt)));
    return issueTokens(tx as unknown as Db, deps, grant.id, client.id, scopes, token.id, token.scopes);
  });
}
