// Agents (README "Agents API"): list, read, create, update and activate an org's agents.
// `getAgent` is what the chat pipeline and the widget config endpoint use to find the agent that
// answers. An agent's model override is checked and encrypted by src/agents/llm-settings.ts (which
// also holds the org-wide model setting) and stored on the agent's row here.
//
//   * At most one active agent per org: `activateAgent` switches in one transaction, after
//     locking the org's row, so two concurrent activations serialise instead of tripping the
//     partial unique index (core.ts agents_one_active_per_org). The active agent cannot be made
//     inactive by an update (409: activate another agent instead), but it can be disabled.
//   * Disabled means "answers nothing" (docs/decisions.md "Disabling an agent"): getAgent never
//     returns it, so a widget pinning it gets 404; disabling the active agent leaves the org with
//     no active agent until an admin activates one — /api/sdk/config and chat answer 404
//     no_active_agent, the tool runtime refuses calls with -32002 "agent is disabled". Enabling
//     (status inactive) makes it available again, not active.
//   * Every change is recorded in the activity log (README "Activity log") and invalidates the
//     org's tool snapshot.
import { and, asc, eq, ne, sql } from "drizzle-orm";
import { recordActivity } from "../activity/log.ts";
import type { Actor } from "../kit/actor.ts";
import type { Db } from "../db/client.ts";
import { prepared } from "../db/prepared.ts";
import { agents, type AgentStatus, type LlmOverride, type RoutingRule } from "../db/schema/index.ts";

export type { RoutingRule };
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import { AGENT_LIMITS, type AgentInput, type AgentPatch, validateAgentInput } from "./agent-input.ts";
import { llmOverrideToStore, overrideView } from "./llm-settings.ts";
import { lockOrg } from "../tenancy/orgs.ts";

export type Agent = typeof agents.$inferSelect;

/** The dashboard's view of an agent. The override's key is never in it. */
export function agentView(agent: Agent) {
  return {
    id: agent.id,
    name: agent.name,
    status: agent.status,
    instructions: agent.instructions,
    skills: agent.skills,
    routing_rules: agent.routingRules,
    avatar_config: agent.avatarConfig,
    voice_config: agent.voiceConfig,
    flow_config: agent.flowConfig,
    live_help_label: agent.liveHelpLabel,
    video_display_mode: agent.videoDisplayMode,
    llm: overrideView(agent.llmOverride),
    created_at: agent.createdAt.toISOString(),
    updated_at: agent.updatedAt.toISOString(),
  };
}

/**
 * The org has no agent to answer (none activated, or the active one disabled): 404 with its own
 * code, so a widget tells it from other 404s. /api/sdk/config and both chat endpoints answer it.
 */
export function noActiveAgent(): AppError {
  return new AppError(404, "no_active_agent", "This organisation has no active agent.");
}

/**
 * The agent that answers for `orgId` — the pinned one when `agentId` is given, else the
 * org's active agent — or null (unknown id, another org's agent, a disabled agent, or an org
 * with no active agent: the caller answers 404).
 */
export async function getAgent(deps: Pick<Deps, "db" | "statements">, orgId: string, agentId?: string | null): Promise<Agent | null> {
  if (agentId !== undefined && agentId !== null) {
    if (!isUuid(agentId)) return null;
    const [agent] = await prepared(deps, "agent_pinned", pinnedAgent).execute({ orgId, agentId });
    return agent ?? null;
  }
  const [agent] = await prepared(deps, "agent_active", activeAgent).execute({ orgId });
  return agent ?? null;
}

// Every chat turn and widget config reads its agent: built once per process (src/db/prepared.ts).
const pinnedAgent = (db: Db) =>
  db
    .select()
    .from(agents)
    .where(and(eq(agents.orgId, sql.placeholder("orgId")), eq(agents.id, sql.placeholder("agentId")), ne(agents.status, "disabled")))
    .prepare("agent_pinned");
const activeAgent = (db: Db) =>
  db
    .select()
    .from(agents)
    .where(and(eq(agents.orgId, sql.placeholder("orgId")), eq(agents.status, "active")))
    .limit(1)
    .prepare("agent_active");

export async function listAgents(deps: Pick<Deps, "db">, orgId: string): Promise<Agent[]> {
  return deps.db.select().from(agents).where(eq(agents.orgId, orgId)).orderBy(asc(agents.createdAt), asc(agents.id));
}

/** One agent of the org, whatever its status; 404 otherwise (another org's agent included). */
export async function readAgent(deps: Pick<Deps, "db">, orgId: string, agentId: string): Promise<Agent> {
  if (!isUuid(agentId)) throw AppError.notFound("No such agent.");
  const [agent] = await deps.db
    .select()
    .from(agents)
    .where(and(eq(agents.orgId, orgId), eq(agents.id, agentId)));
  if (!agent) throw AppError.notFound("No such agent.");
  return agent;
}

/** The org's tool snapshot (active agent, toggles) depends on its agents; drop it here and in every instance. */
function afterChange(deps: Pick<Deps, "invalidation" | "tools">, orgId: string) {
  deps.tools.invalidate(orgId);
  deps.invalidation.publish("org_settings", orgId); // src/agents/turn-settings.ts
}

