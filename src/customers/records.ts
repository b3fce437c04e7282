// Customers (end users), always within one org; their companies are in company-records.ts.
import type { BoundCustomer } from "../ports/tools.ts";
import { and, asc, desc, eq, ilike, inArray, isNull, or, type SQL } from "drizzle-orm";
import { companies, endUsers } from "../db/schema/index.ts";
import type { Tx } from "../db/client.ts";
import type { Deps } from "../deps.ts";
import { assertFreeForm } from "../http/free-form.ts";
import { isUuid } from "../kit/ids.ts";
import { emitWebhookEvent } from "../webhooks/events.ts";

export type EndUser = typeof endUsers.$inferSelect;

/** The customer a tool call acts for (MCP `_meta` binding, or the chatting customer): data tools then see only them. */
export type { BoundCustomer };
export type Company = typeof companies.$inferSelect;

/** A customer by our id or the org's external id. */
function userKey(idOrExternal: string): SQL {
  return isUuid(idOrExternal) ? or(eq(endUsers.id, idOrExternal), eq(endUsers.externalId, idOrExternal))! : eq(endUsers.externalId, idOrExternal);
}

/**
 * A customer by our id or the org's external id. Our id wins over an external id that happens to
 * look like one (anyone with the widget key chooses external ids), so a uuid-shaped user_id can
 * never stand in for the customer whose internal id it copies.
 */
export async function findEndUser(deps: Pick<Deps, "db">, orgId: string, idOrExternal: string): Promise<EndUser | null> {
  if (idOrExternal.length === 0 || idOrExternal.length > 256) return null;
  const [user] = await deps.db
    .select()
    .from(endUsers)
    .where(and(eq(endUsers.orgId, orgId), userKey(idOrExternal)))
    .orderBy(isUuid(idOrExternal) ? desc(eq(endUsers.id, idOrExternal)) : asc(endUsers.createdAt))
    .limit(1);
  return user ?? null;
}

/**
 * A customer by email. Several records can carry one address (an unverified visitor can type
 * anyone's): the verified one wins, then the oldest, never whichever the database meets first.
 */
export async function findEndUserByEmail(deps: Pick<Deps, "db">, orgId: string, email: string): Promise<EndUser | null> {
  if (email.length === 0 || email.length > 320) return null;
  const [user] = await deps.db
    .select()
    .from(endUsers)
    .where(and(eq(endUsers.orgId, orgId), eq(endUsers.email, email.trim().toLowerCase())))
    .orderBy(desc(endUsers.verified), asc(endUsers.createdAt), asc(endUsers.id))
    .limit(1);
  return user ?? null;
}

export function boundCustomerOf(user: EndUser): BoundCustomer {
  return { id: user.id, externalId: user.externalId, email: user.email, companyId: user.companyId, verified: user.verified };
}

export async function searchEndUsers(deps: Pick<Deps, "db">, orgId: string, query: string, limit: number): Promise<EndUser[]> {
  const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return deps.db
    .select()
    .from(endUsers)
    .where(
      and(
        eq(endUsers.orgId, orgId),
        query ? or(ilike(endUsers.name, pattern), ilike(endUsers.email, pattern), ilike(endUsers.externalId, pattern)) : undefined,
      ),
    )
    .limit(limit);
}

export function endUserView(user: EndUser) {
  return {
    id: user.id,
    ...(user.externalId ? { external_id: user.externalId } : {}),
    ...(user.email ? { email: user.email } : {}),
    name: user.name,
    traits: user.traits,
    ...(user.companyId ? { company_id: user.companyId } : {}),
    updated_at: user.updatedAt.toISOString(),
  };
}

/**
 * Traits after a merge, refused (400 validation_failed / -32602, naming the limit) when the patch
 * or the merged record exceeds FREE_FORM_LIMITS: every stored record, and so every read, stays
 * bounded (a 10,000-deep traits object once made each read ~200 MB).
 */
