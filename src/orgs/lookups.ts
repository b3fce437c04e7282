// Small reads of the org's widget keys for the rooms above (the SDK, the setup tools). The org's
// own row and its members are read through src/tenancy/.
import { and, eq, isNull } from "drizzle-orm";
import { widgetKeys } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";

/** The org's live widget keys, oldest first. */
export async function liveWidgetKeys(deps: Pick<Deps, "db">, orgId: string) {
  return deps.db
    .select({ id: widgetKeys.id, key: widgetKeys.key, label: widgetKeys.label })
    .from(widgetKeys)
    .where(and(eq(widgetKeys.orgId, orgId), isNull(widgetKeys.revokedAt)))
    .orderBy(widgetKeys.createdAt, widgetKeys.id);
}

/** A widget key that is not revoked, by its value (the widget key cache in src/sdk/auth.ts loads through it). */
export async function liveWidgetKey(deps: Pick<Deps, "db">, key: string): Promise<{ id: string; orgId: string } | null> {
  const [row] = await deps.db
    .select({ id: widgetKeys.id, orgId: widgetKeys.orgId })
    .from(widgetKeys)
    .where(and(eq(widgetKeys.key, key), isNull(widgetKeys.revokedAt)))
    .limit(1);
  return row ?? null;
}
