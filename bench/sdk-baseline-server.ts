// The raw reference for the widget SDK rows of `npm run bench -- sdk`: the least a Bun HTTP server
// can do to answer the same requests: read the bearer, parse the JSON body, count the events or
// echo the user, answer JSON. No validation, database, CORS, rate limit or log, so "ours / raw"
// is what the app's layers and its database writes cost on top of Bun itself.
// Run by bench/scenarios/sdk.ts as its own process: PORT (required), HOST (default 127.0.0.1).
const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write("sdk-baseline-server: PORT must be set to a port number\n");
  process.exit(2);
}

const server = Bun.serve({
  port,
  hostname: process.env.HOST || "127.0.0.1",
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/healthz") return Response.json({ status: "ok" });
    if (request.method !== "POST" || !request.headers.get("authorization")?.startsWith("Bearer ab_live_")) return new Response("no", { status: 401 });
    if (path === "/api/sdk/events") {
      const body = (await request.json()) as { events: unknown[] };
      return Response.json({ accepted: body.events.length });
    }
    if (path === "/api/sdk/users/identify") {
      const body = (await request.json()) as Record<string, unknown>;
      return Response.json({ id: "00000000-0000-4000-8000-000000000000", ...body, verified: false });
    }
    return new Response("not found", { status: 404 });
  },
});

const stop = () => void server.stop(true).then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);

export {};