export function mergeTraits(current: Record<string, unknown>, patch: Record<string, unknown> | undefined): Record<string, unknown> {
  if (patch === undefined) return current;
  assertFreeForm(patch, "/traits");
  const merged = { ...current, ...patch };
  assertFreeForm(merged, "/traits");
  return merged;
}

export async function updateEndUser(
  deps: Pick<Deps, "db" | "now">,
  user: EndUser,
  patch: { name?: string; traits?: Record<string, unknown> },
): Promise<EndUser> {
  const [updated] = await deps.db
    .update(endUsers)
    .set({ ...(patch.name !== undefined ? { name: patch.name } : {}), traits: mergeTraits(user.traits, patch.traits), updatedAt: deps.now() })
    .where(and(eq(endUsers.orgId, user.orgId), eq(endUsers.id, user.id)))
    .returning();
  return updated!;
}

/** What an identify call may set on a customer; absent fields are left as stored. */
export interface CustomerFields {
  email?: string;
  name?: string;
  /** Our id of the company to link. */
  companyId?: string;
  /** Merged into the stored traits; the request wins on conflict (docs/interface.md 2.5, custom_fields). */
  traits?: Record<string, unknown>;
}

async function applyFields(db: Deps["db"] | Tx, now: Date, user: EndUser, fields: CustomerFields): Promise<EndUser> {
  const email = fields.email?.trim().toLowerCase();
  const traits = mergeTraits(user.traits, fields.traits);
  // Nothing changes (an event naming its user, a widget identifying the same customer on every page
  // load): no write, so repeated identifies cost reads only.
  const unchanged =
    (email === undefined || email === user.email) &&
    (fields.name === undefined || fields.name === user.name) &&
    (fields.companyId === undefined || fields.companyId === user.companyId) &&
    JSON.stringify(traits) === JSON.stringify(user.traits);
  if (unchanged) return user;
  // webhooks: customer.identified commits with the change it announces (a savepoint inside a caller's transaction)
  return (db as Deps["db"]).transaction(async (tx) => {
    const [updated] = await tx
      .update(endUsers)
      .set({
        ...(email !== undefined ? { email } : {}),
        ...(fields.name !== undefined ? { name: fields.name } : {}),
        ...(fields.companyId !== undefined ? { companyId: fields.companyId } : {}),
        traits,
        updatedAt: now,
      })
      .where(and(eq(endUsers.orgId, user.orgId), eq(endUsers.id, user.id)))
      .returning();
    await emitWebhookEvent(tx, { orgId: user.orgId, type: "customer.identified", data: { ...endUserView(updated!), verified: updated!.verified }, now });
    return updated!;
  });
}

async function byExternalId(db: Deps["db"] | Tx, orgId: string, externalId: string, lock = false): Promise<EndUser | undefined> {
  const query = db
    .select()
    .from(endUsers)
    .where(and(eq(endUsers.orgId, orgId), eq(endUsers.externalId, externalId)))
    .limit(1);
  return (lock ? await query.for("update") : await query)[0];
}

/**
 * The customer a widget or backend request names by `user_id`, created or updated with `fields`
 * (docs/interface.md 2.5; identity verification: docs/interface.md 5 and D). The storage rule that keeps impersonation
 * out (docs/decisions.md "Unverified visitors"):
 * - the record whose `external_id` is the user_id is the customer; once a verified request has
 *   written it (`verified` true), only verified requests ever write or read it again;
 * - an unverified request naming a verified customer's user_id lands on a separate unverified
 *   visitor (`external_id` null, `claimed_external_id` the claimed id), one per claimed id, which
 *   shares nothing with the customer;
 * - the first verified request for a user_id whose record was written only by unverified requests
 *   moves that record aside as the unverified visitor and starts a fresh verified customer, so
 *   nothing an unverified caller wrote (traits, tickets, events) ever joins a verified customer.
 */
