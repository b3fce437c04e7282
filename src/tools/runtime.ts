// The tool runtime: the one function every caller uses to run a tool — an MCP token through
// /api/mcp, a widget chat's agent, the campaign sender, a dashboard member. For a call it
//   1. charges the per-token limit (token actors: `tools/call`, docs/interface.md 8.1),
//   2. resolves visibility: flags, the agent (named or the org's active one) and its toggles,
//      scopes (tokens only), the destructive rules (src/tools/registry.ts),
//   3. validates the arguments against the tool's JSON Schema (Ajv),
//   4. charges the per-org per-action limit (whatever the channel, docs/interface.md 8.1),
//   5. runs the tool under its deadline,
//   6. maps every failure to one AppError (validation_failed -32602, not_found -32601,
//      forbidden/rate_limited -32002, tool_failed -32603), and
//   7. writes the audit row (action_executions) — always, whatever the input, success or not —
//      and answers only once it is committed (src/tools/audit.ts: group commit).
// It is carried in deps as `deps.tools`; the per-org snapshot and the Ajv cache live inside it.
import type { Actor } from "../kit/actor.ts";
import type { ExecutionOutcome } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError, knownError } from "../errors.ts";
import type { Invalidation } from "../invalidation.ts";
import { checkFreeForm } from "../http/free-form.ts";
import { JSON_MAX_DEPTH } from "../http/json.ts";
import { createFreshCache } from "../kit/fresh-cache.ts";
import { isUuid } from "../kit/ids.ts";
import { isTimeout } from "../kit/timeouts.ts";
import type { Limiter } from "../ratelimit/leased.ts";
import { chargeToken } from "../ratelimit/per-token.ts";
import type { BoundCustomer, CallScope, ToolDirectory, ToolRuntime } from "../ports/tools.ts";
import { createAuditWriter, flushes } from "./audit.ts";
import { agentOf, denial, loadSnapshot, type OrgSnapshot, refusal, SNAPSHOT_TTL_MS } from "./registry.ts";
import type { ToolDefinition, ToolDeps, ToolProvider } from "./types.ts";
import { createArgumentValidator } from "./validate.ts";

export type { Actor } from "../kit/actor.ts";
export type { Channel } from "./types.ts";
export type { CallScope, ToolRuntime } from "../ports/tools.ts";

/**
 * The backstop deadline of any tool. Outbound tools (connectors, custom actions) have their own
 * 30 s deadline (docs/interface.md 8.1) and a more specific message, so this one fires a little later.
 */
export const TOOL_DEADLINE_MS = 35_000;
/** The audit row's error text is capped (one call once stored 60 KB of input). */
export const AUDIT_ERROR_MAX = 1000;
const AUDIT_TOOL_MAX = 200;
/** Arguments as deep as any JSON body may be, and as large as the tool server's body limit. */
const ARGUMENT_LIMITS = { maxDepth: JSON_MAX_DEPTH, maxBytes: 1024 * 1024 };

/** Text safe to store: PostgreSQL refuses NUL in text, and it is capped. */
function storable(text: string, max: number): string {
  const clean = text.replace(/\u0000/g, "\uFFFD");
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

function actorId(actor: Actor): string {
  switch (actor.kind) {
    case "token":
      return actor.tokenId;
    case "member":
      return actor.memberId;
    case "customer":
      return actor.endUserId ?? actor.sessionId ?? "anonymous";
    case "system":
      return actor.name;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What a tool threw, as the AppError the caller sees. Nothing of an unexpected error's cause leaks. */
function asAppError(deps: Pick<Deps, "log">, tool: ToolDefinition | undefined, error: unknown): AppError {
  // The database gone is no tool's failure: the caller is told to retry (README "Faults and shutdown").
  const known = knownError(error);
  if (known?.code === "database_unavailable") return known;
  if (error instanceof AppError) {
    if (error.status >= 500 && error.code !== "tool_failed") return AppError.toolFailed(`${tool?.name ?? "The tool"} failed.`);
    // 401 belongs to the caller's own credentials (a client would drop its token): a tool's
    // "unauthorized" is a refusal, -32002 (docs/interface.md 7.1).
    if (error.status === 401) return AppError.forbidden(error.message);
    return error;
  }
  if (tool && isTimeout(error)) return AppError.toolFailed(`${tool.name} did not answer within ${TOOL_DEADLINE_MS / 1000} s.`);
  deps.log.error("tool failed", { tool: tool?.name, error });
  return AppError.toolFailed(`${tool?.name ?? "The tool"} failed.`);
}

/** Runs `work` until it settles or `signal` aborts, whichever comes first. */
function underDeadline<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason ?? new DOMException("The operation timed out.", "TimeoutError"));
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    work()
      .then(resolve, reject)
      .finally(() => signal.removeEventListener("abort", abort));
  });
}

