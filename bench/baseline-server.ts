// The reference point for throughput: the least a Bun HTTP server can do to answer the same
// request as ours (GET /healthz → {"status":"ok"}). No framework, no middleware, no logging, so
// "ours / raw" in the report is what the app's layers cost on top of Bun itself.
// Run by bench/run.ts as its own process: PORT (required), HOST (default 127.0.0.1).
const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write("baseline-server: PORT must be set to a port number\n");
  process.exit(2);
}

const server = Bun.serve({
  port,
  hostname: process.env.HOST || "127.0.0.1",
  fetch(request) {
    // Response.json is what Elysia sends for a returned object, so both bodies and content types match.
    if (request.method === "GET" && new URL(request.url).pathname === "/healthz") return Response.json({ status: "ok" });
    return new Response("not found", { status: 404 });
  },
});

const stop = () => void server.stop(true).then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);

export {}; // a module, so these top-level names do not collide with other scripts' in type checking
