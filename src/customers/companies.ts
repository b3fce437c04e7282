// The dashboard's company reads: the org's companies, searchable and paged, and a company's
// customers. Companies are written by src/customers/records.ts.
import { and, asc, desc, eq, ilike, or } from "drizzle-orm";
import { escapeLike } from "../db/like.ts";
import { companies, endUsers } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import type { Company, EndUser } from "./records.ts";

/** One page of the org's companies by name (`limit` + 1 rows are read, so the caller sees whether another page follows). */
export async function listCompanies(deps: Pick<Deps, "db">, orgId: string, opts: { q?: string; limit: number; offset: number }): Promise<Company[]> {
  const { q } = opts;
  return deps.db
    .select()
    .from(companies)
    .where(and(eq(companies.orgId, orgId), q ? or(ilike(companies.name, escapeLike(q)), ilike(companies.externalId, escapeLike(q))) : undefined))
    .orderBy(asc(companies.name), asc(companies.id))
    .limit(opts.limit + 1)
    .offset(opts.offset);
}

/** A company's most recently active customers. */
export async function companyCustomers(deps: Pick<Deps, "db">, orgId: string, companyId: string, limit: number): Promise<EndUser[]> {
  return deps.db
    .select()
    .from(endUsers)
    .where(and(eq(endUsers.orgId, orgId), eq(endUsers.companyId, companyId)))
    .orderBy(desc(endUsers.updatedAt))
    .limit(limit);
}
