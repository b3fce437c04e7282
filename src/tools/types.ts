// What a tool is, once, for every caller (the MCP tool server and the chat pipeline): name,
// description, input schema, annotations, the scope it needs, where it comes from and how it runs.
import type { StageTimer } from "../kit/stage-timer.ts";
import type { Actor } from "../kit/actor.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import type { Scope } from "../oauth/scopes.ts";
import type { FeatureFlag } from "../kit/flags.ts";
import type { BoundCustomer } from "../customers/records.ts";

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

export interface ToolContext {
  deps: Deps;
  orgId: string;
  channel: Channel;
  actor: Actor;
  clientId?: string;
  memberId?: string;
  agentId?: string;
  /** The customer the call acts for; data tools then see only them. */
  boundCustomer?: BoundCustomer;
  /** Aborts when the runtime's deadline for this call passes (src/tools/runtime.ts). */
  signal?: AbortSignal;
  /** Server-Timing stages (SERVER_TIMING=1): a tool may mark its own; the runtime marks the rest as `tool`. */
  timer?: StageTimer;
}

export interface ToolResult {
  value: unknown;
  /** The tool ran and reports failure (MCP `isError: true`): a result, not a transport error. */
  isError?: boolean;
}

export interface ToolDefinition {
  /** Also the action id: `<integration>.<action>`, `mcp.<slug>.<tool>`, or a built-in family name. */
  name: string;
  description: string;
  inputSchema: JsonSchemaObject;
  /** Annotation `destructiveHint`: changes state outside the service. */
  destructive: boolean;
  scope: Scope;
  source: ToolSource;
  /** Whether an agent has it on before anyone toggles it. */
  defaultEnabled: boolean;
  /** A feature flag the org must have on for this tool to exist for it. */
  requiresFlag?: FeatureFlag;
  /** Why the source cannot run it now (e.g. a connector in error), or undefined. */
  sourceDisabled?: string;
  execute(ctx: ToolContext, args: Record<string, unknown>): Promise<ToolResult>;
}

/**
 * A tool failure named by its interface §7.1 kind: an AppError like any other (a tool may equally
 * throw `AppError.notFound(...)`, `AppError.badRequest(...)`, `AppError.toolFailed(...)`).
 */
export class ToolError extends AppError {
  constructor(kind: "unauthorized" | "validation" | "not_found" | "failed", message: string) {
    const [status, code] = TOOL_ERROR_KINDS[kind];
    super(status, code, message);
  }
}

const TOOL_ERROR_KINDS = {
  unauthorized: [403, "forbidden"],
  validation: [400, "validation_failed"],
  not_found: [404, "not_found"],
  failed: [502, "tool_failed"],
} as const;

/** Produces the tools one org has from one kind of source. */
export type ToolProvider = (deps: Deps, orgId: string) => Promise<ToolDefinition[]>;
