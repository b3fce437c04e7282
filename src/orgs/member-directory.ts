// The org's members by name and address, for pages that pick or show a member (the inbox's
// assignee filter, the triage form, a thread's authors).
import { and, asc, eq } from "drizzle-orm";
import { members, memberships } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";

/** Up to `limit` of the org's members, by email. */
export async function memberDirectory(deps: Deps, orgId: string, limit: number): Promise<{ id: string; email: string; name: string | null }[]> {
  return deps.db
    .select({ id: members.id, email: members.email, name: members.name })
    .from(memberships)
    .innerJoin(members, eq(members.id, memberships.memberId))
    .where(and(eq(memberships.orgId, orgId)))
    .orderBy(asc(members.email))
    .limit(limit);
}
