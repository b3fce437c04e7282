// What the setup checklist (src/setup/status.ts) asks of the knowledge base.
import { count, eq } from "drizzle-orm";
import { docs } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";

/** How many of the org's documents are in each status. */
export async function docCountsByStatus(deps: Pick<Deps, "db">, orgId: string): Promise<{ status: string; n: number }[]> {
  return deps.db.select({ status: docs.status, n: count() }).from(docs).where(eq(docs.orgId, orgId)).groupBy(docs.status);
}
