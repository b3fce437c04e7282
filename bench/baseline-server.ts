// The reference point for throughput: the least a Bun HTTP server can do to answer the same
// requests as ours, with fixed bodies. No framework, no middleware, no validation, database,
// CORS, rate limit, logging or authentication beyond reading the bearer, so "ours / raw" in the
// report is what the app's layers cost on top of Bun itself. One server for every scenario:
//   GET /healthz → {"status":"ok"}
//   POST /api/mcp (one JSON-RPC request) → {"jsonrpc":"2.0","id":…,"result":{}}        (MCP ping)
//   POST /api/sdk/events → {"accepted": N}; POST /api/sdk/users/identify → the user echoed
//   POST /api/sdk/chat → a fixed docs/interface.md 2.6 body; POST /api/sdk/chat/stream → the same text in a few
//     chunks, then the __ACTIONS__ record
// Run by bench/runner.ts (baselineServer) as its own process: PORT (required), HOST (default 127.0.0.1).
const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write("baseline-server: PORT must be set to a port number\n");
  process.exit(2);
}

const ID = "00000000-0000-4000-8000-000000000000";
const TEXT = ['From "Reset your password":\n', "\n", "Open the sign-in page and choose Forgot password.\n", "\n", "Source: Reset your password"];
const encoder = new TextEncoder();

const server = Bun.serve({
  port,
  hostname: process.env.HOST || "127.0.0.1",
  async fetch(request) {
    const path = new URL(request.url).pathname;
    // Response.json is what Elysia sends for a returned object, so both bodies and content types match.
    if (request.method === "GET" && path === "/healthz") return Response.json({ status: "ok" });
    if (request.method !== "POST") return new Response("not found", { status: 404 });
    // The bare minimum of a JSON-RPC ping: read and parse the body, answer with its id.
    if (path === "/api/mcp") {
      const message = (await request.json()) as { id?: unknown };
      return Response.json({ jsonrpc: "2.0", id: message.id ?? null, result: {} });
    }
    if (!request.headers.get("authorization")?.startsWith("Bearer ab_live_")) return new Response("no", { status: 401 });
    const body = (await request.json()) as Record<string, unknown>;
    if (path === "/api/sdk/events") return Response.json({ accepted: (body.events as unknown[]).length });
    if (path === "/api/sdk/users/identify") return Response.json({ id: ID, ...body, verified: false });
    const sessionId = `cs_${crypto.randomUUID()}`;
    if (path === "/api/sdk/chat")
      return Response.json({
        text: TEXT.join(""),
        session_id: sessionId,
        agent_id: ID,
        actions: [],
        confidence: 0.9,
        sources: [],
        echo: (body.message as string | undefined)?.length,
      });
    if (path === "/api/sdk/chat/stream") {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const piece of TEXT) controller.enqueue(encoder.encode(piece));
          controller.enqueue(encoder.encode("\x1e__ACTIONS__[]\x1e"));
          controller.close();
        },
      });
      return new Response(stream, { headers: { "content-type": "text/plain; charset=utf-8", "x-session-id": sessionId } });
    }
    return new Response("not found", { status: 404 });
  },
});

const stop = () => void server.stop(true).then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);

export {}; // a module, so these top-level names do not collide with other scripts' in type checking
