// The reference point for throughput: the least a Bun HTTP server can do to answer the same
// requests as ours: GET /healthz → {"status":"ok"}, and an MCP `ping` (POST /api/mcp with one
// JSON-RPC request → {"jsonrpc":"2.0","id":…,"result":{}}). No framework, no middleware, no
// logging, no authentication, so "ours / raw" in the report is what the app's layers cost on top
// of Bun itself.
// Run by bench/run.ts as its own process: PORT (required), HOST (default 127.0.0.1).
const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write("baseline-server: PORT must be set to a port number\n");
  process.exit(2);
}

const server = Bun.serve({
  port,
  hostname: process.env.HOST || "127.0.0.1",
  async fetch(request) {
    const path = new URL(request.url).pathname;
    // Response.json is what Elysia sends for a returned object, so both bodies and content types match.
    if (request.method === "GET" && path === "/healthz") return Response.json({ status: "ok" });
    // The bare minimum of a JSON-RPC ping: read and parse the body, answer with its id.
    if (request.method === "POST" && path === "/api/mcp") {
      const message = (await request.json()) as { id?: unknown };
      return Response.json({ jsonrpc: "2.0", id: message.id ?? null, result: {} });
    }
    return new Response("not found", { status: 404 });
  },
});

const stop = () => void server.stop(true).then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);

export {}; // a module, so these top-level names do not collide with other scripts' in type checking
