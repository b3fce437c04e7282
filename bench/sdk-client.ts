// The "direct" side of the connector rows of `npm run bench`: the official MCP TypeScript SDK's
// client (`Client` + `StreamableHTTPClientTransport` from @modelcontextprotocol/sdk, our
// devDependency), on Bun like our server, talking straight to the upstream MCP server
// (bench/connector-upstream.ts) with nobody in between. bench/run.ts runs it as its own process
// with one JSON argument (SdkClientOptions) and reads one JSON line from its stdout.
//
// Modes:
// - `discovery`: `runs` sequential discoveries (after `warmupRuns` not counted), each a new
//   Client and transport: connect (initialize + notifications/initialized), listTools, end the
//   session (DELETE when the server issued an Mcp-Session-Id, as our connectors do), close.
//   Prints `{ samplesMs: number[], tools: number }`.
// - `call`: a closed loop of `connections` workers calling the tool `tool` with `{text}` as
//   bench/load.ts does for HTTP requests, for `warmupMs` + `durationMs`. `session: "per-call"`
//   opens a new session for every call and ends it afterwards (connect, callTool, DELETE, close:
//   what our service does per call); `session: "reused"` opens one session per worker before the
//   warm-up and calls on it (what a long-lived client does). Prints a LoadResult.
//
// What the SDK client does on its own and ours does not: after notifications/initialized it
// opens the optional standalone SSE stream (GET; a stateless server answers 405, a stateful one
// holds it open until close), and it validates every message with its zod schemas.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type LoadResult, summarize } from "./load.ts";
import { messageOf } from "../src/errors.ts";

export type SdkClientOptions =
  | { mode: "discovery"; url: string; runs: number; warmupRuns: number }
  | { mode: "call"; url: string; tool: string; text: string; session: "per-call" | "reused"; connections: number; warmupMs: number; durationMs: number };

export interface SdkDiscoveryResult {
  samplesMs: number[];
  /** Tools listed by the last discovery. */
  tools: number;
}

const CLIENT_INFO = { name: "svc-agents bench (SDK client)", version: "1.0.0" };

interface Open {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

async function open(url: string): Promise<Open> {
  const client = new Client(CLIENT_INFO);
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

/** Ends the session (DELETE, skipped without a session id) and closes the client; never throws. */
async function close(session: Open): Promise<void> {
  try {
    await session.transport.terminateSession();
  } catch {}
  await session.client.close().catch(() => {});
}

async function discovery(o: Extract<SdkClientOptions, { mode: "discovery" }>): Promise<SdkDiscoveryResult> {
  const samplesMs: number[] = [];
  let tools = 0;
  for (let i = 0; i < o.warmupRuns + o.runs; i++) {
    const start = performance.now();
    const session = await open(o.url);
    try {
      tools = (await session.client.listTools()).tools.length;
    } finally {
      await close(session);
    }
    if (i >= o.warmupRuns) samplesMs.push(performance.now() - start);
  }
  return { samplesMs, tools };
}

async function callLoop(o: Extract<SdkClientOptions, { mode: "call" }>): Promise<LoadResult> {
  // Reused sessions are opened before the clock starts, like the keep-alive connections of load.ts.
  const sessions = o.session === "reused" ? await Promise.all(Array.from({ length: o.connections }, () => open(o.url))) : [];
  const begin = performance.now();
  const measureFrom = begin + o.warmupMs;
  const until = measureFrom + o.durationMs;
  const samples: number[] = [];
  let errors = 0;
  let firstError: string | undefined;

  const call = async (client: Client) => {
    const result = await client.callTool({ name: o.tool, arguments: { text: o.text } });
    const content = result.content as { type?: string; text?: string }[] | undefined;
    if (result.isError === true || content?.[0]?.text !== o.text) throw new Error(`unexpected result: ${JSON.stringify(result).slice(0, 200)}`);
  };

  const worker = async (index: number) => {
    for (;;) {
      const start = performance.now();
      if (start >= until) return;
      let failure: string | undefined;
      try {
        if (o.session === "reused") await call(sessions[index]!.client);
        else {
          const session = await open(o.url);
          try {
            await call(session.client);
          } finally {
            await close(session);
          }
        }
      } catch (error) {
        failure = messageOf(error);
      }
      const end = performance.now();
      if (start >= measureFrom) {
        if (failure === undefined) samples.push(end - start);
        else errors++;
      }
      if (failure !== undefined) {
        firstError ??= failure;
        await Bun.sleep(1);
      }
    }
  };
  await Promise.all(Array.from({ length: o.connections }, (_, i) => worker(i)));
  const elapsedMs = performance.now() - measureFrom;
  await Promise.all(sessions.map(close));

  return summarize(samples, errors, firstError, elapsedMs);
}

if (import.meta.main) {
  const arg = process.argv[2];
  if (!arg) {
    process.stderr.write("usage: bun bench/sdk-client.ts '<SdkClientOptions as JSON>'\n");
    process.exit(2);
  }
  const options = JSON.parse(arg) as SdkClientOptions;
  const result = options.mode === "discovery" ? await discovery(options) : await callLoop(options);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0); // do not wait for idle keep-alive sockets to time out
}
