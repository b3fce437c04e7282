// One tools/call on a connector's server (interface §4.1, INTEROP B.6): a fresh session under the
// 30 s deadline, the customer binding in `_meta`, the answer reduced to one value for the tool
// server's text block. The server's failures become an isError result, never an exception.
import { eq } from "drizzle-orm";
import { connectors, type DiscoveredTool } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import type { ToolResult } from "../tools/types.ts";
import type { BoundCustomer } from "../workspace/customers.ts";
import { type ConnectorRow, withCredentials } from "./credentials.ts";
import { failureText } from "./discovery.ts";
import { McpClientError, McpSession } from "./mcp-client.ts";
import { CONNECTOR_LIMITS } from "./rules.ts";
import { withConnectorStatusEvent } from "../webhooks/emit.ts";

export async function callConnectorTool(deps: Deps, row: ConnectorRow, tool: DiscoveredTool, args: Record<string, unknown>, bound: BoundCustomer | undefined): Promise<ToolResult> {
  const signal = deps.timers.deadline(CONNECTOR_LIMITS.callMs);
  try {
    const result = (await withCredentials(deps, row, signal, async (headers) => {
      const session = await McpSession.open({ url: row.url, authHeaders: headers, guard: deps.guard, signal });
      try {
        const params = { name: tool.name, arguments: args, ...(bound ? { _meta: { bound_end_user_id: bound.externalId ?? bound.id } } : {}) };
        // INTEROP B.6: a call is retried after a lost session only when the tool says it is safe to repeat.
        return await session.request("tools/call", params, tool.readOnly || tool.idempotent);
      } finally {
        await session.close();
      }
    })) as { content?: unknown; structuredContent?: unknown; isError?: unknown };
    return { value: resultValue(result), isError: result?.isError === true };
  } catch (error) {
    // Tokens that cannot be refreshed break the connector until someone reconnects it; a slow call does not.
    if (error instanceof McpClientError && error.kind === "auth" && row.authMethod === "oauth2") {
      await deps.db.transaction(async (tx) => withConnectorStatusEvent(tx, row, await tx.update(connectors).set({ status: "error", lastError: error.message, updatedAt: deps.now() }).where(eq(connectors.id, row.id)).returning())); // webhooks: connector.status_changed
      deps.tools.invalidate(row.orgId); // its tools become unavailable now, not when the snapshot expires
    }
    return { value: { error: `mcp.${row.slug}.${tool.name}: ${failureText(error, "call")}` }, isError: true };
  }
}

/** What the tool server puts in its one text block: structured content, else the texts, else the content as JSON. */
function resultValue(result: { content?: unknown; structuredContent?: unknown }): unknown {
  if (result?.structuredContent !== undefined) return result.structuredContent;
  const content = Array.isArray(result?.content) ? result.content : [];
  if (content.length > 0 && content.every((c) => typeof c === "object" && c !== null && (c as { type?: unknown }).type === "text" && typeof (c as { text?: unknown }).text === "string"))
    return content.map((c) => (c as { text: string }).text).join("\n");
  return content;
}
