// One tools/call on a connector's server (docs/interface.md 4.1, docs/interface.md B.6): a fresh session under the
// 30 s deadline, the customer binding in `_meta`, the answer reduced to one value for the tool
// server's text block. The server's failures become an isError result, never an exception.
//
// A server that issued no session id keeps nothing between requests, so its handshake (protocol
// version, serverInfo) is kept in a HandshakeSlot that lives as long as the org's tool snapshot
// (src/connectors/tools.ts makes one per connector per snapshot: at most SNAPSHOT_TTL_MS, and any
// change to the connector or the org's tools drops it), and read-only or idempotent calls go out
// on it with one request instead of three (McpSession.resume). Those are the calls that may be
// retried: if the server refuses one (400/404), it handshakes again and retries once (docs/interface.md
// B.6). Destructive calls, and every call to a server that issues session ids, still get a fresh
// session each (docs/interface.md B.7: a session is never shared between calls, so never between two
// customers of an org).
import { eq } from "drizzle-orm";
import { connectors, type DiscoveredTool } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import type { ToolContext, ToolResult } from "../tools/types.ts";
import { type ConnectorRow, withCredentials } from "./credentials.ts";
import { failureText } from "./discovery.ts";
import { type Handshake, McpClientError, McpSession } from "./mcp-client.ts";
import { headerParams, paramHeaders } from "./mcp-modern.ts";
import { CONNECTOR_LIMITS } from "./rules.ts";
import { withConnectorStatusEvent } from "../webhooks/emit.ts";

/** Where a connector's calls keep a sessionless server's handshake; shared by concurrent calls (its value is never mutated, only replaced). */
export interface HandshakeSlot {
  kept?: { handshake: Handshake; url: string };
}

/** The customer binding a connector's server receives in `_meta` (docs/interface.md 8.3). */
export interface UpstreamBinding {
  /** `bound_end_user_id`: the customer's external id, or our id when there is none. */
  endUserId: string;
  /**
   * `bound_end_user_verified`: whether whoever made the call vouches for that identity. A chat
   * customer: only when a valid user_token proved it (their record is verified: an unverified
   * request never reaches a verified record). Any other actor (an MCP token binding with
   * `_meta.bound_*`, a member, the system) is the org itself naming its customer, re-validated in
   * the org on every call: true. docs/decisions.md "Binding sent upstream: verified".
   */
  verified: boolean;
}

export function upstreamBinding(ctx: Pick<ToolContext, "actor" | "boundCustomer">): UpstreamBinding | undefined {
  const bound = ctx.boundCustomer;
  if (!bound) return undefined;
  return { endUserId: bound.externalId ?? bound.id, verified: ctx.actor.kind === "customer" ? bound.verified : true };
}

export async function callConnectorTool(
  deps: Pick<Deps, "cipher" | "connectorRefreshes" | "db" | "guard" | "metrics" | "now" | "timers" | "tools">,
  row: ConnectorRow,
  tool: DiscoveredTool,
  args: Record<string, unknown>,
  bound: UpstreamBinding | undefined,
  slot: HandshakeSlot = {},
): Promise<ToolResult> {
  const signal = deps.timers.deadline(CONNECTOR_LIMITS.callMs);
  // docs/interface.md B.6: a call is retried after a lost session only when the tool says it is safe to repeat.
  const repeatable = tool.readOnly || tool.idempotent;
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  try {
    const result = (await withCredentials(deps, row, signal, async (headers) => {
      const options = { url: row.url, authHeaders: headers, guard: deps.guard, signal };
      const kept = repeatable && slot.kept?.url === row.url ? slot.kept.handshake : undefined;
      // The revision the last discovery negotiated: no probe per call (src/connectors/mcp-client.ts).
      const known = typeof row.serverInfo?.protocolVersion === "string" ? row.serverInfo.protocolVersion : undefined;
      const session = kept ? McpSession.resume(options, kept) : await McpSession.open(options, known);
      try {
        const params = {
          name: tool.name,
          arguments: args,
          ...(bound ? { _meta: { bound_end_user_id: bound.endUserId, bound_end_user_verified: bound.verified } } : {}),
        };
        // 2026-07-28: the tool's x-mcp-header parameters mirrored as Mcp-Param-* (checked at discovery).
        const mirrored = headerParams(tool.inputSchema);
        const answer = await session.request("tools/call", params, repeatable, "params" in mirrored ? paramHeaders(mirrored.params, args) : {});
        const sessionless = session.sessionless; // after a handshake of its own, even one redone after a refusal
        if (sessionless) slot.kept = { handshake: sessionless, url: row.url };
        else if (session.handshook) slot.kept = undefined; // the server issues session ids (now): nothing to keep
        return answer;
      } catch (error) {
        slot.kept = undefined;
        throw error;
      } finally {
        await session.close();
      }
    })) as { content?: unknown; structuredContent?: unknown; isError?: unknown };
    deps.metrics.connectorCall(result?.isError === true ? "tool_error" : "ok", seconds());
    return { value: resultValue(result), isError: result?.isError === true };
  } catch (error) {
    deps.metrics.connectorCall(error instanceof McpClientError ? error.kind : "error", seconds());
    // Tokens that cannot be refreshed break the connector until someone reconnects it; a slow call does not.
    if (error instanceof McpClientError && error.kind === "auth" && row.authMethod === "oauth2") {
      await deps.db.transaction(async (tx) =>
        withConnectorStatusEvent(
          tx,
          row,
          await tx.update(connectors).set({ status: "error", lastError: error.message, updatedAt: deps.now() }).where(eq(connectors.id, row.id)).returning(),
        ),
      ); // webhooks: connector.status_changed
      deps.tools.invalidate(row.orgId); // its tools become unavailable now, not when the snapshot expires
    }
    return { value: { error: `mcp.${row.slug}.${tool.name}: ${failureText(error, "call")}` }, isError: true };
  }
}

/** What the tool server puts in its one text block: structured content, else the texts, else the content as JSON. */
function resultValue(result: { content?: unknown; structuredContent?: unknown }): unknown {
  if (result?.structuredContent !== undefined) return result.structuredContent;
  const content = Array.isArray(result?.content) ? result.content : [];
  if (
    content.length > 0 &&
    content.every((c) => typeof c === "object" && c !== null && (c as { type?: unknown }).type === "text" && typeof (c as { text?: unknown }).text === "string")
  )
    return content.map((c) => (c as { text: string }).text).join("\n");
  return content;
}
