// Grants: what a member allowed a client to do in one org (tokens hang off a grant; revoking it
// ends them all). Whether a live one exists (consent may be skipped), revocation with the actor
// and the reason recorded in the activity log, and the dashboard's list of connected apps.
import { and, desc, eq, gt, isNull } from "drizzle-orm";
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import { oauthClients, oauthGrants, oauthTokens } from "../db/schema/index.ts";
import { memberCards } from "../tenancy/members.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import { sameScopes } from "./scopes.ts";

/** Does this client hold a live grant for this member, org, scopes and resource? (Consent may then be skipped.) */
export async function hasLiveGrant(
  deps: Pick<Deps, "db" | "now">,
  g: { clientId: string; memberId: string; orgId: string; scopes: string[]; resource: string },
): Promise<boolean> {
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

/** Why a grant ended, as the activity log shows it. */
export type RevocationReason = "revoked_by_member" | "revoked_by_client" | "code_reused" | "refresh_token_reused" | "member_left_org";

/** Ends the grant and every token under it; recorded once (a grant already revoked is left as it is). */
export async function revokeGrant(deps: Pick<Deps, "accessTokens" | "db" | "now">, grantId: string, actor: Actor, reason: RevocationReason): Promise<void> {
  const [revoked] = await deps.db
    .update(oauthGrants)
    .set({ revokedAt: deps.now() })
    .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)))
    .returning({ orgId: oauthGrants.orgId, clientId: oauthGrants.clientId, memberId: oauthGrants.memberId });
  if (!revoked) return;
  // Read-your-writes: the next request on any instance looks its token up again.
  deps.accessTokens.invalidate();
  await recordActivity(deps, {
    orgId: revoked.orgId,
    actor,
    action: "oauth_grant.revoked",
    objectType: "oauth_grant",
    objectId: grantId,
    summary: { client_id: revoked.clientId, member_id: revoked.memberId, reason },
  });
}

/**
 * The org's live grants (connected apps) for the dashboard: a member sees their own; with
 * `everyone` (org:manage) every member's.
 */
export async function listGrants(deps: Pick<Deps, "db">, orgId: string, memberId: string, everyone: boolean) {
  const rows = await deps.db
    .select({ grant: oauthGrants, clientName: oauthClients.name, email: memberCards.email })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .innerJoin(memberCards, eq(memberCards.id, oauthGrants.memberId))
    .where(and(eq(oauthGrants.orgId, orgId), isNull(oauthGrants.revokedAt), ...(everyone ? [] : [eq(oauthGrants.memberId, memberId)])))
    .orderBy(desc(oauthGrants.createdAt));
  return {
    grants: rows.map(({ grant, clientName, email }) => ({
      id: grant.id,
      client: { id: grant.clientId, name: clientName },
      member: { id: grant.memberId, email },
      scopes: grant.scopes,
      resource: grant.resource,
      created_at: grant.createdAt.toISOString(),
    })),
  };
}

/** A member revokes one of their own grants, or (with org:manage) anyone's in the org. 404 otherwise. */
export async function revokeGrantOfOrg(
  deps: Pick<Deps, "accessTokens" | "db" | "now">,
  orgId: string,
  memberId: string,
  everyone: boolean,
  grantId: string,
): Promise<void> {
  if (!isUuid(grantId)) throw AppError.notFound("No such grant.");
  const [grant] = await deps.db
    .select({ id: oauthGrants.id, memberId: oauthGrants.memberId })
    .from(oauthGrants)
    .where(and(eq(oauthGrants.id, grantId), eq(oauthGrants.orgId, orgId), isNull(oauthGrants.revokedAt)));
  if (!grant || (!everyone && grant.memberId !== memberId)) throw AppError.notFound("No such grant.");
  await revokeGrant(deps, grant.id, { kind: "member", memberId }, "revoked_by_member");
}
