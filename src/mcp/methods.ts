// The tool server's methods (interface §4.2): initialize, ping, tools/list, tools/call.
import type { Deps } from "../deps.ts";
import type { AccessContext } from "../oauth/tokens.ts";
import { type Access, type ActionLimit, callTool, type Registry } from "../tools/registry.ts";
import { boundCustomerOf, findEndUser, findEndUserByEmail } from "../workspace/customers.ts";
import { RPC, RpcError, type RpcRequest } from "./jsonrpc.ts";
import { bearerChallenge } from "../oauth/metadata.ts";
import type { Limiter } from "../ratelimit/leased.ts";

export const PROTOCOL_VERSION = "2025-03-26";
export const SERVER_INFO = { name: "svc-agents", version: "1.0.0" };
export const METHODS = ["initialize", "ping", "tools/list", "tools/call"] as const;

export interface McpContext {
  deps: Deps;
  registry: Registry;
  limiter: Limiter;
  token: AccessContext;
  actionLimit: ActionLimit;
  /** Computed once per HTTP request, shared by the messages of a batch. */
  access(): Promise<Access>;
}

const FAILURE_CODES = { unauthorized: RPC.FORBIDDEN, validation: RPC.INVALID_PARAMS, not_found: RPC.METHOD_NOT_FOUND, failed: RPC.INTERNAL_ERROR } as const;

function text(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/** `_meta.bound_end_user_id` / `bound_email`, resolved within the token's org on every call. */
async function boundCustomer(ctx: McpContext, meta: unknown) {
  if (meta === undefined) return undefined;
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) throw new RpcError(RPC.INVALID_PARAMS, "Invalid params: _meta must be an object.");
  const { bound_end_user_id: id, bound_email: email } = meta as Record<string, unknown>;
  if (id === undefined && email === undefined) return undefined;
  if ((id !== undefined && typeof id !== "string") || (email !== undefined && typeof email !== "string"))
    throw new RpcError(RPC.INVALID_PARAMS, "Invalid params: _meta.bound_end_user_id and _meta.bound_email must be strings.");
  const byId = id !== undefined ? await findEndUser(ctx.deps, ctx.token.orgId, id) : null;
  const byEmail = email !== undefined ? await findEndUserByEmail(ctx.deps, ctx.token.orgId, email) : null;
  const user = id !== undefined ? byId : byEmail;
  // The same answer whether the customer is unknown, stale or another org's: no hint either way.
  if (!user || (byId && email !== undefined && byEmail?.id !== byId.id)) throw new RpcError(RPC.INVALID_PARAMS, "Invalid params: the bound customer is not known in this organisation.");
  return boundCustomerOf(user);
}

export async function dispatch(ctx: McpContext, request: RpcRequest): Promise<unknown> {
  switch (request.method) {
    case "initialize":
      // INTEROP A.3: answer 2025-03-26 whatever the client proposes.
      return { protocolVersion: PROTOCOL_VERSION, serverInfo: SERVER_INFO, capabilities: { tools: { listChanged: false } } };
    case "ping":
      return {};
    case "tools/list": {
      const access = await ctx.access();
      return {
        tools: access.entries
          .filter((e) => !e.denied)
          .map(({ tool }) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, annotations: { destructiveHint: tool.destructive } })),
      };
    }
    case "tools/call": {
      const params = request.params ?? {};
      if (typeof params.name !== "string") throw new RpcError(RPC.INVALID_PARAMS, "Invalid params: /name must be a string.");
      if (params.arguments !== undefined && (typeof params.arguments !== "object" || params.arguments === null || Array.isArray(params.arguments)))
        throw new RpcError(RPC.INVALID_PARAMS, "Invalid params: /arguments must be an object.");
      const access = await ctx.access();
      const entry = access.entries.find((e) => e.tool.name === params.name);
      if (!entry) throw new RpcError(RPC.METHOD_NOT_FOUND, `Unknown tool: ${params.name}`);
      const outcome = await callTool(ctx.deps, ctx.limiter, {
        caller: { orgId: ctx.token.orgId, scopes: ctx.token.scopes, channel: "mcp", clientId: ctx.token.clientId, memberId: ctx.token.memberId },
        access,
        entry,
        args: params.arguments ?? {},
        context: { boundCustomer: await boundCustomer(ctx, params._meta) },
        actionLimit: ctx.actionLimit,
      });
      if (outcome.ok) return { content: [{ type: "text", text: text(outcome.result.value) }], isError: outcome.result.isError === true };
      if ("denied" in outcome) {
        const d = outcome.denied;
        const http: { status: number; headers: Record<string, string> } | undefined =
          d.reason === "scope"
            ? { status: 403, headers: { "www-authenticate": bearerChallenge(ctx.deps.config, { error: "insufficient_scope", description: d.message, scope: d.scope }) } }
            : d.reason === "rate_limited"
              ? { status: 429, headers: { "retry-after": String(d.retryAfter ?? 60) } }
              : undefined;
        throw new RpcError(RPC.FORBIDDEN, d.message, { reason: d.reason }, http);
      }
      throw new RpcError(FAILURE_CODES[outcome.error.kind], outcome.error.message);
    }
    default:
      throw new RpcError(RPC.METHOD_NOT_FOUND, `Method not found: ${request.method}`);
  }
}