export interface RuntimeOptions {
  providers: readonly ToolProvider[];
  limiter: Limiter;
  invalidation: Invalidation;
  /** The org's agents and members' roles, from the rooms above (src/compose.ts wires it). */
  directory: ToolDirectory;
  /** The built-in tools (the same for every org): their scopes answer `scopeFor` without an org. */
  builtins?: readonly ToolDefinition[];
}

/** `deps` is the object that will carry this runtime (read at call time, never at build time). */
export function createToolRuntime(deps: ToolDeps, options: RuntimeOptions): ToolRuntime {
  const { providers, limiter, invalidation, directory } = options;
  const validator = createArgumentValidator();
  const auditWriter = createAuditWriter(() => deps.db);
  // Per org, reloaded in the background before it expires (src/kit/fresh-cache.ts); an
  // invalidation drops it here at once and in other instances through NOTIFY.
  const snapshots = createFreshCache<OrgSnapshot>({
    ttlMs: SNAPSHOT_TTL_MS,
    aheadMs: SNAPSHOT_TTL_MS / 4,
    maxEntries: 10_000,
    now: () => deps.now().getTime(),
    load: (orgId) => loadSnapshot(deps, providers, directory, orgId),
  });
  invalidation.subscribe("tools", (orgId) => snapshots.delete(orgId));
  const snapshot = (orgId: string) => snapshots.get(orgId);

  /**
   * The snapshot for a scope. A token's member missing from it (a membership newer than the
   * snapshot) reloads it once rather than refusing a member who may hold the role.
   */
  async function snapshotFor(scope: CallScope): Promise<OrgSnapshot> {
    const snap = await snapshot(scope.orgId);
    if (scope.actor.kind !== "token" || snap.memberRoles.has(scope.actor.memberId)) return snap;
    snapshots.delete(scope.orgId);
    return snapshot(scope.orgId);
  }

  const actionLimit = () => ({ limit: deps.config.actionRateLimitPerMinute, windowSeconds: 60 });

  async function audit(
    scope: CallScope,
    row: {
      tool: ToolDefinition | undefined;
      name: string;
      agentId: string | undefined;
      customer: BoundCustomer | undefined;
      outcome: ExecutionOutcome;
      error: string | null;
      started: number;
      ran: boolean;
    },
  ) {
    const { actor } = scope;
    const customerId = row.customer?.id ?? (actor.kind === "customer" ? actor.endUserId : null);
    deps.metrics.toolCall(scope.channel, row.outcome, (performance.now() - row.started) / 1000);
    await auditWriter.write(
      {
        orgId: scope.orgId,
        channel: scope.channel,
        actorKind: actor.kind,
        actorId: storable(actorId(actor), AUDIT_TOOL_MAX),
        clientId: actor.kind === "token" ? actor.clientId : null,
        memberId: actor.kind === "token" || actor.kind === "member" ? actor.memberId : null,
        agentId: row.agentId ?? null,
        tool: storable(row.name, AUDIT_TOOL_MAX),
        sourceKind: row.tool?.source.kind ?? "unknown",
        sourceId: row.tool?.source.id ?? null,
        boundEndUserId: customerId && isUuid(customerId) ? customerId : null,
        outcome: row.outcome,
        durationMs: Math.round(performance.now() - row.started),
        error: row.error === null ? null : storable(row.error, AUDIT_ERROR_MAX),
        createdAt: deps.now(),
      },
      { flush: flushes(row.tool, row.ran) },
    );
  }

  const builtinScopes = new Map((options.builtins ?? []).map((t) => [t.name, t.scope]));
  return {
    scopeFor: (name) => builtinScopes.get(name),

    async list(scope) {
      const snap = await snapshotFor(scope);
      const caller = {
        actor: scope.actor,
        channel: scope.channel,
        agentId: agentOf(snap, scope.agentId),
        customerBound: scope.customer !== undefined,
        customerVerified: scope.customer?.verified === true,
      };
      return snap.tools.filter((tool) => !denial(snap, caller, tool));
    },

    async call(scope, name, args) {
      const started = performance.now();
      // The name arrives from JSON: typed as a string by the contract, checked as input here.
      const label = typeof name === "string" ? name : "";
      let tool: ToolDefinition | undefined;
      let agentId: string | undefined;
      let agentName: string | undefined;
      let customer = scope.customer;
      let outcome: ExecutionOutcome = "error";
      let errorText: string | null = null;
      let ran = false;
      try {
        if (scope.actor.kind === "token") {
          const taken = await chargeToken(limiter, deps.config, scope.actor.tokenId, "tools/call", deps.now());
          scope.onTokenCharge?.(taken);
          if (!taken.allowed)
            throw AppError.tooManyRequests(
              taken.retryAfter,
              `Rate limit exceeded: ${taken.limit} tools/call per minute per token; retry in ${taken.retryAfter} s.`,
            );
        }
        if (typeof name !== "string") throw AppError.badRequest("Invalid params: /name must be a string.");
        const snap = await snapshotFor(scope);
        agentId = agentOf(snap, scope.agentId);
        agentName = agentId === undefined ? undefined : snap.agentNames.get(agentId);
        tool = snap.tools.find((t) => t.name === name);
        if (!tool) throw AppError.notFound(`Unknown tool: ${storable(name, AUDIT_TOOL_MAX)}`);
        // A customer actor's binding is always given up front (resolveCustomer is the tool server's).
        const denied = denial(
          snap,
          {
            actor: scope.actor,
            channel: scope.channel,
            agentId,
            customerBound: customer !== undefined || scope.resolveCustomer !== undefined,
            customerVerified: customer?.verified === true,
          },
          tool,
        );
        if (denied) throw refusal(deps, denied);
        const input = args ?? {};
        if (!isPlainObject(input)) throw AppError.badRequest("Invalid params: /arguments must be an object.");
        // Bounded first (depth, and no NUL or other control characters, which PostgreSQL refuses),
        // so no tool ever sees such input and Ajv never walks a 10⁴-deep value.
        const unsafe = checkFreeForm(input, ARGUMENT_LIMITS);
        if (unsafe) throw AppError.badRequest(`Invalid arguments for ${tool.name}: ${unsafe}`);
        const problem = validator.problem(tool.inputSchema, input);
        if (problem) throw AppError.badRequest(`Invalid arguments for ${tool.name}: ${problem}`);
        customer ??= await scope.resolveCustomer?.();
        const limit = actionLimit();
        const cap = await limiter.take(`action:${scope.orgId}:${tool.name}`, limit, deps.now());
        if (!cap.allowed)
          throw AppError.tooManyRequests(
            cap.retryAfter,
            `${tool.name} is rate limited for this organisation (${cap.limit} calls per ${limit.windowSeconds} s); retry in ${cap.retryAfter} s.`,
          );
        scope.timer?.mark("checks");
        const signal = deps.timers.deadline(TOOL_DEADLINE_MS);
        const { actor } = scope;
        const run = tool;
        ran = true;
        const result = await underDeadline(signal, () =>
          run.execute(
            {
              deps,
              orgId: scope.orgId,
              channel: scope.channel,
              actor,
              clientId: actor.kind === "token" ? actor.clientId : undefined,
              memberId: actor.kind === "token" || actor.kind === "member" ? actor.memberId : undefined,
              agentId,
              agentName,
              boundCustomer: customer,
              signal,
              timer: scope.timer,
            },
            input,
          ),
        );
        scope.timer?.mark("tool");
        outcome = result.isError ? "tool_error" : "ok";
        return result;
      } catch (error) {
        const failure = asAppError(deps, tool, error);
        outcome = failure.reason ? "denied" : "error";
        errorText = failure.message;
        throw failure;
      } finally {
        await audit(scope, { tool, name: label, agentId, customer, outcome, error: errorText, started, ran });
        scope.timer?.mark("audit");
      }
    },

    invalidate(orgId) {
      invalidation.publish("tools", orgId);
    },

    async catalog(orgId) {
      return (await loadSnapshot(deps, providers, directory, orgId)).tools;
    },

    async agentIds(orgId) {
      return (await directory.agents(orgId)).map((a) => a.id);
    },
  };
}