export async function identifyEndUser(
  deps: Pick<Deps, "db" | "now">,
  orgId: string,
  externalId: string,
  verified: boolean,
  fields: CustomerFields,
): Promise<EndUser> {
  const now = deps.now();
  if (verified) {
    return deps.db.transaction(async (tx) => {
      let current = await byExternalId(tx, orgId, externalId, true);
      if (current && !current.verified) {
        // One visitor per claimed id: should one exist already (its customer was deleted since),
        // the record moved aside keeps no claim, only its data.
        const [visitor] = await tx
          .select({ id: endUsers.id })
          .from(endUsers)
          .where(and(eq(endUsers.orgId, orgId), eq(endUsers.claimedExternalId, externalId)));
        await tx
          .update(endUsers)
          .set({ externalId: null, claimedExternalId: visitor ? null : externalId, updatedAt: now })
          .where(and(eq(endUsers.orgId, orgId), eq(endUsers.id, current.id)));
        current = undefined;
      }
      if (!current) {
        await tx.insert(endUsers).values({ orgId, externalId, verified: true, createdAt: now, updatedAt: now }).onConflictDoNothing();
        current = (await byExternalId(tx, orgId, externalId, true))!;
      }
      return applyFields(tx, now, current, fields);
    });
  }
  const current = (await claimEndUsers(deps.db, orgId, [externalId], now)).get(externalId)!;
  return applyFields(deps.db, now, current, fields);
}

/**
 * The records unverified requests naming `externalIds` land on, created when new, without fields:
 * the unverified branch of identifyEndUser for many ids at once (an events batch names up to 100
 * users). Each id's record when it is unverified, else (a verified customer's id) its unverified
 * visitor. At most six statements whatever the number of ids: no round trip per id. New rows are
 * inserted in the ids' sorted order, so two batches inserting the same new ids inside their own
 * transactions wait for each other instead of deadlocking.
 */
export async function claimEndUsers(db: Deps["db"] | Tx, orgId: string, externalIds: string[], now: Date): Promise<Map<string, EndUser>> {
  const ids = [...new Set(externalIds)].sort();
  const found = new Map<string, EndUser>();
  if (ids.length === 0) return found;
  const records = (of: string[]) =>
    db
      .select()
      .from(endUsers)
      .where(and(eq(endUsers.orgId, orgId), inArray(endUsers.externalId, of)));
  for (const row of await records(ids)) found.set(row.externalId!, row);
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length > 0) {
    await db
      .insert(endUsers)
      .values(missing.map((externalId) => ({ orgId, externalId, verified: false, createdAt: now, updatedAt: now })))
      .onConflictDoNothing();
    for (const row of await records(missing)) found.set(row.externalId!, row);
  }
  // A verified customer's id: the unverified visitor that claims it (one per claimed id).
  const taken = ids.filter((id) => found.get(id)?.verified);
  if (taken.length === 0) return found;
  const visitors = (of: string[]) =>
    db
      .select()
      .from(endUsers)
      .where(and(eq(endUsers.orgId, orgId), inArray(endUsers.claimedExternalId, of), isNull(endUsers.externalId)));
  const seen = new Map((await visitors(taken)).map((v) => [v.claimedExternalId!, v]));
  const lacking = taken.filter((id) => !seen.has(id));
  if (lacking.length > 0) {
    await db
      .insert(endUsers)
      .values(lacking.map((claimed) => ({ orgId, externalId: null, claimedExternalId: claimed, verified: false, createdAt: now, updatedAt: now })))
      .onConflictDoNothing();
    for (const v of await visitors(lacking)) seen.set(v.claimedExternalId!, v);
  }
  for (const id of taken) {
    const visitor = seen.get(id);
    if (visitor) found.set(id, visitor);
    else found.delete(id); // never the verified customer
  }
  return found;
}

/**
 * A visitor known only by what they typed (a ticket with an email and no user_id): a new
 * unverified record with no external id, so a typed email never reaches an existing customer.
 */
export async function createVisitor(deps: Pick<Deps, "db" | "now">, orgId: string, fields: { email?: string; name?: string }): Promise<EndUser> {
  const now = deps.now();
  const [user] = await deps.db
    .insert(endUsers)
    .values({ orgId, email: fields.email?.trim().toLowerCase() ?? null, name: fields.name ?? "", verified: false, createdAt: now, updatedAt: now })
    .returning();
  return user!;
}
