// A customer or a company by our id, within one org, on the database or inside the caller's
// transaction (the campaign sender reads them while it holds an enrolment).
import { and, eq, inArray } from "drizzle-orm";
import type { Conn } from "../db/client.ts";
import { companies, endUsers } from "../db/schema/index.ts";
import type { Company, EndUser } from "./records.ts";

/** A company of the org by our id. */
export async function companyById(db: Conn, orgId: string, companyId: string): Promise<Company | null> {
  const [row] = await db
    .select()
    .from(companies)
    .where(and(eq(companies.orgId, orgId), eq(companies.id, companyId)));
  return row ?? null;
}

/** A customer of the org by our id. */
export async function endUserById(db: Conn, orgId: string, endUserId: string): Promise<EndUser | null> {
  const [row] = await db
    .select()
    .from(endUsers)
    .where(and(eq(endUsers.orgId, orgId), eq(endUsers.id, endUserId)));
  return row ?? null;
}

/** Some of the org's customers by our ids, by id (unknown ids are left out). */
export async function endUsersByIds(db: Conn, orgId: string, endUserIds: readonly string[]): Promise<Map<string, EndUser>> {
  if (endUserIds.length === 0) return new Map();
  const rows = await db
    .select()
    .from(endUsers)
    .where(and(eq(endUsers.orgId, orgId), inArray(endUsers.id, [...endUserIds])));
  return new Map(rows.map((u) => [u.id, u]));
}
