// What a tool is, once, for every caller (the MCP tool server and the chat pipeline): name,
// description, input schema, annotations, the scope it needs, where it comes from and how it runs.
import type { StageTimer } from "../kit/stage-timer.ts";
import type { Actor } from "../kit/actor.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import type { Scope } from "../oauth/scopes.ts";
import type { BoundCustomer, Channel, ToolInfo, ToolResult } from "../ports/tools.ts";

export type { BoundCustomer, Channel, JsonSchemaObject, ToolInfo, ToolResult, ToolSource, ToolSourceKind } from "../ports/tools.ts";

/** What a tool may use of `Deps` (the union of what the tools of every source reach). */
export type ToolDeps = Pick<
  Deps,
  | "cipher"
  | "config"
  | "connectorRefreshes"
  | "db"
  | "guard"
  | "invalidation"
  | "knowledge"
  | "live"
  | "log"
  | "metrics"
  | "now"
  | "passages"
  | "statements"
  | "timers"
  | "tools"
>;

export interface ToolContext {
  deps: ToolDeps;
  orgId: string;
  channel: Channel;
  actor: Actor;
  clientId?: string;
  memberId?: string;
  agentId?: string;
  /** That agent's name (what a customer sees it sign with). */
  agentName?: string;
  /** The customer the call acts for; data tools then see only them. */
  boundCustomer?: BoundCustomer;
  /** Aborts when the runtime's deadline for this call passes (src/tools/runtime.ts). */
  signal?: AbortSignal;
  /** Server-Timing stages (SERVER_TIMING=1): a tool may mark its own; the runtime marks the rest as `tool`. */
  timer?: StageTimer;
}

/**
 * A tool as the runtime runs it: what is listed (src/ports/tools.ts) and how it runs. Built-in tools
 * are declared with `defineTool` (src/tools/define.ts), which types `args` from the input schema.
 */
export interface ToolDefinition extends ToolInfo {
  scope: Scope;
  execute(ctx: ToolContext, args: Record<string, unknown>): Promise<ToolResult>;
}

/**
 * A tool failure named by its docs/interface.md 7.1 kind: an AppError like any other (a tool may equally
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

/** Produces the tools one org has from one kind of source: it reads the database; a tool runs with its context's `deps`. */
export type ToolProvider = (deps: Pick<Deps, "db">, orgId: string) => Promise<ToolDefinition[]>;