function columnsOf(input: AgentPatch) {
  return {
    ...(input.name !== undefined ? { name: input.name.trim() } : {}),
    ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
    ...(input.skills !== undefined ? { skills: input.skills } : {}),
    ...(input.routing_rules !== undefined ? { routingRules: input.routing_rules } : {}),
    ...(input.avatar_config !== undefined ? { avatarConfig: input.avatar_config } : {}),
    ...(input.voice_config !== undefined ? { voiceConfig: input.voice_config } : {}),
    ...(input.flow_config !== undefined ? { flowConfig: input.flow_config } : {}),
    ...(input.live_help_label !== undefined ? { liveHelpLabel: input.live_help_label } : {}),
    ...(input.video_display_mode !== undefined ? { videoDisplayMode: input.video_display_mode } : {}),
  };
}

/** The names of the fields a change touched, for the activity log (never their values). */
const changed = (input: AgentPatch) =>
  Object.keys(input)
    .filter((k) => (input as Record<string, unknown>)[k] !== undefined)
    .sort();

export async function createAgent(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "invalidation" | "now" | "tools">,
  orgId: string,
  actor: Actor,
  input: AgentInput,
): Promise<Agent> {
  const problems = validateAgentInput(input);
  if (problems.length > 0) throw AppError.badRequest("The agent is invalid.", problems);
  const id = crypto.randomUUID();
  const llmOverride = input.llm ? await llmOverrideToStore(deps, "/llm", input.llm, null, { kind: "agent", id }) : null;
  const now = deps.now();
  const agent = await deps.db.transaction(async (tx) => {
    await lockOrg(tx, orgId);
    const [{ count }] = (await tx.select({ count: sql<number>`count(*)::int` }).from(agents).where(eq(agents.orgId, orgId))) as [{ count: number }];
    if (count >= AGENT_LIMITS.agentsPerOrg) throw new AppError(409, "limit_reached", `An organisation has at most ${AGENT_LIMITS.agentsPerOrg} agents.`);
    const [row] = await tx
      .insert(agents)
      .values({ id, orgId, status: input.status ?? "inactive", llmOverride, createdAt: now, updatedAt: now, ...columnsOf(input), name: input.name.trim() })
      .returning();
    await recordActivity(
      { db: tx, now: deps.now },
      { orgId, actor, action: "agent.created", objectType: "agent", objectId: id, summary: { fields: changed(input) } },
    );
    return row!;
  });
  afterChange(deps, orgId);
  return agent;
}

export async function updateAgent(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "invalidation" | "now" | "tools">,
  orgId: string,
  actor: Actor,
  agentId: string,
  patch: AgentPatch,
): Promise<Agent> {
  const problems = validateAgentInput(patch);
  if (problems.length > 0) throw AppError.badRequest("The agent is invalid.", problems);
  const current = await readAgent(deps, orgId, agentId);
  let llmOverride: LlmOverride | null | undefined;
  if (patch.llm === null) llmOverride = null;
  else if (patch.llm !== undefined) llmOverride = await llmOverrideToStore(deps, "/llm", patch.llm, current.llmOverride, { kind: "agent", id: agentId });
  const row = await deps.db.transaction(async (tx) => {
    // The row locked, so its status is the one this change replaces: a concurrent activation of
    // this agent either committed before (and is seen here) or waits for this one.
    const [locked] = await tx
      .select({ status: agents.status })
      .from(agents)
      .where(and(eq(agents.orgId, orgId), eq(agents.id, agentId)))
      .for("update");
    if (!locked) throw AppError.notFound("No such agent.");
    if (patch.status === "inactive" && locked.status === "active")
      throw new AppError(409, "active_agent", "This is the org's active agent: activate another agent first, or disable it.", [
        { path: "/status", message: "cannot make the active agent inactive" },
      ]);
    const [updated] = await tx
      .update(agents)
      .set({
        ...columnsOf(patch),
        ...(patch.status !== undefined ? { status: patch.status as AgentStatus } : {}),
        ...(llmOverride !== undefined ? { llmOverride } : {}),
        updatedAt: deps.now(),
      })
      .where(and(eq(agents.orgId, orgId), eq(agents.id, agentId)))
      .returning();
    const statusChanged = patch.status !== undefined && patch.status !== locked.status;
    const action = !statusChanged ? "agent.updated" : patch.status === "disabled" ? "agent.disabled" : "agent.enabled";
    await recordActivity(
      { db: tx, now: deps.now },
      {
        orgId,
        actor,
        action,
        objectType: "agent",
        objectId: agentId,
        summary: { fields: changed(patch), ...(statusChanged ? { previous_status: locked.status } : {}) },
      },
    );
    return updated!;
  });
  afterChange(deps, orgId);
  return row;
}

/** Makes `agentId` the org's one active agent; the previous one becomes inactive. */
export async function activateAgent(deps: Pick<Deps, "db" | "invalidation" | "now" | "tools">, orgId: string, actor: Actor, agentId: string): Promise<Agent> {
  await readAgent(deps, orgId, agentId);
  const now = deps.now();
  const row = await deps.db.transaction(async (tx) => {
    // One activation per org at a time: the second waits here and then sees the first's result.
    await lockOrg(tx, orgId);
    const before = await tx
      .update(agents)
      .set({ status: "inactive", updatedAt: now })
      .where(and(eq(agents.orgId, orgId), eq(agents.status, "active"), ne(agents.id, agentId)))
      .returning({ id: agents.id });
    const [activated] = await tx
      .update(agents)
      .set({ status: "active", updatedAt: now })
      .where(and(eq(agents.orgId, orgId), eq(agents.id, agentId)))
      .returning();
    await recordActivity(
      { db: tx, now: deps.now },
      { orgId, actor, action: "agent.activated", objectType: "agent", objectId: agentId, summary: { previous: before[0]?.id ?? null } },
    );
    return activated!;
  });
  afterChange(deps, orgId);
  return row;
}
