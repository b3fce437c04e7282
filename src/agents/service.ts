// Agents (issue #10 item 5, contract C8): list, read, create, update and activate an org's
// agents, and the org-wide model setting. `getAgent` is what the chat pipeline and the widget
// config endpoint use to find the agent that answers.
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
//   * Model overrides (docs/decisions.md "LLM overrides"): the key is encrypted with deps.cipher
//     (associated data names the row) and never returned — views say only whether one is set.
//     A base URL is checked by the outbound guard when saved, and again on every model request.
//     Changing the provider or the base URL without giving a key forgets the stored key, so a
//     key is never sent to a URL other than the one it was saved for.
//   * Every change is recorded in the activity log (C3) and invalidates the org's tool snapshot (C1).
import { and, asc, eq, ne, sql } from "drizzle-orm";
import { recordActivity } from "../activity/log.ts";
import type { Actor } from "../kit/actor.ts";
import type { Db } from "../db/client.ts";
import { prepared } from "../db/prepared.ts";
import { agents, type AgentStatus, type LlmOverride, orgLlmSettings, orgs, type RoutingRule } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorDetail } from "../errors.ts";
import { checkFreeForm } from "../http/json.ts";
import { isUuid } from "../kit/ids.ts";
import { BlockedUrlError, checkUrl } from "../net/guard.ts";
import { llmKeyContext, resolveLlm } from "./llm/provider.ts";
import type { ProviderKind } from "./llm/types.ts";

export type Agent = typeof agents.$inferSelect;

export const AGENT_LIMITS = {
  agentsPerOrg: 50,
  name: 100,
  instructions: 20_000,
  skills: 20,
  skill: 64,
  routingRules: 50,
  keywords: 20,
  keyword: 100,
  intent: 64,
  team: 64,
  liveHelpLabel: 60,
  videoDisplayMode: 32,
  /** avatar_config (the widget's look: image, colours…) and voice_config. */
  configBytes: 8 * 1024,
  configDepth: 5,
  /** flow_config: steps and custom variables. */
  flowBytes: 32 * 1024, // under the 64 KiB body limit of /api/*, so the bound is reachable and tested
  flowDepth: 8,
  flowItems: 100,
  model: 200,
  baseUrl: 2048,
  apiKey: 512,
} as const;

/**
 * Video display modes the dashboard offers (`inline`, the default: inside the chat panel; `pip`:
 * a floating picture-in-picture window; `fullscreen`). The API accepts any token of the same
 * pattern (validate below), so a front end with modes of its own can store them; the dashboard
 * keeps such a value as it is.
 */
export const VIDEO_DISPLAY_MODES = ["inline", "pip", "fullscreen"] as const;

export interface LlmOverrideInput {
  provider: ProviderKind;
  base_url?: string | null;
  model?: string | null;
  /** A new key; null removes it; absent keeps it (unless provider or base_url change). */
  api_key?: string | null;
}

export interface AgentInput {
  name: string;
  instructions?: string;
  skills?: string[];
  routing_rules?: RoutingRule[];
  avatar_config?: Record<string, unknown>;
  voice_config?: Record<string, unknown>;
  flow_config?: { steps: unknown[]; custom_variables: unknown[] };
  live_help_label?: string;
  video_display_mode?: string;
  status?: "inactive" | "disabled";
  /** null removes the override. */
  llm?: LlmOverrideInput | null;
}

export type AgentPatch = Partial<AgentInput>;

function overrideView(override: LlmOverride | null) {
  if (!override) return null;
  return { provider: override.provider, base_url: override.base_url, model: override.model, api_key_set: override.api_key !== null };
}

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
 * C8: the agent that answers for `orgId` — the pinned one when `agentId` is given, else the
 * org's active agent — or null (unknown id, another org's agent, a disabled agent, or an org
 * with no active agent: the caller answers 404).
 */
