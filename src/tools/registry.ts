// Which tools exist for an org, and may this caller use each one — and if not, why (each reason
// has its own message, docs/interface.md 7.1 -32002). A tool the caller may not use is never listed
// (ARCHITECTURE habit 13). The runtime (src/tools/runtime.ts) keeps one snapshot per org of what
// these answers need and drops it on every change (src/invalidation.ts).
import { inArray } from "drizzle-orm";
import { agentActionToggles } from "../db/schema/index.ts";
import type { ToolDirectory } from "../ports/tools.ts";
import { hasRole } from "../auth/roles.ts";
import { SCOPE_ROLES } from "../oauth/scopes.ts";
import type { Deps } from "../deps.ts";
import { AppError, type DenialReason } from "../errors.ts";
import { readFlags } from "../tenancy/flags.ts";
import { bearerChallenge } from "../oauth/metadata.ts";
import type { Actor } from "../kit/actor.ts";
import type { Channel, ToolDefinition, ToolProvider } from "./types.ts";

/**
 * The longest one process reuses an org's snapshot when no invalidation reaches it. Changes made
 * through the service drop the snapshot at once here and, through NOTIFY, in every other
 * instance within milliseconds; this bounds what a lost notification or a change made outside
 * the service (by hand in the database) can leave stale (docs/decisions.md).
 */
export const SNAPSHOT_TTL_MS = 1000;

export interface OrgSnapshot {
  flags: Record<string, boolean>;
  activeAgentId?: string;
  /** Every agent of the org (a call may name one). */
  agentIds: Set<string>;
  /** Agent id → name: who an AI-written ticket message is signed by. */
  agentNames: Map<string, string>;
  /** Those of them that are disabled: they run no tools, even when a call names them. */
  disabledAgentIds: Set<string>;
  /** Every tool of the org, feature flags applied. */
  tools: ToolDefinition[];
  /** Per agent: action id → enabled. Absent means the tool's default. */
  toggles: Map<string, Map<string, boolean>>;
  /** Member id → dashboard roles in this org: what a token's member may do (SCOPE_ROLES). */
  memberRoles: Map<string, readonly string[]>;
}

export async function loadSnapshot(deps: Pick<Deps, "db">, providers: readonly ToolProvider[], directory: ToolDirectory, orgId: string): Promise<OrgSnapshot> {
  const [orgAgents, flags, members] = await Promise.all([directory.agents(orgId), readFlags(deps, orgId), directory.memberRoles(orgId)]);
  const lists = await Promise.all(providers.map((p) => p(deps, orgId)));
  const tools = lists.flat().filter((t) => !t.requiresFlag || flags[t.requiresFlag] === true);
  const toggles = new Map<string, Map<string, boolean>>(orgAgents.map((a) => [a.id, new Map()]));
  if (orgAgents.length > 0) {
    const rows = await deps.db
      .select()
      .from(agentActionToggles)
      .where(
        inArray(
          agentActionToggles.agentId,
          orgAgents.map((a) => a.id),
        ),
      );
    for (const row of rows) toggles.get(row.agentId)!.set(row.actionId, row.enabled);
  }
  const memberRoles = new Map(members.map((m) => [m.memberId, m.roles] as const));
  return {
    flags,
    activeAgentId: orgAgents.find((a) => a.status === "active")?.id,
    agentIds: new Set(orgAgents.map((a) => a.id)),
    agentNames: new Map(orgAgents.map((a) => [a.id, a.name] as const)),
    disabledAgentIds: new Set(orgAgents.filter((a) => a.status === "disabled").map((a) => a.id)),
    tools,
    toggles,
    memberRoles,
  };
}

/**
 * The agent a call acts as: the one it names if the org has it (a disabled one included, so the
 * refusal and the audit row name it: see `denial`), else the org's active agent.
 */
export function agentOf(snapshot: OrgSnapshot, agentId: string | undefined): string | undefined {
  if (agentId !== undefined) return snapshot.agentIds.has(agentId) ? agentId : undefined;
  return snapshot.activeAgentId;
}

export interface Caller {
  actor: Actor;
  channel: Channel;
  agentId: string | undefined;
  /** Whether the call acts bound to one customer (MCP `_meta.bound_*`, or the chatting customer). */
  customerBound: boolean;
  /** Whether that customer's record was proven (a valid user_token, or written by the org itself), not only claimed. */
  customerVerified: boolean;
}

/** Why a caller may not use a tool: a plain value, since tools/list asks for every tool on every call. */
export interface Denial {
  reason: DenialReason;
  message: string;
  /** For `scope`: the scope the tool needs. */
  scope?: string;
  /** For `scope`: the scopes the token already holds (the step-up challenge asks for both). */
  granted?: readonly string[];
}

