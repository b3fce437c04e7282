// Access-token verification for the tool server (through the cache in token-cache.ts): a token
// is live while it is unexpired, neither it nor its grant is revoked, and its member still
// belongs to the grant's org.
import type { AccessContext } from "../ports/caches.ts";
import { and, eq, isNull } from "drizzle-orm";
import { oauthGrants, oauthTokens } from "../db/schema/index.ts";
import { membershipRoles } from "../tenancy/memberships.ts";
import type { Deps } from "../deps.ts";

export type { AccessContext };

/** The live access token with this SHA-256, or null for anything else. */
export async function verifyAccessTokenHash(deps: Pick<Deps, "db" | "now">, tokenHash: string): Promise<AccessContext | null> {
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
    .innerJoin(membershipRoles, and(eq(membershipRoles.memberId, oauthGrants.memberId), eq(membershipRoles.orgId, oauthGrants.orgId)))
    .where(and(eq(oauthTokens.tokenHash, tokenHash), eq(oauthTokens.kind, "access"), isNull(oauthTokens.revokedAt), isNull(oauthGrants.revokedAt)));
  if (!row || row.expiresAt <= deps.now()) return null;
  return row;
}
