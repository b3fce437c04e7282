// The one registry of tools, for the MCP tool server and the chat pipeline. It answers two
// questions for a caller: which tools exist for this org (from every provider), and may this
// caller use each one — and if not, why (each reason has its own message, interface §7.1 -32002).
// A tool the caller may not use is never listed (ARCHITECTURE habit 13).
import { and, eq } from "drizzle-orm";
import { actionExecutions, agentActionToggles, agents } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { readFlags } from "../kit/flags.ts";
import type { Limiter } from "../ratelimit/leased.ts";
import { dataTools } from "./families/data.ts";
import { docsTools } from "./families/docs.ts";
import { inboxTools } from "./families/inbox.ts";
import { type ToolContext, type ToolDefinition, ToolError, type ToolProvider, type ToolResult } from "./types.ts";
import { argumentProblem } from "./validate.ts";
import { messageOf } from "../errors.ts";

export const builtinTools: ToolProvider = async () => [...docsTools, ...dataTools, ...inboxTools];

export type DenialReason = "flag" | "integration" | "agent" | "toggle" | "scope" | "destructive" | "rate_limited";

export interface Denial {
  reason: DenialReason;
  message: string;
  /** For `scope`: the scope the tool needs. */
  scope?: string;
  retryAfter?: number;
}

export interface Caller {
  orgId: string;
  /** Scopes of the caller's token; undefined for the chat pipeline, which is not scope-bound. */
  scopes?: readonly string[];
  channel: "mcp" | "chat";
  clientId?: string;
  memberId?: string;
}

export interface Access {
  agentId?: string;
  entries: { tool: ToolDefinition; denied?: Denial }[];
}

export interface Registry {
  /** Every tool the org has (feature flags applied): what the agent action toggles list. */
  orgTools(deps: Deps, orgId: string): Promise<ToolDefinition[]>;
  access(deps: Deps, caller: Caller): Promise<Access>;
}

/**
 * How long one process reuses an org's tool snapshot (flags, active agent, tools, toggles).
 * Changes made anywhere — dashboard, CLI, another instance, discovery — reach tools/list and
 * tools/call within this long; a request never costs the snapshot's queries more than once per TTL.
 */
export const SNAPSHOT_TTL_MS = 1000;

interface Snapshot {
  flags: Record<string, boolean>;
  agentId?: string;
  tools: ToolDefinition[];
  toggles: Map<string, boolean>;
}

export function createRegistry(providers: ToolProvider[]): Registry {
  const snapshots = new Map<string, { value: Promise<Snapshot>; until: number }>();

  async function all(deps: Deps, orgId: string, flags: Record<string, boolean>) {
    const lists = await Promise.all(providers.map((p) => p(deps, orgId)));
    return lists.flat().filter((t) => !t.requiresFlag || flags[t.requiresFlag] === true);
  }

  async function load(deps: Deps, orgId: string): Promise<Snapshot> {
    const [agent] = await deps.db.select({ id: agents.id }).from(agents).where(and(eq(agents.orgId, orgId), eq(agents.status, "active"))).limit(1);
    const flags = await readFlags(deps, orgId);
    const tools = await all(deps, orgId, flags);
    const toggles = agent
      ? new Map((await deps.db.select().from(agentActionToggles).where(eq(agentActionToggles.agentId, agent.id))).map((t) => [t.actionId, t.enabled]))
      : new Map<string, boolean>();
    return { flags, agentId: agent?.id, tools, toggles };
  }

  function snapshot(deps: Deps, orgId: string): Promise<Snapshot> {
    const now = deps.now().getTime();
    const hit = snapshots.get(orgId);
    if (hit && hit.until > now) return hit.value;
    if (snapshots.size > 10_000) for (const [k, v] of snapshots) if (v.until <= now) snapshots.delete(k);
    const value = load(deps, orgId);
    snapshots.set(orgId, { value, until: now + SNAPSHOT_TTL_MS });
    value.catch(() => snapshots.delete(orgId));
    return value;
  }

  return {
    async orgTools(deps, orgId) {
      // The dashboard reads fresh state.
      return (await load(deps, orgId)).tools;
    },

    async access(deps, caller) {
      const { flags, agentId, tools, toggles } = await snapshot(deps, caller.orgId);
      const entries = tools.map((tool) => {
        const denied = denial(tool, caller, flags, agentId !== undefined, toggles.get(tool.name) ?? tool.defaultEnabled);
        return denied ? { tool, denied } : { tool };
      });
      return { agentId, entries };
    },
  };
}

