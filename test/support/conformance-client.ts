// The client under test for @modelcontextprotocol/conformance's client scenarios: OUR connector
// client (src/connectors/mcp-client.ts, mcp-modern.ts, rules.ts) driven against the scenario's
// server. The runner starts it as `bun test/support/conformance-client.ts <server-url>` with
// MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_PROTOCOL_VERSION and, for some scenarios,
// MCP_CONFORMANCE_CONTEXT (the tool calls to make). Loopback is allowed through the guard's own
// option, as the connector tests' development mode allows it. The revision the runner names is
// passed as the one "an earlier discovery negotiated" (McpSession.open's `known`): the harness
// asks a client to speak exactly that revision; request-metadata instead exercises the probe.
import { McpSession } from "../../src/connectors/mcp-client.ts";
import { listAllTools } from "../../src/connectors/tool-list.ts";
import { headerParams, paramHeaders } from "../../src/connectors/mcp-modern.ts";
import { classifyTools } from "../../src/connectors/rules.ts";
import { systemResolver } from "../../src/net/guard.ts";
import type { DiscoveredTool } from "../../src/db/schema/index.ts";

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as { toolCalls?: { name: string; arguments: Record<string, unknown> }[] };
if (!url) throw new Error("usage: conformance-client.ts <server-url>");

const guard = { allowLoopback: true, resolver: systemResolver };
const options = () => ({ url, authHeaders: () => ({}), guard, signal: AbortSignal.timeout(20_000) });

/** A session as a connector call opens one (the revision known), or as discovery does (probing) for request-metadata. */
const session = await McpSession.open(options(), scenario === "request-metadata" ? undefined : version);

/** tools/call as src/connectors/calls.ts makes it: the tool's x-mcp-header parameters mirrored. */
async function call(tool: DiscoveredTool, args: Record<string, unknown>) {
  const mirrored = headerParams(tool.inputSchema);
  return session.request("tools/call", { name: tool.name, arguments: args }, false, "params" in mirrored ? paramHeaders(mirrored.params, args) : {});
}

/** Arguments for a tool the scenario does not say how to call: its required strings and integers, filled in. */
function filler(tool: DiscoveredTool): Record<string, unknown> {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
  const required = Array.isArray(tool.inputSchema.required) ? (tool.inputSchema.required as string[]) : [];
  const args: Record<string, unknown> = {};
  for (const name of required) args[name] = properties[name]?.type === "integer" || properties[name]?.type === "number" ? 2 : "x";
  if (Object.keys(properties).join() === "a,b") return { a: 2, b: 3 };
  return args;
}

try {
  const { tools, dropped } = classifyTools(await listAllTools(session));
  for (const d of dropped) console.error(`dropped ${d.name}: ${d.reason}`);
  const byName = new Map(tools.map((t) => [t.name, t]));
  if (scenario === "json-schema-2020-12-preservation") {
    const focal = byName.get("json_schema_2020_12_tool");
    const echo = byName.get("json_schema_echo");
    if (!focal || !echo) throw new Error("the scenario's tools were not discovered");
    await call(echo, { schema: focal.inputSchema }); // the schema as our discovery stored it
  } else if (context.toolCalls) {
    for (const c of context.toolCalls) {
      const tool = byName.get(c.name);
      if (!tool) throw new Error(`tool ${c.name} was not discovered`);
      await call(tool, c.arguments);
    }
  } else if (scenario === "request-metadata" || scenario === "json-schema-ref-no-deref") {
    // discovery only
  } else if (scenario === "http-standard-headers" || scenario === "http-invalid-tool-headers") {
    for (const tool of tools) await call(tool, filler(tool));
  } else if (tools[0]) {
    await call(tools[0], filler(tools[0]));
  }
} finally {
  await session.close();
}
