// What the setup checklist (src/setup/status.ts) asks of the org.
import { and, count, eq, isNull } from "drizzle-orm";
import { widgetKeys } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";

/** How many of the org's widget keys are not revoked. */
export async function liveWidgetKeyCount(deps: Pick<Deps, "db">, orgId: string): Promise<number> {
  const [row] = await deps.db
    .select({ n: count() })
    .from(widgetKeys)
    .where(and(eq(widgetKeys.orgId, orgId), isNull(widgetKeys.revokedAt)));
  return row?.n ?? 0;
}