function denial(tool: ToolDefinition, caller: Caller, flags: Record<string, boolean>, hasAgent: boolean, enabled: boolean): Denial | undefined {
  if (tool.sourceDisabled) return { reason: "integration", message: `${tool.name} is unavailable: ${tool.sourceDisabled}` };
  if (!hasAgent) return { reason: "agent", message: "This organisation has no active agent: its agent is disabled." };
  if (!enabled) return { reason: "toggle", message: `${tool.name} is switched off for this organisation's agent.` };
  if (caller.scopes && !caller.scopes.includes(tool.scope))
    return { reason: "scope", scope: tool.scope, message: `This token lacks the ${tool.scope} scope that ${tool.name} needs.` };
  if (caller.channel === "mcp" && tool.destructive && flags.mcp_destructive_tools !== true)
    return { reason: "destructive", message: `${tool.name} is destructive, and this organisation blocks destructive tools over MCP (feature flag mcp_destructive_tools is off).` };
  return undefined;
}

/** Per org and per action, whatever the channel (interface §8.1). */
export interface ActionLimit {
  limit: number;
  windowSeconds: number;
}

export interface CallRequest {
  caller: Caller;
  access: Access;
  entry: Access["entries"][number];
  args: unknown;
  context: Omit<ToolContext, "deps" | "orgId" | "channel" | "clientId" | "memberId" | "agentId">;
  actionLimit: ActionLimit;
}

export type CallOutcome = { ok: true; result: ToolResult } | { ok: false; denied: Denial } | { ok: false; error: ToolError };

/** Validates, enforces the per-action cap, runs the tool and records the execution. */
export async function callTool(deps: Deps, limiter: Limiter, request: CallRequest): Promise<CallOutcome> {
  const { caller, entry } = request;
  const tool = entry.tool;
  const started = performance.now();
  const outcome = await (async (): Promise<CallOutcome> => {
    if (entry.denied) return { ok: false, denied: entry.denied };
    const args = request.args ?? {};
    const problem = argumentProblem(tool.inputSchema, args);
    if (problem) return { ok: false, error: new ToolError("validation", `Invalid arguments for ${tool.name}: ${problem}`) };
    const cap = await limiter.take(`action:${caller.orgId}:${tool.name}`, request.actionLimit, deps.now());
    if (!cap.allowed)
      return {
        ok: false,
        denied: { reason: "rate_limited", retryAfter: cap.retryAfter, message: `${tool.name} is rate limited for this organisation (${cap.limit} calls per ${request.actionLimit.windowSeconds} s); retry in ${cap.retryAfter} s.` },
      };
    try {
      const result = await tool.execute(
        { deps, orgId: caller.orgId, channel: caller.channel, clientId: caller.clientId, memberId: caller.memberId, agentId: request.access.agentId, ...request.context },
        args as Record<string, unknown>,
      );
      return { ok: true, result };
    } catch (error) {
      if (error instanceof ToolError) return { ok: false, error };
      deps.log.error("tool failed", { tool: tool.name, error: messageOf(error) });
      return { ok: false, error: new ToolError("failed", `${tool.name} failed.`) };
    }
  })();
  await deps.db.insert(actionExecutions).values({
    orgId: caller.orgId,
    channel: caller.channel,
    clientId: caller.clientId ?? null,
    memberId: caller.memberId ?? null,
    agentId: request.access.agentId ?? null,
    tool: tool.name,
    sourceKind: tool.source.kind,
    sourceId: tool.source.id ?? null,
    boundEndUserId: request.context.boundCustomer?.id ?? null,
    outcome: outcome.ok ? (outcome.result.isError ? "tool_error" : "ok") : "denied" in outcome ? "denied" : "error",
    durationMs: Math.round(performance.now() - started),
    error: outcome.ok ? null : "denied" in outcome ? outcome.denied.message : outcome.error.message,
    createdAt: deps.now(),
  });
  return outcome;
}
