// The `memberships` table: who belongs to which org, with which roles (src/auth/roles.ts). Reads for
// sign-in, OAuth, the inbox and the tool runtime; the writes of src/orgs/ (a membership created, its
// roles, its end); `membershipRoles`, the columns another owner may join with (docs/decisions.md
// "Storage behind each owner"). The rules (the last admin, grantable roles) are src/orgs/members.ts.
import { and, arrayContains, asc, count, eq, ne } from "drizzle-orm";
import { QueryBuilder } from "drizzle-orm/pg-core";
import type { Conn } from "../db/client.ts";
import { members, memberships, orgs } from "../db/schema/index.ts";

/**
 * A membership's org, member, roles and start, to join with: `innerJoin(membershipRoles, and(eq(membershipRoles.memberId, …), eq(membershipRoles.orgId, …)))`.
 */
export const membershipRoles = new QueryBuilder()
  .select({ orgId: memberships.orgId, memberId: memberships.memberId, roles: memberships.roles, createdAt: memberships.createdAt })
  .from(memberships)
  .as("membership_roles");

/** The roles a member holds in the org, or null when they are not a member. */
export async function memberRoles(db: Conn, orgId: string, memberId: string): Promise<string[] | null> {
  const [row] = await db
    .select({ roles: memberships.roles })
    .from(memberships)
    .where(and(eq(memberships.orgId, orgId), eq(memberships.memberId, memberId)));
  return row?.roles ?? null;
}

/** The org's members with their dashboard roles. */
export async function orgMemberRoles(db: Conn, orgId: string): Promise<{ memberId: string; roles: string[] }[]> {
  return db.select({ memberId: memberships.memberId, roles: memberships.roles }).from(memberships).where(eq(memberships.orgId, orgId));
}

/** The orgs a member belongs to, with their names and the member's roles, oldest org first (a session's principal). */
export async function orgsOfMember(db: Conn, memberId: string): Promise<{ orgId: string; orgName: string; roles: string[] }[]> {
  return db
    .select({ orgId: memberships.orgId, orgName: orgs.name, roles: memberships.roles })
    .from(memberships)
    .innerJoin(orgs, eq(orgs.id, memberships.orgId))
    .where(eq(memberships.memberId, memberId))
    .orderBy(orgs.createdAt);
}

/** The org a member joined first, or null for a member of none. */
export async function firstOrgOf(db: Conn, memberId: string): Promise<string | null> {
  const [row] = await db
    .select({ orgId: memberships.orgId })
    .from(memberships)
    .where(eq(memberships.memberId, memberId))
    .orderBy(memberships.createdAt)
    .limit(1);
  return row?.orgId ?? null;
}

/** How many orgs a member belongs to. */
export async function membershipCount(db: Conn, memberId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(memberships).where(eq(memberships.memberId, memberId));
  return row?.n ?? 0;
}

/** How many of the org's members other than `except` hold every one of `roles`. */
export async function othersHolding(db: Conn, orgId: string, except: string, roles: readonly string[]): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(memberships)
    .where(and(eq(memberships.orgId, orgId), ne(memberships.memberId, except), arrayContains(memberships.roles, [...roles])));
  return row?.n ?? 0;
}

/** A member of the org as the members page shows them. */
export interface OrgMember {
  id: string;
  email: string;
  name: string;
  roles: string[];
  joinedAt: Date;
}

const orgMemberColumns = { id: members.id, email: members.email, name: members.name, roles: memberships.roles, joinedAt: memberships.createdAt };

/** One page of the org's members, by email, and how many there are. */
export async function orgMembersPage(db: Conn, orgId: string, limit: number, offset: number): Promise<{ rows: OrgMember[]; total: number }> {
  const where = eq(memberships.orgId, orgId);
  const [rows, [total]] = await Promise.all([
    db
      .select(orgMemberColumns)
      .from(memberships)
      .innerJoin(members, eq(members.id, memberships.memberId))
      .where(where)
      .orderBy(asc(members.email))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(memberships).where(where),
  ]);
  return { rows, total: total?.n ?? 0 };
}

/** One member of the org, or undefined; `lock` holds their membership row for the rest of the transaction. */
export async function orgMember(db: Conn, orgId: string, memberId: string, lock = false): Promise<OrgMember | undefined> {
  const query = db
    .select(orgMemberColumns)
    .from(memberships)
    .innerJoin(members, eq(members.id, memberships.memberId))
    .where(and(eq(memberships.orgId, orgId), eq(memberships.memberId, memberId)));
  const [row] = lock ? await query.for("update", { of: memberships }) : await query;
  return row;
}

/** The id of the org's member with this address (stored lower-cased), or null. */
export async function orgMemberIdByEmail(db: Conn, orgId: string, email: string): Promise<string | null> {
  const [row] = await db
    .select({ id: members.id })
    .from(memberships)
    .innerJoin(members, eq(members.id, memberships.memberId))
    .where(and(eq(memberships.orgId, orgId), eq(members.email, email)));
  return row?.id ?? null;
}

/** Up to `limit` of the org's members, by email (the inbox's assignee filter, the triage form, a thread's authors). */
export async function memberDirectory(db: Conn, orgId: string, limit: number): Promise<{ id: string; email: string; name: string | null }[]> {
  return db
    .select({ id: members.id, email: members.email, name: members.name })
    .from(memberships)
    .innerJoin(members, eq(members.id, memberships.memberId))
    .where(eq(memberships.orgId, orgId))
    .orderBy(asc(members.email))
    .limit(limit);
}

/** Adds a member to an org; an existing membership is kept as it is. */
export async function addMembership(db: Conn, membership: { orgId: string; memberId: string; roles: string[] }): Promise<void> {
  await db.insert(memberships).values(membership).onConflictDoNothing();
}

export async function setMembershipRoles(db: Conn, orgId: string, memberId: string, roles: string[]): Promise<void> {
  await db
    .update(memberships)
    .set({ roles })
    .where(and(eq(memberships.orgId, orgId), eq(memberships.memberId, memberId)));
}

export async function removeMembership(db: Conn, orgId: string, memberId: string): Promise<void> {
  await db.delete(memberships).where(and(eq(memberships.orgId, orgId), eq(memberships.memberId, memberId)));
}
