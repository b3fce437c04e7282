// The third-party MCP server of the connector rows of `npm run bench`: one of the fixtures of
// test/support/mcp-servers.ts (built with the official SDK, @modelcontextprotocol/sdk, served by
// Bun.serve on 127.0.0.1), run in its own process so that it never shares a JavaScript thread
// with our server, the load generator or the SDK client that call it.
//
//   bun bench/connector-upstream.ts stateless   # statelessJsonServer(): a new McpServer per POST, JSON answers
//   bun bench/connector-upstream.ts stateful    # statefulSseServer(): Mcp-Session-Id sessions, SSE answers, DELETE ends one
//
// Prints one JSON line on stdout once it listens: `{"url": <MCP endpoint>, "control": <URL>}`.
// `GET <control>` answers the upstream's counters so far: `http` (HTTP requests received, any
// method), one counter per JSON-RPC method (`initialize`, `notifications/initialized`,
// `tools/list`, `tools/call`), `deletes`, and `sessions` (live sessions; stateful only). The
// fixture records every request for the tests' assertions; here the records are dropped every
// 250 ms (after being counted) so that a long run does not grow the heap. SIGTERM or SIGINT stops it.
import { type McpFixture, statefulSseServer, statelessJsonServer } from "../test/support/mcp-servers.ts";

export type UpstreamKind = "stateless" | "stateful";

export interface UpstreamCounters {
  http: number;
  sessions: number | null;
  [method: string]: number | null;
}

if (import.meta.main) {
  const kind = process.argv[2];
  if (kind !== "stateless" && kind !== "stateful") {
    process.stderr.write("usage: bun bench/connector-upstream.ts stateless|stateful\n");
    process.exit(2);
  }
  const fixture: McpFixture & { sessions?: () => number } = kind === "stateless" ? await statelessJsonServer() : await statefulSseServer();

  let http = 0;
  const drop = () => {
    http += fixture.requests.length;
    fixture.requests.length = 0;
    fixture.calls.length = 0;
  };
  const timer = setInterval(drop, 250);

  const control = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch() {
      drop();
      const counters: UpstreamCounters = { ...fixture.counters, http, sessions: fixture.sessions ? fixture.sessions() : null };
      return Response.json(counters);
    },
  });
  process.stdout.write(`${JSON.stringify({ url: fixture.url, control: `http://127.0.0.1:${control.port}/` })}\n`);

  const stop = () => {
    clearInterval(timer);
    void Promise.all([fixture.stop(), control.stop(true)]).finally(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
