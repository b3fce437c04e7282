// Reads of end users for the rooms above (the inbox, inbound email, campaigns) beside
// records.ts's lookups (`findEndUser` by reference): by address, the inbox's list, and `customerContacts`, the columns another owner may join its own
// rows with (docs/decisions.md "Storage behind each owner": a join on a hot or one-statement path
// stays one statement, through a view the owner chooses the columns of).
import { and, asc, eq, ilike, isNull, or, type SQL, sql } from "drizzle-orm";
import { QueryBuilder } from "drizzle-orm/pg-core";
import type { Conn } from "../db/client.ts";
import { afterRow, type KeysetOrder, newestFirst } from "../db/keyset.ts";
import { type AudienceRule, endUsers } from "../db/schema/index.ts";
import type { EndUser } from "./records.ts";

/** A customer's id, org, address and name, to join with: `leftJoin(customerContacts, eq(customerContacts.id, …))`. */
export const customerContacts = new QueryBuilder()
  .select({ id: endUsers.id, orgId: endUsers.orgId, email: endUsers.email, name: endUsers.name })
  .from(endUsers)
  .as("customer_contacts");

/** The oldest unverified, email-only customer with this exact address: who an email's sender already is. */
export async function emailOnlyCustomer(db: Conn, orgId: string, address: string): Promise<{ id: string } | null> {
  const [known] = await db
    .select({ id: endUsers.id })
    .from(endUsers)
    .where(and(eq(endUsers.orgId, orgId), eq(endUsers.email, address), eq(endUsers.verified, false), isNull(endUsers.externalId)))
    .orderBy(asc(endUsers.createdAt))
    .limit(1);
  return known ?? null;
}

/** Customers newest first by created_at, then id (src/db/keyset.ts). */
const ORDER: KeysetOrder = { table: endUsers, scope: endUsers.orgId, id: endUsers.id, keys: [endUsers.createdAt, endUsers.id] };

/**
 * Up to `limit` customers of the org newest first, after the row `afterId` names, whose name,
 * address, external id or claimed external id matches the ILIKE `pattern` (already escaped).
 */
export async function listEndUsers(db: Conn, orgId: string, options: { pattern?: string; afterId?: string; limit: number }): Promise<EndUser[]> {
  const where: (SQL | undefined)[] = [eq(endUsers.orgId, orgId)];
  const pattern = options.pattern;
  if (pattern !== undefined)
    where.push(
      or(ilike(endUsers.name, pattern), ilike(endUsers.email, pattern), ilike(endUsers.externalId, pattern), ilike(endUsers.claimedExternalId, pattern)),
    );
  if (options.afterId !== undefined) where.push(afterRow(ORDER, orgId, options.afterId));
  return db
    .select()
    .from(endUsers)
    .where(and(...where))
    .orderBy(...newestFirst(ORDER))
    .limit(options.limit);
}

/** The SQL condition of one audience rule on end_users.traits (keys are restricted, values bound as parameters). */
export function audienceCondition(rule: AudienceRule): SQL {
  const parts = rule.all.map((c) => {
    const path = `{${c.trait.split(".").join(",")}}`;
    const value = sql`(${endUsers.traits} #> ${path}::text[])`;
    switch (c.op) {
      case "eq":
        return sql`${value} = ${JSON.stringify(c.value)}::jsonb`;
      case "neq":
        return sql`${value} is distinct from ${JSON.stringify(c.value)}::jsonb`;
      case "exists":
        return sql`coalesce(jsonb_typeof(${value}), 'null') <> 'null'`;
      case "not_exists":
        return sql`coalesce(jsonb_typeof(${value}), 'null') = 'null'`;
      case "in":
        return sql`${JSON.stringify(c.value)}::jsonb @> jsonb_build_array(${value})`;
    }
  });
  return and(...parts)!;
}

/**
 * `select id from end_users where …`: the org's verified customers with an email address who match
 * the rule, as a statement another owner selects from (campaigns/audience.ts leaves out who
 * unsubscribed and enrols the rest in one statement).
 */
export function audienceMatches(orgId: string, rule: AudienceRule): SQL {
  return sql`select ${endUsers.id} as id from ${endUsers} where ${endUsers.orgId} = ${orgId}
    and ${endUsers.verified} and ${endUsers.email} is not null and ${audienceCondition(rule)}`;
}
