// Small reads of agents for other rooms: the names a transcript shows, the org's active agent.
import { and, eq, inArray } from "drizzle-orm";
import { agents } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";

/** Agent id → name, for the given ids (unknown ids are left out). */
export async function agentNames(deps: Pick<Deps, "db">, agentIds: readonly string[]): Promise<Map<string, string>> {
  if (agentIds.length === 0) return new Map();
  const rows = await deps.db
    .select({ id: agents.id, name: agents.name })
    .from(agents)
    .where(inArray(agents.id, [...agentIds]));
  return new Map(rows.map((a) => [a.id, a.name]));
}

/** The id of one of the org's active agents, if it has one. */
export async function activeAgentId(deps: Pick<Deps, "db">, orgId: string): Promise<string | null> {
  const [agent] = await deps.db
    .select({ id: agents.id })
    .from(agents)
    .where(and(eq(agents.orgId, orgId), eq(agents.status, "active")))
    .limit(1);
  return agent?.id ?? null;
}

/** The org's agents with their status. */
export async function orgAgents(deps: Pick<Deps, "db">, orgId: string): Promise<{ id: string; status: string; name: string }[]> {
  return deps.db.select({ id: agents.id, status: agents.status, name: agents.name }).from(agents).where(eq(agents.orgId, orgId));
}
