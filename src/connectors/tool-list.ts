// A connector's whole tool list, page by page (MCP tools/list with cursors), bounded in pages and
// tools so a server cannot keep a discovery going or fill memory.
import { McpClientError, type McpSession } from "./mcp-client.ts";

export const LIST_LIMITS = { pages: 50, tools: 2000 };

/** tools/list with pagination (docs/interface.md B.5): an empty-string cursor is valid; a repeated cursor stops. */
export async function listAllTools(session: McpSession): Promise<unknown[]> {
  const tools: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < LIST_LIMITS.pages; page++) {
    const result = (await session.request("tools/list", cursor !== undefined ? { cursor } : undefined, true)) as { tools?: unknown; nextCursor?: unknown };
    if (!Array.isArray(result?.tools)) throw new McpClientError("protocol", "tools/list did not return a tools array");
    tools.push(...result.tools);
    if (tools.length > LIST_LIMITS.tools) throw new McpClientError("protocol", `the server lists more than ${LIST_LIMITS.tools} tools`);
    if (typeof result.nextCursor !== "string") return tools;
    if (seen.has(result.nextCursor)) throw new McpClientError("protocol", "tools/list repeated a cursor");
    seen.add(result.nextCursor);
    cursor = result.nextCursor;
  }
  throw new McpClientError("protocol", `tools/list has more than ${LIST_LIMITS.pages} pages`);
}
