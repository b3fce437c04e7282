// The raw reference for `npm run bench -- chat`: the least a Bun HTTP server can do to answer the
// same requests as our chat endpoints: read the bearer, parse the JSON body, answer
// POST /api/sdk/chat with a fixed §2.6 body, and POST /api/sdk/chat/stream with a chunked
// text/plain body (the same text in a few pieces, then the __ACTIONS__ record). No validation,
// database, retrieval, model, CORS, rate limit or log, so "ours / raw" is what the pipeline costs
// on top of Bun itself.
// Run by bench/scenarios/chat.ts as its own process: PORT (required), HOST (default 127.0.0.1).
const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write("chat-baseline-server: PORT must be set to a port number\n");
  process.exit(2);
}

const TEXT = ['From "Reset your password":\n', "\n", "Open the sign-in page and choose Forgot password.\n", "\n", "Source: Reset your password"];
const encoder = new TextEncoder();

const server = Bun.serve({
  port,
  hostname: process.env.HOST || "127.0.0.1",
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/healthz") return Response.json({ status: "ok" });
    if (request.method !== "POST" || !request.headers.get("authorization")?.startsWith("Bearer ab_live_")) return new Response("no", { status: 401 });
    const body = (await request.json()) as { message?: string };
    const sessionId = `cs_${crypto.randomUUID()}`;
    if (path === "/api/sdk/chat")
      return Response.json({ text: TEXT.join(""), session_id: sessionId, agent_id: "00000000-0000-4000-8000-000000000000", actions: [], confidence: 0.9, sources: [], echo: body.message?.length });
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

export {};
