// Refresh with rotation (RFC 6749 section 6, OAuth 2.1 section 4.3.1) and reuse detection (docs/interface.md A.12):
// every use issues a new refresh token whose parent is the one used. A refresh token stays valid
// until one of its successors is used for the first time (clients retry, and send the same token
// from parallel requests), plus a 10-second grace for requests already in flight; using it after
// that is reuse, which revokes the whole grant.
import { and, eq, sql } from "drizzle-orm";
import { systemActor } from "../kit/actor.ts";
import { sha256Hex } from "../crypto/tokens.ts";
import type { Db } from "../db/client.ts";
import { prepared } from "../db/prepared.ts";
import { oauthGrants, oauthTokens } from "../db/schema/index.ts";
import { membershipRoles } from "../tenancy/memberships.ts";
import type { Deps } from "../deps.ts";
import type { Client } from "./clients.ts";
import { OAuthError } from "./errors.ts";
import { revokeGrant } from "./grants.ts";
import { parseScope } from "./scopes.ts";
import { checkResource, mintTokens, type TokenResponse } from "./tokens.ts";

/**
 * A refresh token whose successor has been used is still honoured for this long (parallel
 * refreshes race); after that, presenting it is reuse and revokes the grant.
 */
export const REFRESH_REUSE_GRACE_MS = 10_000;

type TokenRow = typeof oauthTokens.$inferInsert;

/**
 * The two statements of every refresh, built once per process and prepared (src/db/prepared.ts;
 * docs/decisions.md "Performance": building them through the query builder cost more CPU than
 * PostgreSQL spent running them).
 * One read: the token, its grant, and whether the member who granted it still belongs to the org.
 */
const refreshLookup = (db: Db) =>
  db
    .select({ token: oauthTokens, grant: oauthGrants, memberOrg: membershipRoles.orgId })
    .from(oauthTokens)
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .leftJoin(membershipRoles, and(eq(membershipRoles.memberId, oauthGrants.memberId), eq(membershipRoles.orgId, oauthGrants.orgId)))
    .where(and(eq(oauthTokens.tokenHash, sql.placeholder("hash")), eq(oauthTokens.kind, "refresh")))
    .prepare("oauth_refresh_lookup");

const ROTATED_COLUMNS = ["tokenHash", "kind", "grantId", "scopes", "parentId", "createdAt", "expiresAt"] as const;

/**
 * One statement, so one round trip and one commit: the new pair, and the parent of the token
 * used marked superseded (its successor — the token used — is now in use: docs/interface.md A.12).
 */
const rotateStatement = (db: Db) => {
  const superseded = db
    .$with("superseded", { id: oauthTokens.id })
    .as(
      sql`update ${oauthTokens} set superseded_at = ${sql.placeholder("now")}::timestamptz where id = ${sql.placeholder("usedParent")} and superseded_at is null returning id`,
    );
  const row = (prefix: string) => Object.fromEntries(ROTATED_COLUMNS.map((c) => [c, sql.placeholder(`${prefix}_${c}`)])) as unknown as TokenRow;
  return db
    .with(superseded)
    .insert(oauthTokens)
    .values([row("access"), row("refresh")])
    .prepare("oauth_refresh_rotate");
};

export async function refreshTokens(
  deps: Pick<Deps, "accessTokens" | "config" | "db" | "now" | "statements">,
  client: Client,
  params: Record<string, string>,
): Promise<TokenResponse> {
  if (!params.refresh_token) throw new OAuthError("invalid_request", "refresh_token is required.");
  const now = deps.now();
  const [row] = await prepared(deps, "oauth_refresh_lookup", refreshLookup).execute({ hash: sha256Hex(params.refresh_token) });
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
  if (row.memberOrg === null) {
    await revokeGrant(deps, grant.id, systemActor("oauth"), "member_left_org");
    throw new OAuthError("invalid_grant", "The member who granted access no longer belongs to the organisation.");
  }
  // The client already obtained a token (this refresh token), so its first_token_at needs no update.
  const minted = mintTokens(deps, grant.id, scopes, token.id, token.scopes);
  const [access, refresh] = minted.rows as [TokenRow, TokenRow];
  await prepared(deps, "oauth_refresh_rotate", rotateStatement).execute({
    now: now.toISOString(),
    usedParent: token.parentId,
    ...Object.fromEntries(
      ROTATED_COLUMNS.flatMap((c) => [
        [`access_${c}`, access[c] ?? null],
        [`refresh_${c}`, refresh[c] ?? null],
      ]),
    ),
  });
  return minted.response;
}
