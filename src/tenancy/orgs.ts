// The `orgs` table: its reads and writes for every room that needs an org's name, settings,
// business hours or identity secrets, and `orgNames`, the columns another owner may join its own
// rows with (docs/decisions.md "Storage behind each owner": this folder stands just above `deps`,
// below every reader). The rules (who may change what, the activity log, invalidation) stay with
// the callers in src/orgs/; these functions only store and read.
import { eq, sql } from "drizzle-orm";
import { QueryBuilder } from "drizzle-orm/pg-core";
import type { Conn } from "../db/client.ts";
import { orgs } from "../db/schema/index.ts";

/** An org's id, name and creation time, to join with: `innerJoin(orgNames, eq(orgNames.id, …))`. */
export const orgNames = new QueryBuilder().select({ id: orgs.id, name: orgs.name, isDemo: orgs.isDemo, createdAt: orgs.createdAt }).from(orgs).as("org_names");

/** What the service stores for a new org (its id is chosen by the caller). */
export type NewOrg = Pick<typeof orgs.$inferInsert, "id" | "name" | "featureFlags" | "identitySecret" | "isDemo">;

/** The columns of an org a writer in src/orgs/ changes; `updatedAt` always with them. */
export type OrgChange = Partial<
  Pick<typeof orgs.$inferInsert, "identityVerification" | "identitySecret" | "identitySecretPrevious" | "identitySecretPreviousUntil" | "businessHours">
> & { updatedAt: Date };

export async function insertOrg(db: Conn, org: NewOrg): Promise<void> {
  await db.insert(orgs).values(org);
}

/** Applies a change; false for an unknown org. */
export async function updateOrg(db: Conn, orgId: string, change: OrgChange): Promise<boolean> {
  const rows = await db.update(orgs).set(change).where(eq(orgs.id, orgId)).returning({ id: orgs.id });
  return rows.length > 0;
}

/**
 * Locks the org row for the rest of the transaction: writes that must see the org's other rows
 * unchanged (membership changes, an agent's activation, a secret's rotation) run one at a time.
 * False for an unknown org.
 */
export async function lockOrg(tx: Conn, orgId: string): Promise<boolean> {
  const [org] = await tx.select({ id: orgs.id }).from(orgs).where(eq(orgs.id, orgId)).for("update");
  return Boolean(org);
}

/** The org's name, or null for an unknown org. */
export async function orgName(db: Conn, orgId: string): Promise<string | null> {
  const [org] = await db.select({ name: orgs.name }).from(orgs).where(eq(orgs.id, orgId));
  return org?.name ?? null;
}

/** The org's name under its row's lock (a writer that reads it into what it stores). */
export async function lockedOrgName(tx: Conn, orgId: string): Promise<string | null> {
  const [org] = await tx.select({ name: orgs.name }).from(orgs).where(eq(orgs.id, orgId)).for("update");
  return org?.name ?? null;
}

/** The org's name and public settings, or null for an unknown org. */
export async function orgProfile(db: Conn, orgId: string): Promise<{ name: string; settings: Record<string, unknown> } | null> {
  const [org] = await db.select({ name: orgs.name, settings: orgs.settings }).from(orgs).where(eq(orgs.id, orgId));
  return org ?? null;
}

/** The org's business hours as stored; null: none set; undefined: no such org. */
export async function orgBusinessHours(db: Conn, orgId: string): Promise<Record<string, unknown> | null | undefined> {
  const [org] = await db.select({ hours: orgs.businessHours }).from(orgs).where(eq(orgs.id, orgId));
  return org === undefined ? undefined : org.hours;
}

/** The org's identity verification setting and its secrets as stored (encrypted), or null for an unknown org. */
export async function storedIdentitySecrets(db: Conn, orgId: string, lock = false) {
  const query = db
    .select({
      enabled: orgs.identityVerification,
      current: orgs.identitySecret,
      previous: orgs.identitySecretPrevious,
      previousUntil: orgs.identitySecretPreviousUntil,
      updatedAt: orgs.updatedAt,
    })
    .from(orgs)
    .where(eq(orgs.id, orgId));
  const [org] = lock ? await query.for("update") : await query;
  return org ?? null;
}

/**
 * Sets one flag under the org row's lock: the flags before and after, or null for an unknown org.
 * The merge is the database's (`||` on jsonb), so a concurrent change of another flag is kept.
 */
export async function setStoredFlag(
  tx: Conn,
  orgId: string,
  flag: string,
  enabled: boolean,
  now: Date,
): Promise<{ before: Record<string, boolean>; after: Record<string, boolean> } | null> {
  const [before] = await tx.select({ flags: orgs.featureFlags }).from(orgs).where(eq(orgs.id, orgId)).for("update");
  if (!before) return null;
  const [row] = await tx
    .update(orgs)
    .set({ featureFlags: sql`${orgs.featureFlags} || ${JSON.stringify({ [flag]: enabled })}::jsonb`, updatedAt: now })
    .where(eq(orgs.id, orgId))
    .returning({ flags: orgs.featureFlags });
  return { before: before.flags, after: row!.flags };
}

/** Whether any org exists (the demo seed runs on an empty database only). */
export async function anyOrg(db: Conn): Promise<boolean> {
  const [org] = await db.select({ id: orgs.id }).from(orgs).limit(1);
  return Boolean(org);
}

/** The language (ISO 639-1) the org's customers are addressed in when nothing says theirs; "en" for an unknown org. */
export async function orgDefaultLanguage(db: Conn, orgId: string): Promise<string> {
  const [org] = await db.select({ language: orgs.defaultLanguage }).from(orgs).where(eq(orgs.id, orgId));
  return org?.language ?? "en";
}
