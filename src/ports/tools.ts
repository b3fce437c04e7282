// The tool runtime as the rest of the service sees it (`deps.tools`): what a tool looks like when
// listed, who calls it, and what a call answers. The runtime itself (src/tools/runtime.ts) and the
// tool definitions with their `execute` (src/tools/types.ts) sit above `Deps`; callers and `Deps`
// need only these shapes.
import type { Actor } from "../kit/actor.ts";
import type { FeatureFlag } from "../kit/flags.ts";
import type { StageTimer } from "../kit/stage-timer.ts";
import type { Taken } from "../ratelimit/leased.ts";

export interface JsonSchemaObject {
  type: "object";
  properties?: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean | Record<string, unknown>;
  [key: string]: unknown;
}

export type ToolSourceKind = "builtin" | "custom" | "connector";

export interface ToolSource {
  kind: ToolSourceKind;
  /** The custom action's or connector's id (recorded in action executions). */
  id?: string;
  /** Shown to admins: "Knowledge base", "Custom action", a connector's name. */
  label: string;
}

/** Where a tool call comes from (recorded in the audit row). */
export type Channel = "mcp" | "chat" | "campaign" | "dashboard";

/** The customer a call acts for (src/customers/records.ts resolves one). */
export interface BoundCustomer {
  id: string;
  externalId: string | null;
  email: string | null;
  companyId: string | null;
  /** Whether the record was written by verified requests (or the org itself), not only claimed. */
  verified: boolean;
}

/** A tool as listed: everything but how it runs. */
export interface ToolInfo {
  /** Also the action id: `<integration>.<action>`, `mcp.<slug>.<tool>`, or a built-in family name. */
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
  /** Annotation `destructiveHint`: changes state outside the service. */
  destructive: boolean;
  /*
   * The other annotations. Absent means MCP's cautious defaults (docs/interface.md 4.2): title the
   * name, readOnlyHint false, idempotentHint false, openWorldHint true.
   */
  /** Annotation `title` (and the tool's `title` from 2025-06-18): a name for people. */
  title?: string;
  /** Annotation `readOnlyHint`: changes nothing anywhere; a client may run it without asking. */
  readOnly?: boolean;
  /** Annotation `idempotentHint`: calling it again with the same arguments changes nothing more. */
  idempotent?: boolean;
  /** Annotation `openWorldHint`: reaches people or systems outside the service (email, another server). */
  openWorld?: boolean;
  /** `outputSchema` (2025-06-18+): the JSON Schema its results' `structuredContent` follows. */
  outputSchema?: JsonSchemaObject;
  /** The OAuth scope a token needs (src/oauth/scopes.ts). */
  scope: string;
  source: ToolSource;
  /** Whether an agent has it on before anyone toggles it. */
  defaultEnabled: boolean;
  /** A feature flag the org must have on for this tool to exist for it. */
  requiresFlag?: FeatureFlag;
  /** Why the source cannot run it now (e.g. a connector in error), or undefined. */
  sourceDisabled?: string;
}

export interface ToolResult {
  value: unknown;
  /** The tool ran and reports failure (MCP `isError: true`): a result, not a transport error. */
  isError?: boolean;
}

export interface CallScope {
  actor: Actor;
  orgId: string;
  /** The agent acting; default: the org's active agent. */
  agentId?: string;
  /** The customer the call acts for: data tools then see only them. */
  customer?: BoundCustomer;
  channel: Channel;
  /**
   * Resolves the customer inside the call (the tool server's `_meta.bound_*`), so that a binding
   * that fails is refused and audited like any other bad input.
   */
  resolveCustomer?: () => Promise<BoundCustomer | undefined>;
  /** Told the per-token charge of the call (the tool server reports it in X-RateLimit-* headers). */
  onTokenCharge?: (taken: Taken) => void;
  /** Told the call's stages (checks, tool, audit) when the tool server reports Server-Timing. */
  timer?: StageTimer;
}

export interface ToolRuntime {
  /** The scope a built-in tool needs, known before any token (the 401's scope hint); undefined for others. */
  scopeFor?(name: string): string | undefined;
  /** Only what this scope may call. */
  list(scope: CallScope): Promise<ToolInfo[]>;
  /** Throws AppError; always writes the audit row. */
  call(scope: CallScope, name: string, args: unknown): Promise<ToolResult>;
  /** After any change to tools, toggles, flags or agents: this process at once, others via NOTIFY. */
  invalidate(orgId: string): void;
  /** Every tool the org has (flags applied), read fresh: what the agent action toggles list. */
  catalog(orgId: string): Promise<ToolInfo[]>;
  /** The ids of the org's agents, read fresh through the directory (agents/ stands above the toggles that need them). */
  agentIds(orgId: string): Promise<string[]>;
}

/**
 * What the tool runtime reads of the rooms above it: the org's agents (agents/) and its members'
 * roles (orgs/). Implemented and wired by src/compose.ts (`toolDirectory`).
 */
export interface ToolDirectory {
  /** The org's agents with their status and name. */
  agents(orgId: string): Promise<{ id: string; status: string; name: string }[]>;
  /** The org's members with their dashboard roles. */
  memberRoles(orgId: string): Promise<{ memberId: string; roles: string[] }[]>;
}
