// What the setup checklist (src/setup/status.ts) asks of tickets.
import { and, eq } from "drizzle-orm";
import { tickets } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";

/** Whether the org has a ticket sent from a browser (source `widget`). */
export async function hasWidgetTicket(deps: Pick<Deps, "db">, orgId: string): Promise<boolean> {
  const [row] = await deps.db
    .select({ id: tickets.id })
    .from(tickets)
    .where(and(eq(tickets.orgId, orgId), eq(tickets.source, "widget")))
    .limit(1);
  return row !== undefined;
}
