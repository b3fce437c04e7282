// A customer's company, always within one org: found by our id or the org's external id, shown,
// updated by a member or vouched for by the org's backend, and created on first identify
// (src/sdk/identity.ts). The end users themselves are in records.ts.
import { and, eq, or } from "drizzle-orm";
import { companies } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { isUuid } from "../kit/ids.ts";
import { type Company, mergeTraits } from "./records.ts";

export async function findCompany(deps: Pick<Deps, "db">, orgId: string, idOrExternal: string): Promise<Company | null> {
  if (idOrExternal.length === 0 || idOrExternal.length > 256) return null;
  const key = isUuid(idOrExternal) ? or(eq(companies.id, idOrExternal), eq(companies.externalId, idOrExternal)) : eq(companies.externalId, idOrExternal);
  const [company] = await deps.db
    .select()
    .from(companies)
    .where(and(eq(companies.orgId, orgId), key))
    .limit(1);
  return company ?? null;
}

export function companyView(company: Company) {
  return {
    id: company.id,
    external_id: company.externalId,
    name: company.name,
    traits: company.traits,
    verified: company.verified,
    updated_at: company.updatedAt.toISOString(),
  };
}

/** A company written by the org itself (a member or the org's token, through the data tools): the org vouches for it from then on. */
export async function updateCompany(
  deps: Pick<Deps, "db" | "now">,
  company: Company,
  patch: { name?: string; traits?: Record<string, unknown> },
): Promise<Company> {
  return (await writeCompany(deps, company, patch, true)) ?? company;
}

/**
 * Writes `patch` on a company; `vouched` marks it verified. An unverified write changes only a
 * company nobody vouched for, checked in the statement itself, so one that became vouched a moment
 * ago stays untouched (null then).
 */
async function writeCompany(
  deps: Pick<Deps, "db" | "now">,
  company: Company,
  patch: { name?: string; traits?: Record<string, unknown> },
  vouched: boolean,
): Promise<Company | null> {
  const [updated] = await deps.db
    .update(companies)
    .set({
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      traits: mergeTraits(company.traits, patch.traits),
      ...(vouched ? { verified: true } : {}),
      updatedAt: deps.now(),
    })
    .where(and(eq(companies.orgId, company.orgId), eq(companies.id, company.id), vouched ? undefined : eq(companies.verified, false)))
    .returning();
  return updated ?? null;
}

/**
 * A company by the org's external id, created when new, updated with `patch` (traits merged, the
 * request wins). The customers' rule (identifyEndUser), applied to companies (docs/decisions.md
 * "Companies the org vouched for"):
 * - `vouched` writes come from the org (dashboard, `POST /api/customers`, import) or from a
 *   request whose verified `user_token` names this company in its `company_id` claim; they mark
 *   the company verified;
 * - an unverified request never changes a verified company: it is answered as before (the ids),
 *   may still link its own unverified user to it, and writes nothing on it;
 * - the first vouched write on a company that only unverified requests wrote starts it afresh
 *   (name and traits cleared, then the write applied), so nothing typed by a holder of the public
 *   key becomes something the org vouches for. Its id stays, and so do the links to it.
 */
export async function identifyCompany(
  deps: Pick<Deps, "db" | "now">,
  orgId: string,
  externalId: string,
  patch: { name?: string; traits?: Record<string, unknown> },
  vouched: boolean,
): Promise<Company> {
  const now = deps.now();
  const find = async () =>
    (
      await deps.db
        .select()
        .from(companies)
        .where(and(eq(companies.orgId, orgId), eq(companies.externalId, externalId)))
        .limit(1)
    )[0];
  let company = await find();
  if (!company) {
    await deps.db.insert(companies).values({ orgId, externalId, verified: vouched, createdAt: now, updatedAt: now }).onConflictDoNothing();
    company = (await find())!;
  }
  if (vouched && !company.verified) {
    const [fresh] = await deps.db
      .update(companies)
      .set({ name: "", traits: {}, verified: true, updatedAt: now })
      .where(and(eq(companies.orgId, orgId), eq(companies.id, company.id), eq(companies.verified, false)))
      .returning();
    company = fresh ?? (await find())!;
  }
  if (patch.name === undefined && patch.traits === undefined) return company;
  if (!vouched && company.verified) return company;
  return (await writeCompany(deps, company, patch, vouched)) ?? (await find())!;
}
