// What the tool server answers, by protocol revision (docs/interface.md 4.2, A.3): 2025-03-26 keeps
// the seed's exact shapes; 2025-06-18 adds the tool's `title`, `outputSchema` and
// `structuredContent` and serverInfo.title; 2025-11-25 serverInfo's websiteUrl and icons;
// 2026-07-28 `resultType`, the cache hints of a list and serverInfo in every result's `_meta`.
import type { Config } from "../config.ts";
import type { ToolInfo, ToolResult } from "../ports/tools.ts";
import { atLeast, META_SERVER_INFO, SUPPORTED_VERSIONS } from "./versions.ts";

export const SERVER_NAME = "svc-agents";
export const SERVER_VERSION = "1.0.0";
/** How long a 2026-07-28 client may keep a tools/list (its tools follow toggles, flags and scopes). */
export const TOOLS_TTL_MS = 60_000;
/** server/discover says the same to everyone. */
export const DISCOVER_TTL_MS = 3_600_000;

// A speech bubble, inline so that no client has to fetch anything to show it.
const ICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2563eb"/>' +
  '<path d="M8 9h16a2 2 0 0 1 2 2v9a2 2 0 0 1-2 2h-9l-5 4v-4H8a2 2 0 0 1-2-2v-9a2 2 0 0 1 2-2z" fill="#fff"/></svg>';
const ICON = `data:image/svg+xml;base64,${btoa(ICON_SVG)}`;

export function serverInfo(config: Pick<Config, "baseUrl">, version: string): Record<string, unknown> {
  const info: Record<string, unknown> = { name: SERVER_NAME, version: SERVER_VERSION };
  if (atLeast(version, "2025-06-18")) info.title = "Support agents";
  if (atLeast(version, "2025-11-25")) {
    info.websiteUrl = config.baseUrl;
    info.icons = [{ src: ICON, mimeType: "image/svg+xml", sizes: ["any"] }];
  }
  return info;
}

export const capabilities = { tools: { listChanged: false } };

export function listedTool(tool: ToolInfo, version: string): Record<string, unknown> {
  const annotations = {
    title: tool.title ?? tool.name,
    readOnlyHint: tool.readOnly === true,
    destructiveHint: tool.destructive,
    idempotentHint: tool.idempotent === true,
    openWorldHint: tool.openWorld !== false,
  };
  const listed: Record<string, unknown> = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema, annotations };
  if (atLeast(version, "2025-06-18")) {
    listed.title = annotations.title;
    if (tool.outputSchema) listed.outputSchema = tool.outputSchema;
  }
  return listed;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/** The text block always (older clients read it); structuredContent when the tool declares its shape. */
export function callResult(tool: ToolInfo | undefined, result: ToolResult, version: string): Record<string, unknown> {
  const answer: Record<string, unknown> = { content: [{ type: "text", text: text(result.value) }], isError: result.isError === true };
  const structured = typeof result.value === "object" && result.value !== null && !Array.isArray(result.value);
  if (atLeast(version, "2025-06-18") && tool?.outputSchema && structured && result.isError !== true) answer.structuredContent = result.value;
  return answer;
}

/** 2026-07-28: every result says it is complete and who answered. */
export function stateless(config: Pick<Config, "baseUrl">, result: Record<string, unknown>): Record<string, unknown> {
  return { ...result, resultType: "complete", _meta: { [META_SERVER_INFO]: serverInfo(config, "2026-07-28") } };
}

export function discoverResult(config: Pick<Config, "baseUrl">): Record<string, unknown> {
  return stateless(config, { supportedVersions: [...SUPPORTED_VERSIONS], capabilities, ttlMs: DISCOVER_TTL_MS, cacheScope: "public" });
}
