// What the setup checklist (src/setup/status.ts) asks of custom actions.
import { and, count, eq } from "drizzle-orm";
import { customActions } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { live } from "../kit/rows.ts";

/** How many custom actions the org has (deleted ones left out). */
export async function customActionCount(deps: Pick<Deps, "db">, orgId: string): Promise<number> {
  const [row] = await deps.db
    .select({ n: count() })
    .from(customActions)
    .where(and(eq(customActions.orgId, orgId), live(customActions)));
  return row?.n ?? 0;
}
