// The reference point for the tool server: the official MCP TypeScript SDK
// (@modelcontextprotocol/sdk) serving Streamable HTTP in stateless mode on Node, the way its own
// example (dist/esm/examples/server/simpleStatelessStreamableHttp.js) and its users run it:
// `node bench/sdk-reference-server.mjs`, express via the SDK's createMcpExpressApp(), and for
// every POST a new McpServer with its tools registered, a new StreamableHTTPServerTransport with
// `sessionIdGenerator: undefined` (stateless) and `enableJsonResponse: true` (one JSON answer,
// no SSE stream), closed when the response is.
//
// Tools: the same names, descriptions and input schemas as our tools/list returned, read from the
// JSON file BENCH_TOOLS_FILE (bench/run.ts writes it), expressed in zod as an SDK user writes
// them. The zod schemas are built once at startup, as module-level constants would be (the SDK's
// own example builds them inside getServer(), per request, which is slower still); the McpServer
// and its tool registrations are per request, as stateless mode requires. `search_docs` answers a
// fixed result of a similar size to ours; the others answer an empty object. No authentication,
// no rate limit, no database: the SDK's own cost only, so the comparison flatters the SDK.
//
// Environment: PORT (required), HOST (default 127.0.0.1), BENCH_TOOLS_FILE (required).
// GET /healthz answers 200, only so that the harness can tell when the server is up.
// Plain JavaScript (not type-checked), because it runs on Node, not Bun.
import { readFileSync } from "node:fs";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import * as z from "zod/v4";

const port = Number(process.env.PORT);
const host = process.env.HOST || "127.0.0.1";
if (!Number.isInteger(port) || port <= 0 || !process.env.BENCH_TOOLS_FILE) {
  process.stderr.write("sdk-reference-server: PORT and BENCH_TOOLS_FILE must be set\n");
  process.exit(2);
}
/** @type {{ name: string; description: string; inputSchema: any; annotations?: Record<string, unknown> }[]} */
const tools = JSON.parse(readFileSync(process.env.BENCH_TOOLS_FILE, "utf8")).tools;

/** A JSON Schema (the subset our tools use) as the zod schema an SDK user would write for it. */
function zodOf(schema) {
  let s;
  switch (schema.type) {
    case "string":
      s = z.string();
      if (schema.minLength !== undefined) s = s.min(schema.minLength);
      if (schema.maxLength !== undefined) s = s.max(schema.maxLength);
      break;
    case "integer":
    case "number":
      s = schema.type === "integer" ? z.number().int() : z.number();
      if (schema.minimum !== undefined) s = s.min(schema.minimum);
      if (schema.maximum !== undefined) s = s.max(schema.maximum);
      break;
    case "boolean":
      s = z.boolean();
      break;
    case "array":
      s = z.array(schema.items ? zodOf(schema.items) : z.unknown());
      break;
    case "object":
      if (schema.properties) {
        const shape = {};
        for (const [key, value] of Object.entries(schema.properties)) {
          const property = zodOf(value);
          shape[key] = schema.required?.includes(key) ? property : property.optional();
        }
        s = schema.additionalProperties === false ? z.strictObject(shape) : z.object(shape);
      } else {
        s = z.record(z.string(), z.unknown());
      }
      break;
    default:
      s = z.unknown();
  }
  return schema.description ? s.describe(schema.description) : s;
}

// A search answer shaped like ours: five hits with a title, a url and a ~35-word snippet.
const searchAnswer = JSON.stringify(
  {
    results: Array.from({ length: 5 }, (_, i) => ({
      id: `00000000-0000-4000-8000-00000000000${i}`,
      title: `Resetting your password, part ${i + 1}`,
      url: `https://help.example.com/articles/${i + 1}`,
      snippet:
        "To **reset** your **password**, open the sign-in page and choose Forgot password. We send a link to the email address on your account; it is valid for one hour. If you changed your email recently, use the new address.",
      score: 0.5 - i / 20,
    })),
  },
  null,
  2,
);

const inputSchemas = new Map(tools.map((tool) => [tool.name, zodOf(tool.inputSchema)]));

function getServer() {
  const server = new McpServer({ name: "sdk-reference", version: "1.0.0" });
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      { description: tool.description, inputSchema: inputSchemas.get(tool.name), annotations: tool.annotations },
      async () => ({ content: [{ type: "text", text: tool.name === "search_docs" ? searchAnswer : "{}" }] }),
    );
  }
  return server;
}

const app = createMcpExpressApp({ host });

app.post("/mcp", async (req, res) => {
  const server = getServer();
  try {
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
    res.on("close", () => {
      transport.close();
      server.close();
    });
  } catch (error) {
    process.stderr.write(`sdk-reference-server: ${error instanceof Error ? error.message : String(error)}\n`);
    if (!res.headersSent) res.status(500).json({ jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id: null });
  }
});

app.get("/healthz", (_req, res) => {
  res.json({ status: "ok" });
});

const listener = app.listen(port, host, (error) => {
  if (error) {
    process.stderr.write(`sdk-reference-server: ${error.message}\n`);
    process.exit(1);
  }
});

const stop = () => {
  listener.close(() => process.exit(0));
  listener.closeAllConnections();
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
