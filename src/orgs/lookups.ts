// Small reads of the org and its members for the rooms above (the SDK, the setup tools): what
// they show or check, never the secrets in clear (src/sdk/identity.ts decrypts what it is given).
import { and, eq, isNull } from "drizzle-orm";
import { memberships, orgs, widgetKeys } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";

/** The org's name and public settings, or null for an unknown org. */
export async function orgProfile(deps: Deps, orgId: string) {
  const [org] = await deps.db.select({ name: orgs.name, settings: orgs.settings }).from(orgs).where(eq(orgs.id, orgId));
  return org ?? null;
}

/** The org's identity verification setting and its secrets as stored (encrypted), or null for an unknown org. */
export async function storedIdentitySecrets(deps: Deps, orgId: string) {
  const [org] = await deps.db
    .select({
      enabled: orgs.identityVerification,
      current: orgs.identitySecret,
      previous: orgs.identitySecretPrevious,
      previousUntil: orgs.identitySecretPreviousUntil,
    })
    .from(orgs)
    .where(eq(orgs.id, orgId));
  return org ?? null;
}

/** The roles a member holds in the org, or null when they are not a member. */
export async function memberRoles(deps: Deps, orgId: string, memberId: string): Promise<string[] | null> {
  const [membership] = await deps.db
    .select({ roles: memberships.roles })
    .from(memberships)
    .where(and(eq(memberships.orgId, orgId), eq(memberships.memberId, memberId)));
  return membership?.roles ?? null;
}

/** The org's live widget keys, oldest first. */
export async function liveWidgetKeys(deps: Deps, orgId: string) {
  return deps.db
    .select({ id: widgetKeys.id, key: widgetKeys.key, label: widgetKeys.label })
    .from(widgetKeys)
    .where(and(eq(widgetKeys.orgId, orgId), isNull(widgetKeys.revokedAt)))
    .orderBy(widgetKeys.createdAt, widgetKeys.id);
}

/** The org's members with their dashboard roles. */
export async function orgMemberRoles(deps: Deps, orgId: string): Promise<{ memberId: string; roles: string[] }[]> {
  return deps.db.select({ memberId: memberships.memberId, roles: memberships.roles }).from(memberships).where(eq(memberships.orgId, orgId));
}

/** A widget key that is not revoked, by its value (the widget key cache in src/sdk/auth.ts loads through it). */
export async function liveWidgetKey(deps: Pick<Deps, "db">, key: string): Promise<{ id: string; orgId: string } | null> {
  const [row] = await deps.db
    .select({ id: widgetKeys.id, orgId: widgetKeys.orgId })
    .from(widgetKeys)
    .where(and(eq(widgetKeys.key, key), isNull(widgetKeys.revokedAt)))
    .limit(1);
  return row ?? null;
}
