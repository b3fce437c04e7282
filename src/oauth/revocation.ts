// RFC 7009 token revocation by the client: revoking a refresh token ends its grant (and every
// token under it); revoking an access token ends that token. Another client's token, or an
// unknown one, is left alone and still answered 200 (RFC 7009 section 2.2). The token presented acts.
import { and, eq, isNull } from "drizzle-orm";
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import { sha256Hex } from "../crypto/tokens.ts";
import { oauthGrants, oauthTokens } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import type { Client } from "./clients.ts";
import { revokeGrant } from "./grants.ts";
import { ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_PREFIX } from "./tokens.ts";

export async function revokeToken(deps: Pick<Deps, "accessTokens" | "db" | "now">, client: Client, token: string): Promise<void> {
  if (!token.startsWith(ACCESS_TOKEN_PREFIX) && !token.startsWith(REFRESH_TOKEN_PREFIX)) return;
  const [row] = await deps.db
    .select({
      id: oauthTokens.id,
      kind: oauthTokens.kind,
      scopes: oauthTokens.scopes,
      grantId: oauthTokens.grantId,
      clientId: oauthGrants.clientId,
      memberId: oauthGrants.memberId,
      orgId: oauthGrants.orgId,
    })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(eq(oauthTokens.tokenHash, sha256Hex(token)));
  if (!row || row.clientId !== client.id) return;
  const actor: Actor = { kind: "token", tokenId: row.id, clientId: row.clientId, memberId: row.memberId, scopes: row.scopes };
  if (row.kind === "refresh") return revokeGrant(deps, row.grantId, actor, "revoked_by_client");
  const [revoked] = await deps.db
    .update(oauthTokens)
    .set({ revokedAt: deps.now() })
    .where(and(eq(oauthTokens.id, row.id), isNull(oauthTokens.revokedAt)))
    .returning({ id: oauthTokens.id });
  if (!revoked) return;
  deps.accessTokens.invalidate(); // read-your-writes
  await recordActivity(deps, {
    orgId: row.orgId,
    actor,
    action: "oauth_token.revoked",
    objectType: "oauth_grant",
    objectId: row.grantId,
    summary: { client_id: row.clientId, kind: "access" },
  });
}
