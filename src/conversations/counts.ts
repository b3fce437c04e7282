// What the setup checklist (src/setup/status.ts) asks of chats.
import { desc, eq } from "drizzle-orm";
import { conversations } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";

/** When the org's newest chat began (null: it has none), from the (org_id, created_at) index. */
export async function lastChatAt(deps: Pick<Deps, "db">, orgId: string): Promise<Date | null> {
  const [row] = await deps.db
    .select({ at: conversations.createdAt })
    .from(conversations)
    .where(eq(conversations.orgId, orgId))
    .orderBy(desc(conversations.createdAt))
    .limit(1);
  return row?.at ?? null;
}
