// Agent action toggles: which of the org's actions an agent may use (the dashboard's
// "enable-able agent actions"). A tool without a toggle row has its default.
import { and, eq, inArray, like, sql } from "drizzle-orm";
import { agentActionToggles } from "../db/schema/index.ts";
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";

export async function agentOfOrg(deps: Pick<Deps, "tools">, orgId: string, agentId: string) {
  if (!isUuid(agentId)) throw AppError.notFound("No such agent.");
  // The org's agents come through the tool runtime's directory (ports/tools.ts): agents/ stands above this room.
  const id = agentId.toLowerCase();
  if (!(await deps.tools.agentIds(orgId)).includes(id)) throw AppError.notFound("No such agent.");
  return { id };
}

export async function listAgentActions(deps: Pick<Deps, "db" | "tools">, orgId: string, agentId: string) {
  await agentOfOrg(deps, orgId, agentId);
  const tools = await deps.tools.catalog(orgId);
  const toggles = new Map((await deps.db.select().from(agentActionToggles).where(eq(agentActionToggles.agentId, agentId))).map((t) => [t.actionId, t.enabled]));
  return tools.map((tool) => ({
    id: tool.name,
    source: { kind: tool.source.kind, label: tool.source.label, ...(tool.source.id ? { id: tool.source.id } : {}) },
    name: tool.name,
    description: tool.description,
    destructive: tool.destructive,
    scope: tool.scope,
    enabled: toggles.get(tool.name) ?? tool.defaultEnabled,
  }));
}

/** Switches actions on or off for one agent; recorded in the activity log with who did it. */
export async function setAgentActions(
  deps: Pick<Deps, "db" | "now" | "tools">,
  orgId: string,
  actor: Actor,
  agentId: string,
  change: { enable?: string[]; disable?: string[] },
) {
  await agentOfOrg(deps, orgId, agentId);
  const known = new Set((await deps.tools.catalog(orgId)).map((t) => t.name));
  const enable = change.enable ?? [];
  const disable = change.disable ?? [];
  const problems = [
    ...enable.flatMap((id, i) => (known.has(id) ? [] : [{ path: `/enable/${i}`, message: `no action ${JSON.stringify(id)} in this organisation` }])),
    ...disable.flatMap((id, i) => (known.has(id) ? [] : [{ path: `/disable/${i}`, message: `no action ${JSON.stringify(id)} in this organisation` }])),
    ...disable.flatMap((id, i) => (enable.includes(id) ? [{ path: `/disable/${i}`, message: "is also in enable" }] : [])),
  ];
  if (problems.length > 0) throw AppError.badRequest("Some actions cannot be changed.", problems);
  const now = deps.now();
  const rows = [
    ...enable.map((actionId) => ({ agentId, actionId, enabled: true, updatedAt: now })),
    ...disable.map((actionId) => ({ agentId, actionId, enabled: false, updatedAt: now })),
  ];
  if (rows.length > 0)
    await deps.db
      .insert(agentActionToggles)
      .values(rows)
      .onConflictDoUpdate({ target: [agentActionToggles.agentId, agentActionToggles.actionId], set: { enabled: sql.raw("excluded.enabled"), updatedAt: now } });
  if (rows.length > 0)
    await recordActivity(deps, {
      orgId,
      actor,
      action: "agent_actions.toggled",
      objectType: "agent",
      objectId: agentId,
      summary: { enabled: enable, disabled: disable },
    });
  // Read-your-writes: the next call on any channel sees the change.
  deps.tools.invalidate(orgId);
  return listAgentActions(deps, orgId, agentId);
}

/**
 * Toggles of one source's actions (names starting with `prefix`) that it no longer offers go, so
 * an action that comes back starts at its default again. Called by the folder owning the source
 * (connectors after discovery or deletion): this folder stays the only writer of the toggles.
 */
export async function forgetActions(deps: Pick<Deps, "db" | "tools">, orgId: string, prefix: string, keep: ReadonlySet<string>): Promise<void> {
  const orgAgents = await deps.tools.agentIds(orgId);
  const toggles = await deps.db
    .select({ agentId: agentActionToggles.agentId, actionId: agentActionToggles.actionId })
    .from(agentActionToggles)
    .where(and(inArray(agentActionToggles.agentId, orgAgents), like(agentActionToggles.actionId, `${prefix.replace(/[\\%_]/g, "\\$&")}%`)));
  for (const t of toggles.filter((t) => !keep.has(t.actionId)))
    await deps.db.delete(agentActionToggles).where(and(eq(agentActionToggles.agentId, t.agentId), eq(agentActionToggles.actionId, t.actionId)));
  deps.tools.invalidate(orgId);
}
