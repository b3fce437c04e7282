// Customers (end users) and their companies, always within one org.
import { and, eq, ilike, or, type SQL } from "drizzle-orm";
import { companies, endUsers } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { assertFreeForm } from "../http/json.ts";
import { isUuid } from "../kit/ids.ts";


export type EndUser = typeof endUsers.$inferSelect;

/** The customer a tool call acts for (MCP `_meta` binding, or the chatting customer): data tools then see only them. */
export interface BoundCustomer {
  id: string;
  externalId: string | null;
  email: string | null;
  companyId: string | null;
}
export type Company = typeof companies.$inferSelect;

/** A customer by our id or the org's external id. */
function userKey(idOrExternal: string): SQL {
  return isUuid(idOrExternal) ? or(eq(endUsers.id, idOrExternal), eq(endUsers.externalId, idOrExternal))! : eq(endUsers.externalId, idOrExternal);
}

export async function findEndUser(deps: Deps, orgId: string, idOrExternal: string): Promise<EndUser | null> {
  if (idOrExternal.length === 0 || idOrExternal.length > 256) return null;
  const [user] = await deps.db.select().from(endUsers).where(and(eq(endUsers.orgId, orgId), userKey(idOrExternal))).limit(1);
  return user ?? null;
}

export async function findEndUserByEmail(deps: Deps, orgId: string, email: string): Promise<EndUser | null> {
  if (email.length === 0 || email.length > 320) return null;
  const [user] = await deps.db.select().from(endUsers).where(and(eq(endUsers.orgId, orgId), eq(endUsers.email, email.trim().toLowerCase()))).limit(1);
  return user ?? null;
}

export function boundCustomerOf(user: EndUser): BoundCustomer {
  return { id: user.id, externalId: user.externalId, email: user.email, companyId: user.companyId };
}

export async function searchEndUsers(deps: Deps, orgId: string, query: string, limit: number): Promise<EndUser[]> {
  const pattern = `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return deps.db
    .select()
    .from(endUsers)
    .where(and(eq(endUsers.orgId, orgId), query ? or(ilike(endUsers.name, pattern), ilike(endUsers.email, pattern), ilike(endUsers.externalId, pattern)) : undefined))
    .limit(limit);
}

export async function findCompany(deps: Deps, orgId: string, idOrExternal: string): Promise<Company | null> {
  if (idOrExternal.length === 0 || idOrExternal.length > 256) return null;
  const key = isUuid(idOrExternal) ? or(eq(companies.id, idOrExternal), eq(companies.externalId, idOrExternal)) : eq(companies.externalId, idOrExternal);
  const [company] = await deps.db.select().from(companies).where(and(eq(companies.orgId, orgId), key)).limit(1);
  return company ?? null;
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

export function companyView(company: Company) {
  return { id: company.id, external_id: company.externalId, name: company.name, traits: company.traits, updated_at: company.updatedAt.toISOString() };
}

/**
 * Traits after a merge, refused (400 validation_failed / -32602, naming the limit) when the patch
 * or the merged record exceeds FREE_FORM_LIMITS: every stored record, and so every read, stays
 * bounded (issue #10: a 10,000-deep traits object made each read ~200 MB).
 */
function mergeTraits(current: Record<string, unknown>, patch: Record<string, unknown> | undefined): Record<string, unknown> {
  if (patch === undefined) return current;
  assertFreeForm(patch, "/traits");
  const merged = { ...current, ...patch };
  assertFreeForm(merged, "/traits");
  return merged;
}

export async function updateEndUser(deps: Deps, user: EndUser, patch: { name?: string; traits?: Record<string, unknown> }): Promise<EndUser> {
  const [updated] = await deps.db
    .update(endUsers)
    .set({ ...(patch.name !== undefined ? { name: patch.name } : {}), traits: mergeTraits(user.traits, patch.traits), updatedAt: deps.now() })
    .where(and(eq(endUsers.orgId, user.orgId), eq(endUsers.id, user.id)))
    .returning();
  return updated!;
}

export async function updateCompany(deps: Deps, company: Company, patch: { name?: string; traits?: Record<string, unknown> }): Promise<Company> {
  const [updated] = await deps.db
    .update(companies)
    .set({ ...(patch.name !== undefined ? { name: patch.name } : {}), traits: mergeTraits(company.traits, patch.traits), updatedAt: deps.now() })
    .where(and(eq(companies.orgId, company.orgId), eq(companies.id, company.id)))
    .returning();
  return updated!;
}
