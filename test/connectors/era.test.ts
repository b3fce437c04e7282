// What a refused request tells the connector client about the server's protocol era
// (src/connectors/mcp-modern.ts eraOf; 2026-07-28 versioning, "Backward Compatibility"): a 4xx
// that is no modern error means an older server (fall back to initialize), except the answers
// about the request itself — a rate limit, a body or headers too large, a timeout — which are
// passed on as they are, never retried at once under another revision.
import { expect, test } from "bun:test";
import { eraOf } from "../../src/connectors/mcp-modern.ts";
import { McpClientError } from "../../src/connectors/mcp-wire.ts";

const http = (status: number, rpcCode?: number, rpcData?: unknown) => new McpClientError("http", `HTTP ${status}`, { status, rpcCode, rpcData });

test("an older server's 4xx falls back; a refusal about the request itself does not", () => {
  for (const status of [400, 404, 405]) expect(eraOf(http(status), false)).toBe("legacy");
  for (const status of [408, 413, 429, 431]) expect(eraOf(http(status), false)).toBeUndefined();
  expect(eraOf(http(500), false)).toBeUndefined();
});

test("a modern error is not about the era; UnsupportedProtocolVersion names the versions", () => {
  expect(eraOf(http(400, -32020), false)).toBeUndefined(); // HeaderMismatch: a modern server refusing this request
  expect(eraOf(http(400, -32022, { supported: ["2025-06-18", 7] }), false)).toEqual(["2025-06-18"]);
  expect(eraOf(new Error("not ours"), false)).toBeUndefined();
});