/** Why this caller may not use this tool, or undefined if it may. Order decides which message a caller sees when several apply. */
export function denial(snapshot: OrgSnapshot, caller: Caller, tool: ToolDefinition): Denial | undefined {
  if (tool.sourceDisabled) return { reason: "integration", message: `${tool.name} is unavailable: ${tool.sourceDisabled}` };
  if (caller.agentId === undefined) return { reason: "agent", message: "This organisation has no active agent: its agent is disabled." };
  // A disabled agent answers nothing (docs/decisions.md "Disabling an agent"), named or not. A call
  // already past this check when the agent is disabled finishes; the service drops the snapshot,
  // so the next call sees the new status.
  if (snapshot.disabledAgentIds.has(caller.agentId))
    return { reason: "agent", message: "This call's agent is disabled: it runs no tools until an admin enables it." };
  const toggle = snapshot.toggles.get(caller.agentId)?.get(tool.name);
  if (!(toggle ?? tool.defaultEnabled)) return { reason: "toggle", message: `${tool.name} is switched off for this organisation's agent.` };
  // Only OAuth tokens carry scopes; the other channels act for the org itself.
  if (caller.actor.kind === "token" && !caller.actor.scopes.includes(tool.scope))
    return { reason: "scope", scope: tool.scope, granted: caller.actor.scopes, message: `This token lacks the ${tool.scope} scope that ${tool.name} needs.` };
  if (caller.actor.kind === "token") {
    const role = SCOPE_ROLES[tool.scope];
    if (!hasRole(snapshot.memberRoles.get(caller.actor.memberId) ?? [], role))
      return { reason: "role", message: `The member who authorised this token lacks the ${role} role that ${tool.name} needs.` };
  }
  // A customer's chat acts for that customer only, whoever calls the runtime for it (
  // docs/decisions.md "Chat tools"): the admin areas never, customer data only bound to them —
  // unbound, data_* and inbox_* would see every customer of the org; bound to a customer who only
  // claimed an id (no user_token), they would show whoever claims it next what was stored under it.
  if (caller.actor.kind === "customer") {
    const area = tool.scope.split(":")[0];
    if (area === "setup" || area === "automation") return { reason: "customer", message: `${tool.name} is not available in a customer's chat.` };
    if ((area === "data" || area === "inbox") && !caller.customerBound)
      return { reason: "customer", message: `${tool.name} reads customer records and runs in a chat only for an identified customer.` };
    if ((area === "data" || area === "inbox") && !caller.customerVerified)
      return {
        reason: "customer",
        message: `${tool.name} reads customer records and runs in a chat only for a customer whose identity was verified (a user_token).`,
      };
    // An integration's action runs with the org's own credentials and is told nothing it can trust
    // about the visitor: in a chat it runs only when an admin switched it on for the agent.
    if ((tool.source.kind === "custom" || tool.source.kind === "connector") && toggle !== true)
      return { reason: "toggle", message: `${tool.name} is an integration action and is not switched on for chats with this agent.` };
  }
  if (tool.destructive) {
    if (caller.channel === "mcp" && snapshot.flags.mcp_destructive_tools !== true)
      return {
        reason: "destructive",
        message: `${tool.name} is destructive, and this organisation blocks destructive tools over MCP (feature flag mcp_destructive_tools is off).`,
      };
    // An agent acting on its own (chat, campaigns, dashboard) runs a destructive tool only when an
    // admin switched it on for that agent explicitly, never by a default.
    if (caller.channel !== "mcp" && toggle !== true)
      return { reason: "destructive", message: `${tool.name} is destructive and not switched on for this agent.` };
  }
  return undefined;
}

/**
 * A denial as the error the call fails with: 403 -32002 with its reason; a missing scope also says
 * which (docs/interface.md A.6). The challenge's `scope` is the scopes the token holds plus the one
 * it lacks (2025-11-25 authorization, "Scope Challenge Handling", the recommended approach): a
 * client asks for exactly that set at step-up, and keeps what it was granted.
 */
export function refusal(deps: Pick<Deps, "config">, denied: Denial): AppError {
  const scope = denied.scope ? [...new Set([...(denied.granted ?? []), denied.scope])].join(" ") : undefined;
  const challenge = scope
    ? { "www-authenticate": bearerChallenge(deps.config, { error: "insufficient_scope", description: denied.message, scope }) }
    : undefined;
  return AppError.forbidden(denied.message, denied.reason, challenge);
}