export async function getAgent(deps: Deps, orgId: string, agentId?: string | null): Promise<Agent | null> {
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

export async function listAgents(deps: Deps, orgId: string): Promise<Agent[]> {
  return deps.db.select().from(agents).where(eq(agents.orgId, orgId)).orderBy(asc(agents.createdAt), asc(agents.id));
}

/** One agent of the org, whatever its status; 404 otherwise (another org's agent included). */
export async function readAgent(deps: Deps, orgId: string, agentId: string): Promise<Agent> {
  if (!isUuid(agentId)) throw AppError.notFound("No such agent.");
  const [agent] = await deps.db.select().from(agents).where(and(eq(agents.orgId, orgId), eq(agents.id, agentId)));
  if (!agent) throw AppError.notFound("No such agent.");
  return agent;
}

// --- validation beyond the route schemas (which bound types and lengths) ---------------------

const CONTROL = /[\x00-\x1f\x7f]/;

function text(problems: ErrorDetail[], path: string, value: string | undefined, min: number, max: number, options: { multiline?: boolean } = {}) {
  if (value === undefined) return;
  const bad = options.multiline ? /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/ : CONTROL;
  if (value.trim().length < min || value.length > max) problems.push({ path, message: min > 0 ? `must be ${min} to ${max} characters` : `must be at most ${max} characters` });
  else if (bad.test(value)) problems.push({ path, message: "must not contain control characters" });
}

function freeForm(problems: ErrorDetail[], path: string, value: unknown, maxDepth: number, maxBytes: number) {
  if (value === undefined) return;
  const problem = checkFreeForm(value, { maxDepth, maxBytes });
  if (problem) problems.push({ path, message: problem });
}

function validate(input: AgentPatch): ErrorDetail[] {
  const L = AGENT_LIMITS;
  const problems: ErrorDetail[] = [];
  text(problems, "/name", input.name, 1, L.name);
  text(problems, "/instructions", input.instructions, 0, L.instructions, { multiline: true });
  if (input.skills) {
    if (input.skills.length > L.skills) problems.push({ path: "/skills", message: `at most ${L.skills} skills` });
    input.skills.forEach((s, i) => text(problems, `/skills/${i}`, s, 1, L.skill));
    if (new Set(input.skills).size !== input.skills.length) problems.push({ path: "/skills", message: "must not repeat a skill" });
  }
  if (input.routing_rules) {
    if (input.routing_rules.length > L.routingRules) problems.push({ path: "/routing_rules", message: `at most ${L.routingRules} rules` });
    input.routing_rules.forEach((rule, i) => {
      const at = `/routing_rules/${i}`;
      const keywords = rule.match.keywords ?? [];
      if (keywords.length === 0 && rule.match.intent === undefined) problems.push({ path: `${at}/match`, message: "needs keywords or an intent" });
      if (keywords.length > L.keywords) problems.push({ path: `${at}/match/keywords`, message: `at most ${L.keywords} keywords` });
      keywords.forEach((k, j) => text(problems, `${at}/match/keywords/${j}`, k, 1, L.keyword));
      text(problems, `${at}/match/intent`, rule.match.intent, 1, L.intent);
      text(problems, `${at}/team`, rule.team, 1, L.team);
    });
  }
  freeForm(problems, "/avatar_config", input.avatar_config, L.configDepth, L.configBytes);
  freeForm(problems, "/voice_config", input.voice_config, L.configDepth, L.configBytes);
  if (input.flow_config) {
    if (input.flow_config.steps.length > L.flowItems) problems.push({ path: "/flow_config/steps", message: `at most ${L.flowItems} steps` });
    if (input.flow_config.custom_variables.length > L.flowItems) problems.push({ path: "/flow_config/custom_variables", message: `at most ${L.flowItems} variables` });
    freeForm(problems, "/flow_config", input.flow_config, L.flowDepth, L.flowBytes);
  }
  text(problems, "/live_help_label", input.live_help_label, 1, L.liveHelpLabel);
  if (input.video_display_mode !== undefined && !/^[a-z][a-z0-9_-]{0,31}$/.test(input.video_display_mode))
    problems.push({ path: "/video_display_mode", message: `must be 1 to ${L.videoDisplayMode} lower-case letters, digits, - or _` });
  return problems;
}

/** Checks an override and returns what to store (the key encrypted for `level`), or throws 400. */
async function llmOverrideToStore(
  deps: Deps,
  path: string,
  input: LlmOverrideInput,
  previous: LlmOverride | null,
  level: { kind: "org" | "agent"; id: string },
): Promise<LlmOverride> {
  const L = AGENT_LIMITS;
  const problems: ErrorDetail[] = [];
  const baseUrl = input.base_url ?? null;
  const model = input.model ?? null;
  if (input.provider === "builtin") {
    if (baseUrl !== null) problems.push({ path: `${path}/base_url`, message: "is not used by the builtin provider" });
    if (input.api_key !== undefined && input.api_key !== null) problems.push({ path: `${path}/api_key`, message: "is not used by the builtin provider" });
  }
  if (model !== null) text(problems, `${path}/model`, model, 1, L.model);
  if (model === null && input.provider !== "builtin" && input.provider !== deps.config.llm.provider)
    problems.push({ path: `${path}/model`, message: `is required: the operator's model is for ${deps.config.llm.provider}, not ${input.provider}` });
  if (input.api_key !== undefined && input.api_key !== null && (input.api_key.length < 1 || input.api_key.length > L.apiKey || /[\s\x00-\x1f\x7f]/.test(input.api_key)))
    problems.push({ path: `${path}/api_key`, message: `must be 1 to ${L.apiKey} characters without spaces or control characters` });
  if (baseUrl !== null) {
    if (baseUrl.length > L.baseUrl) problems.push({ path: `${path}/base_url`, message: `must be at most ${L.baseUrl} characters` });
    else {
      try {
        const { url } = await checkUrl(baseUrl, deps.guard);
        if (url.hash) problems.push({ path: `${path}/base_url`, message: "must have no fragment" });
      } catch (error) {
        if (!(error instanceof BlockedUrlError)) throw error;
        problems.push({ path: `${path}/base_url`, message: error.message });
      }
    }
  }
  if (problems.length > 0) throw AppError.badRequest("The model settings are invalid.", problems);
  let apiKey: string | null;
  if (input.provider === "builtin" || input.api_key === null) apiKey = null;
  else if (input.api_key !== undefined) apiKey = deps.cipher.encrypt(input.api_key, llmKeyContext(level.kind, level.id));
  else apiKey = previous && previous.provider === input.provider && previous.base_url === baseUrl ? previous.api_key : null;
  return { provider: input.provider, base_url: baseUrl === null ? null : trimBase(baseUrl), model, api_key: apiKey };
}

/** C1: the org's tool snapshot (active agent, toggles) depends on its agents; drop it here and in every instance. */
/** The base URL without trailing slashes on its path (its query, if any, is kept). */
function trimBase(raw: string): string {
  const url = new URL(raw);
  url.pathname = url.pathname.replace(/\/+$/, "");
  return url.href.replace(/\/(?=$|\?)/, "");
}

function afterChange(deps: Deps, orgId: string) {
  deps.tools.invalidate(orgId);
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
const changed = (input: AgentPatch) => Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined).sort();

export async function createAgent(deps: Deps, orgId: string, actor: Actor, input: AgentInput): Promise<Agent> {
  const problems = validate(input);
  if (problems.length > 0) throw AppError.badRequest("The agent is invalid.", problems);
  const id = crypto.randomUUID();
  const llmOverride = input.llm ? await llmOverrideToStore(deps, "/llm", input.llm, null, { kind: "agent", id }) : null;
  const now = deps.now();
  const agent = await deps.db.transaction(async (tx) => {
    await tx.select({ id: orgs.id }).from(orgs).where(eq(orgs.id, orgId)).for("update");
    const [{ count }] = (await tx.select({ count: sql<number>`count(*)::int` }).from(agents).where(eq(agents.orgId, orgId))) as [{ count: number }];
    if (count >= AGENT_LIMITS.agentsPerOrg) throw new AppError(409, "limit_reached", `An organisation has at most ${AGENT_LIMITS.agentsPerOrg} agents.`);
    const [row] = await tx
      .insert(agents)
      .values({ id, orgId, status: input.status ?? "inactive", llmOverride, createdAt: now, updatedAt: now, ...columnsOf(input), name: input.name.trim() })
      .returning();
    await recordActivity({ db: tx, now: deps.now }, { orgId, actor, action: "agent.created", objectType: "agent", objectId: id, summary: { fields: changed(input) } });
    return row!;
  });
  afterChange(deps, orgId);
  return agent;
}

export async function updateAgent(deps: Deps, orgId: string, actor: Actor, agentId: string, patch: AgentPatch): Promise<Agent> {
  const problems = validate(patch);
  if (problems.length > 0) throw AppError.badRequest("The agent is invalid.", problems);
  const current = await readAgent(deps, orgId, agentId);
  let llmOverride: LlmOverride | null | undefined;
  if (patch.llm === null) llmOverride = null;
  else if (patch.llm !== undefined) llmOverride = await llmOverrideToStore(deps, "/llm", patch.llm, current.llmOverride, { kind: "agent", id: agentId });
  const row = await deps.db.transaction(async (tx) => {
    // The row locked, so its status is the one this change replaces: a concurrent activation of
    // this agent either committed before (and is seen here) or waits for this one.
    const [locked] = await tx.select({ status: agents.status }).from(agents).where(and(eq(agents.orgId, orgId), eq(agents.id, agentId))).for("update");
    if (!locked) throw AppError.notFound("No such agent.");
    if (patch.status === "inactive" && locked.status === "active")
      throw new AppError(409, "active_agent", "This is the org's active agent: activate another agent first, or disable it.", [{ path: "/status", message: "cannot make the active agent inactive" }]);
    const [updated] = await tx
      .update(agents)
      .set({ ...columnsOf(patch), ...(patch.status !== undefined ? { status: patch.status as AgentStatus } : {}), ...(llmOverride !== undefined ? { llmOverride } : {}), updatedAt: deps.now() })
      .where(and(eq(agents.orgId, orgId), eq(agents.id, agentId)))
      .returning();
    const statusChanged = patch.status !== undefined && patch.status !== locked.status;
    const action = !statusChanged ? "agent.updated" : patch.status === "disabled" ? "agent.disabled" : "agent.enabled";
    await recordActivity(
      { db: tx, now: deps.now },
      { orgId, actor, action, objectType: "agent", objectId: agentId, summary: { fields: changed(patch), ...(statusChanged ? { previous_status: locked.status } : {}) } },
    );
    return updated!;
  });
  afterChange(deps, orgId);
  return row;
}

/** Makes `agentId` the org's one active agent; the previous one becomes inactive. */
export async function activateAgent(deps: Deps, orgId: string, actor: Actor, agentId: string): Promise<Agent> {
  await readAgent(deps, orgId, agentId);
  const now = deps.now();
  const row = await deps.db.transaction(async (tx) => {
    // One activation per org at a time: the second waits here and then sees the first's result.
    await tx.select({ id: orgs.id }).from(orgs).where(eq(orgs.id, orgId)).for("update");
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
    await recordActivity({ db: tx, now: deps.now }, { orgId, actor, action: "agent.activated", objectType: "agent", objectId: agentId, summary: { previous: before[0]?.id ?? null } });
    return activated!;
  });
  afterChange(deps, orgId);
  return row;
}

// --- the org-wide model -----------------------------------------------------------------------

/** What answers for the org's agents without their own override, and where each part comes from. */
export async function orgLlmView(deps: Deps, orgId: string) {
  const [row] = await deps.db.select().from(orgLlmSettings).where(eq(orgLlmSettings.orgId, orgId));
  const override: LlmOverride | null = row ? { provider: row.provider, base_url: row.baseUrl, model: row.model, api_key: row.apiKey } : null;
  const effective = resolveLlm(deps, override ? { kind: "org", id: orgId, override } : null);
  return {
    // The operator's URL and key are not the org's business; its provider and model are.
    operator_default: { provider: deps.config.llm.provider, model: deps.config.llm.model },
    override: overrideView(override),
    effective: { provider: effective.provider, model: effective.model, source: effective.source },
  };
}

export async function setOrgLlm(deps: Deps, orgId: string, actor: Actor, input: LlmOverrideInput) {
  const [row] = await deps.db.select().from(orgLlmSettings).where(eq(orgLlmSettings.orgId, orgId));
  const previous: LlmOverride | null = row ? { provider: row.provider, base_url: row.baseUrl, model: row.model, api_key: row.apiKey } : null;
  const stored = await llmOverrideToStore(deps, "", input, previous, { kind: "org", id: orgId });
  const values = { provider: stored.provider, baseUrl: stored.base_url, model: stored.model, apiKey: stored.api_key, updatedAt: deps.now() };
  await deps.db.transaction(async (tx) => {
    await tx.insert(orgLlmSettings).values({ orgId, ...values }).onConflictDoUpdate({ target: orgLlmSettings.orgId, set: values });
    await recordActivity({ db: tx, now: deps.now }, { orgId, actor, action: "llm_settings.changed", objectType: "org", objectId: orgId, summary: { provider: stored.provider, model: stored.model, api_key_set: stored.api_key !== null } });
  });
  return orgLlmView(deps, orgId);
}

export async function clearOrgLlm(deps: Deps, orgId: string, actor: Actor) {
  await deps.db.transaction(async (tx) => {
    const removed = await tx.delete(orgLlmSettings).where(eq(orgLlmSettings.orgId, orgId)).returning({ orgId: orgLlmSettings.orgId });
    if (removed.length > 0) await recordActivity({ db: tx, now: deps.now }, { orgId, actor, action: "llm_settings.cleared", objectType: "org", objectId: orgId });
  });
  return orgLlmView(deps, orgId);
}
