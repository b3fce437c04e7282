// Identity verification settings and publishable widget keys of an org (docs/interface.md 5): the writes
// to `orgs` (identity columns) and `widget_keys` live here, with the org's other tables; the
// dashboard API over them is src/sdk/settings-routes.ts (role org:manage). Every change is in
// the activity log.
import { randomBytes } from "node:crypto";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import { widgetKeys } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import { lockOrg, storedIdentitySecrets, updateOrg } from "../tenancy/orgs.ts";
import { identitySecretContext, WIDGET_KEY_PREFIX } from "./service.ts";

export const WIDGET_KEY_LIMITS = {
  label: 100,
  /** Live (unrevoked) widget keys per org. */
  live: 20,
} as const;

/**
 * How long the previous identity secret keeps verifying after a rotation: the overlap a webhook's
 * previous signing secret has (README "Webhooks"), long enough to switch every backend that signs
 * `user_token`s, short enough that a leaked secret does not outlive a rotation for long.
 */
export const IDENTITY_ROTATION_OVERLAP_MS = 24 * 3600_000;

/** Whether a previous secret still verifies at `now`: set, and before the end of its overlap. */
export function previousSecretLive(org: { previous: string | null; previousUntil: Date | null }, now: Date): boolean {
  return org.previous !== null && org.previousUntil !== null && org.previousUntil.getTime() > now.getTime();
}

async function orgRow(deps: Pick<Deps, "db">, orgId: string) {
  const org = await storedIdentitySecrets(deps.db, orgId);
  if (!org) throw AppError.notFound("No such organisation.");
  return org;
}

export async function identityView(deps: Pick<Deps, "db" | "now">, orgId: string) {
  const org = await orgRow(deps, orgId);
  const live = previousSecretLive(org, deps.now());
  return { enabled: org.enabled, has_previous_secret: live, previous_secret_expires_at: live ? org.previousUntil!.toISOString() : null };
}

/** Switches verification on or off (the dashboard and `org identity --on|--off`). */
export async function setIdentityVerification(deps: Pick<Deps, "db" | "now">, orgId: string, actor: Actor, enabled: boolean) {
  const before = await orgRow(deps, orgId);
  await updateOrg(deps.db, orgId, { identityVerification: enabled, updatedAt: deps.now() });
  await recordActivity(deps, {
    orgId,
    actor,
    action: "identity_verification.switched",
    objectType: "org",
    objectId: orgId,
    summary: { from: before.enabled, to: enabled },
  });
  return identityView(deps, orgId);
}

/**
 * A new current secret; the old one becomes the previous secret and keeps verifying for
 * IDENTITY_ROTATION_OVERLAP_MS (or until cleared), so the org's backends can be switched over
 * without refusing anyone (docs/interface.md D). A previous secret still set from an earlier rotation is
 * dropped. The new secret is returned this once.
 */
export async function rotateIdentitySecret(deps: Pick<Deps, "cipher" | "db" | "now">, orgId: string, actor: Actor) {
  const secret = randomBytes(32).toString("base64url");
  await deps.db.transaction(async (tx) => {
    const org = await storedIdentitySecrets(tx, orgId, true);
    if (!org) throw AppError.notFound("No such organisation.");
    const current = deps.cipher.decrypt(org.current, identitySecretContext(orgId));
    await updateOrg(tx, orgId, {
      identitySecret: deps.cipher.encrypt(secret, identitySecretContext(orgId)),
      identitySecretPrevious: deps.cipher.encrypt(current, identitySecretContext(orgId, "identity_secret_previous")),
      identitySecretPreviousUntil: new Date(deps.now().getTime() + IDENTITY_ROTATION_OVERLAP_MS),
      updatedAt: deps.now(),
    });
  });
  await recordActivity(deps, { orgId, actor, action: "identity_secret.rotated", objectType: "org", objectId: orgId });
  return { ...(await identityView(deps, orgId)), identity_secret: secret };
}

export async function clearPreviousIdentitySecret(deps: Pick<Deps, "db" | "now">, orgId: string, actor: Actor) {
  await orgRow(deps, orgId);
  await updateOrg(deps.db, orgId, { identitySecretPrevious: null, identitySecretPreviousUntil: null, updatedAt: deps.now() });
  await recordActivity(deps, { orgId, actor, action: "identity_secret.previous_cleared", objectType: "org", objectId: orgId });
  return identityView(deps, orgId);
}

type WidgetKey = typeof widgetKeys.$inferSelect;

/** Keys are publishable (shown in the install snippet), so the dashboard shows them in full. */
export function widgetKeyView(key: WidgetKey) {
  return { id: key.id, key: key.key, label: key.label, created_at: key.createdAt.toISOString(), revoked_at: key.revokedAt?.toISOString() ?? null };
}

export async function listWidgetKeys(deps: Pick<Deps, "db">, orgId: string) {
  const rows = await deps.db.select().from(widgetKeys).where(eq(widgetKeys.orgId, orgId)).orderBy(asc(widgetKeys.createdAt), asc(widgetKeys.id));
  return rows.map(widgetKeyView);
}

export async function createWidgetKey(deps: Pick<Deps, "db" | "invalidation" | "now">, orgId: string, actor: Actor, label: string) {
  // Counted and inserted under a lock on the org row: creates at the same moment cannot both see
  // room for one more key and pass the limit together.
  const key = await deps.db.transaction(async (tx) => {
    await lockOrg(tx, orgId);
    const live = await tx
      .select({ id: widgetKeys.id })
      .from(widgetKeys)
      .where(and(eq(widgetKeys.orgId, orgId), isNull(widgetKeys.revokedAt)));
    if (live.length >= WIDGET_KEY_LIMITS.live)
      throw new AppError(409, "too_many_keys", `An organisation may have at most ${WIDGET_KEY_LIMITS.live} live widget keys: revoke one first.`);
    const [created] = await tx
      .insert(widgetKeys)
      .values({ orgId, key: WIDGET_KEY_PREFIX + randomBytes(24).toString("base64url"), label, createdAt: deps.now() })
      .returning();
    await recordActivity(
      { db: tx, now: deps.now },
      { orgId, actor, action: "widget_key.created", objectType: "widget_key", objectId: created!.id, summary: { label } },
    );
    return created!;
  });
  deps.invalidation.publish("widget_keys", orgId);
  return widgetKeyView(key);
}

/** Revokes a key at once: the next request presenting it is 401. Revoking twice is harmless. */
export async function revokeWidgetKey(deps: Pick<Deps, "db" | "invalidation" | "now">, orgId: string, actor: Actor, keyId: string) {
  if (!isUuid(keyId)) throw AppError.notFound("No such widget key.");
  const [key] = await deps.db
    .select()
    .from(widgetKeys)
    .where(and(eq(widgetKeys.orgId, orgId), eq(widgetKeys.id, keyId)));
  if (!key) throw AppError.notFound("No such widget key.");
  if (key.revokedAt) return widgetKeyView(key);
  const [revoked] = await deps.db
    .update(widgetKeys)
    .set({ revokedAt: deps.now() })
    .where(and(eq(widgetKeys.orgId, orgId), eq(widgetKeys.id, keyId)))
    .returning();
  deps.invalidation.publish("widget_keys", orgId);
  await recordActivity(deps, { orgId, actor, action: "widget_key.revoked", objectType: "widget_key", objectId: keyId });
  return widgetKeyView(revoked!);
}
