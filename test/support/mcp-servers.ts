// Real third-party MCP servers for the tests of our MCP client (connectors, docs/interface.md appendix B,
// docs/interface.md 6 and docs/interface.md 8.3). They are built with the official SDK, @modelcontextprotocol/sdk 1.32
// (McpServer, or the low-level Server where a handler must misbehave, over
// WebStandardStreamableHTTPServerTransport), and for 2026-07-28 with @modelcontextprotocol/server
// 2.x (createMcpHandler), served by Bun.serve on 127.0.0.1 with a free port.
// Each factory returns an McpFixture that records every HTTP request, every tools/call and
// counters per JSON-RPC method, and stops with everything it opened.
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  EmptyResultSchema,
  ErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Icon,
  type ListToolsResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod"; // the SDK's own peer dependency (McpServer input schemas are zod shapes)
import { createMcpHandler, fromJsonSchema, McpServer as ModernMcpServer } from "@modelcontextprotocol/server";
import { childEnv, freePort, ROOT } from "./process.ts";

export interface RecordedRequest {
  method: string;
  /** Path and query string. */
  path: string;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** Parsed JSON, a form as an object, other text as a string, undefined when empty. */
  body: unknown;
}

export interface RecordedCall {
  tool: string;
  args: unknown;
  /** `params._meta` of the tools/call request. */
  meta: unknown;
}

export interface McpFixture {
  /** The MCP endpoint, e.g. http://127.0.0.1:PORT/mcp. */
  url: string;
  requests: RecordedRequest[];
  calls: RecordedCall[];
  /** Per JSON-RPC method received (`initialize`, `notifications/initialized`, `tools/list`, `tools/call`, …),
   * `responses` (client answers to server requests), `deletes`, plus fixture-specific ones. */
  counters: Record<string, number>;
  stop(): Promise<void>;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type ProtocolServer = McpServer | Server; // both have connect(transport) and close()

// ---------------------------------------------------------------------------------------------
// Plumbing: recording, HTTP host, stateful sessions, stateless requests.

interface Recorder {
  requests: RecordedRequest[];
  calls: RecordedCall[];
  counters: Record<string, number>;
  bump(key: string): void;
}

function recorder(): Recorder {
  const counters: Record<string, number> = {};
  return { requests: [], calls: [], counters, bump: (key) => void (counters[key] = (counters[key] ?? 0) + 1) };
}

/** A request as the host read it: `req` is a fresh copy whose body can still be read. */
interface Incoming {
  req: Request;
  path: string;
  body: unknown;
  /** The body parsed as JSON (so it can be handed to the transport as parsedBody). */
  json: boolean;
}

function parseBody(text: string, contentType: string | null): { body: unknown; json: boolean } {
  if (text === "") return { body: undefined, json: false };
  if (contentType?.includes("application/x-www-form-urlencoded")) return { body: Object.fromEntries(new URLSearchParams(text)), json: false };
  try {
    return { body: JSON.parse(text), json: true };
  } catch {
    return { body: text, json: false };
  }
}

/** Counts the JSON-RPC messages of a POST body by method (answers to server requests as `responses`). */
function countMessages(rec: Recorder, body: unknown) {
  for (const msg of Array.isArray(body) ? body : [body]) {
    if (typeof msg !== "object" || msg === null) continue;
    if ("method" in msg && typeof msg.method === "string") rec.bump(msg.method);
    else if ("result" in msg || "error" in msg) rec.bump("responses");
  }
}

function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

function parsed(inc: Incoming) {
  return inc.json ? { parsedBody: inc.body } : undefined;
}

/** Bun.serve on 127.0.0.1:0 that records every request before `route` answers it. */
function host(rec: Recorder, route: (inc: Incoming, origin: string) => Response | Promise<Response>) {
  let origin = "";
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0, // never cut a slow stream: the slow server relies on keep-alive comments instead
    async fetch(raw) {
      const text = raw.method === "GET" || raw.method === "HEAD" ? "" : await raw.text();
      const { body, json } = parseBody(text, raw.headers.get("content-type"));
      const url = new URL(raw.url);
      const path = url.pathname + url.search;
      rec.requests.push({ method: raw.method, path, headers: Object.fromEntries(raw.headers.entries()), body });
      const req = new Request(raw.url, { method: raw.method, headers: raw.headers, body: text === "" ? null : text });
      try {
        return await route({ req, path, body, json }, origin);
      } catch (error) {
        return rpcError(500, ErrorCode.InternalError, `fixture error: ${String(error)}`);
      }
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  return { origin, stop: () => server.stop(true) };
}

/** Calls `done` once the response body has been fully handed over (or the client went away). */
function afterBody(res: Response, done: () => void): Response {
  if (!res.body) {
    done();
    return res;
  }
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  res.body
    .pipeTo(writable)
    .catch(() => {})
    .finally(done);
  return new Response(readable, { status: res.status, statusText: res.statusText, headers: res.headers });
}

interface TransportOptions {
  /** JSON responses instead of SSE. */
  json?: boolean;
  /** SSE keep-alive comment interval (the SDK writes `: keepalive`); its default is 15 s. */
  keepAliveMs?: number;
}

/** Stateful Streamable HTTP: one server + transport per Mcp-Session-Id, 404 for unknown ids. */
class Sessions {
  readonly live = new Map<string, { server: ProtocolServer; transport: WebStandardStreamableHTTPServerTransport }>();
  constructor(
    private readonly build: () => ProtocolServer,
    private readonly rec: Recorder,
    private readonly options: TransportOptions = {},
  ) {}

  async handle(inc: Incoming): Promise<Response> {
    if (inc.req.method === "DELETE") this.rec.bump("deletes");
    const id = inc.req.headers.get("mcp-session-id");
    if (id !== null) {
      const session = this.live.get(id);
      if (!session) {
        this.rec.bump("unknown_session");
        return rpcError(404, -32001, "Session not found");
      }
      if (inc.req.method === "POST") countMessages(this.rec, inc.body);
      return session.transport.handleRequest(inc.req, parsed(inc));
    }
    if (inc.req.method !== "POST" || !(Array.isArray(inc.body) ? inc.body.some(isInitializeRequest) : isInitializeRequest(inc.body))) {
      return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
    }
    countMessages(this.rec, inc.body);
    const server = this.build();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: this.options.json ?? false,
      keepAliveMs: this.options.keepAliveMs,
      onsessioninitialized: (sid) => void this.live.set(sid, { server, transport }),
      onsessionclosed: (sid) => void this.live.delete(sid),
    });
    await server.connect(transport);
    return transport.handleRequest(inc.req, parsed(inc));
  }

  /** Drops (and closes) every session: later requests bearing their ids get 404. */
  async forget() {
    const all = [...this.live.values()];
    this.live.clear();
    await Promise.all(all.map((s) => s.server.close()));
  }
}

/** Stateless Streamable HTTP: a new server + transport per POST, closed once the body is sent. */
async function stateless(build: () => ProtocolServer, rec: Recorder, inc: Incoming, options: TransportOptions = {}): Promise<Response> {
  if (inc.req.method !== "POST") {
    if (inc.req.method === "DELETE") rec.bump("deletes");
    return rpcError(405, -32000, "Method not allowed.", { allow: "POST" });
  }
  countMessages(rec, inc.body);
  const server = build();
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: options.json ?? false, keepAliveMs: options.keepAliveMs });
  await server.connect(transport);
  return afterBody(await transport.handleRequest(inc.req, parsed(inc)), () => void server.close());
}

/** A fixture whose MCP endpoint is `<origin>/mcp`; other paths get 404 unless `extra` answers them. */
function mcpFixture(
  rec: Recorder,
  mcp: (inc: Incoming, origin: string) => Promise<Response>,
  cleanup: () => Promise<void>,
  extra?: (inc: Incoming, origin: string) => Response | Promise<Response> | undefined,
) {
  const http = host(rec, async (inc, origin) => {
    if (inc.path === "/mcp" || inc.path.startsWith("/mcp?")) return mcp(inc, origin);
    return (await extra?.(inc, origin)) ?? new Response("not found", { status: 404 });
  });
  const fixture: McpFixture = {
    url: `${http.origin}/mcp`,
    requests: rec.requests,
    calls: rec.calls,
    counters: rec.counters,
    async stop() {
      await http.stop();
      await cleanup();
    },
  };
  return { fixture, origin: http.origin };
}

// ---------------------------------------------------------------------------------------------
// Tools.

const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });

function record(rec: Recorder, tool: string, args: unknown, extra: Extra) {
  rec.calls.push({ tool, args, meta: extra._meta });
}

function addEcho(server: McpServer, rec: Recorder, name = "echo") {
  server.registerTool(
    name,
    { description: "Returns its text argument.", inputSchema: { text: z.string() }, annotations: { readOnlyHint: true, destructiveHint: false } },
    async (args, extra) => {
      record(rec, name, args, extra);
      return text(args.text);
    },
  );
}

function addWhoami(server: McpServer, rec: Recorder) {
  server.registerTool("whoami", { description: "Returns the _meta it received, as JSON.", annotations: { readOnlyHint: true } }, async (extra) => {
    record(rec, "whoami", undefined, extra);
    return text(JSON.stringify(extra._meta ?? null));
  });
}

/** The tools of statefulSseServer: echo, add, delete_everything, no_hints. */
function addDemoTools(server: McpServer, rec: Recorder) {
  addEcho(server, rec);
  server.registerTool(
    "add",
    { description: "Adds two numbers.", inputSchema: { a: z.number(), b: z.number() }, annotations: { readOnlyHint: true } },
    async (args, extra) => {
      record(rec, "add", args, extra);
      return text(String(args.a + args.b));
    },
  );
  server.registerTool(
    "delete_everything",
    {
      description: "Deletes everything (it does not, it is a fixture).",
      inputSchema: { confirm: z.boolean().optional() },
      annotations: { destructiveHint: true },
    },
    async (args, extra) => {
      record(rec, "delete_everything", args, extra);
      return text("deleted everything");
    },
  );
  server.registerTool("no_hints", { description: "A tool without annotations.", inputSchema: { text: z.string().optional() } }, async (args, extra) => {
    record(rec, "no_hints", args, extra);
    return text("no hints");
  });
}

const rawTool = (name: string, description = `Tool ${name}`): Tool => ({
  name,
  description,
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
});

/** A low-level Server: tools/list answered by `list`, tools/call by `call` (default: echo the arguments as JSON). */
function lowLevel(
  name: string,
  rec: Recorder,
  list: (cursor: string | undefined, extra: Extra) => Promise<ListToolsResult>,
  call?: (name: string, args: unknown, extra: Extra) => Promise<CallToolResult>,
): Server {
  const server = new Server({ name, version: "1.0.0" }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler(ListToolsRequestSchema, (request, extra) => list(request.params?.cursor, extra));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    rec.calls.push({ tool: request.params.name, args: request.params.arguments, meta: request.params._meta });
    return call ? call(request.params.name, request.params.arguments, extra) : text(JSON.stringify(request.params.arguments ?? {}));
  });
  return server;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}

// ---------------------------------------------------------------------------------------------
// 1-6: SDK servers.

/**
 * Stateful (Mcp-Session-Id), SSE responses. Tools: `echo` {text} (readOnlyHint, destructiveHint
 * false), `add` {a, b} (readOnlyHint), `delete_everything` (destructiveHint), `no_hints` (no
 * annotations). DELETE ends a session (counters.deletes). `icons` go to serverInfo.icons as given
 * (the SDK's Implementation type has `icons`; nothing is validated or rewritten).
 */
export async function statefulSseServer(
  options: { icons?: Icon[]; name?: string; version?: string; json?: boolean } = {},
): Promise<McpFixture & { sessions(): number }> {
  const rec = recorder();
  const sessions = new Sessions(
    () => {
      const server = new McpServer({
        name: options.name ?? "fixture-stateful",
        version: options.version ?? "1.0.0",
        ...(options.icons && { icons: options.icons }),
      });
      addDemoTools(server, rec);
      return server;
    },
    rec,
    { json: options.json },
  );
  const { fixture } = mcpFixture(
    rec,
    (inc) => sessions.handle(inc),
    () => sessions.forget(),
  );
  return { ...fixture, sessions: () => sessions.live.size };
}

/**
 * A server of one handshake revision: SDK 1.x, stateless, JSON answers, `echo` and `whoami`; every
 * initialize is answered with `version` whatever the client proposed, as a server that speaks
 * only that revision does (the SDK itself would accept any revision it knows).
 */
export async function revisionServer(version: "2025-03-26" | "2025-06-18" | "2025-11-25"): Promise<McpFixture> {
  const rec = recorder();
  const build = () => {
    const server = new McpServer({ name: `fixture-${version}`, version: "1.0.0" });
    addEcho(server, rec);
    addWhoami(server, rec);
    return server;
  };
  const pinned = (inc: Incoming): Incoming => {
    if (!isInitializeRequest(inc.body)) return inc;
    const body = { ...inc.body, params: { ...inc.body.params, protocolVersion: version } };
    return { ...inc, body, req: new Request(inc.req.url, { method: "POST", headers: inc.req.headers, body: JSON.stringify(body) }) };
  };
  return mcpFixture(
    rec,
    (inc) => stateless(build, rec, pinned(inc), { json: true }),
    async () => {},
  ).fixture;
}

/**
 * 2026-07-28, stateless, built with the newest SDK (@modelcontextprotocol/server 2.x,
 * createMcpHandler): no initialize, `server/discover`, per-request `_meta`, Mcp-Method/Mcp-Name
 * checked. `legacy: "reject"` (the default) speaks only 2026-07-28; `"stateless"` also answers
 * 2025 clients (dual-era). Tools: `echo` {text} (read-only), `delete_everything` (destructive),
 * `in_region` {region (x-mcp-header Region), text} (read-only; the SDK checks Mcp-Param-Region).
 */
export async function modernServer(options: { legacy?: "reject" | "stateless" } = {}): Promise<McpFixture> {
  const rec = recorder();
  const handler = createMcpHandler(
    () => {
      const server = new ModernMcpServer({ name: "fixture-2026", version: "2.0.0" });
      server.registerTool(
        "echo",
        { description: "Returns its text argument.", inputSchema: z.object({ text: z.string() }), annotations: { readOnlyHint: true, destructiveHint: false } },
        async (args) => text(args.text),
      );
      server.registerTool(
        "delete_everything",
        { description: "Deletes everything (it does not, it is a fixture).", inputSchema: z.object({}), annotations: { destructiveHint: true } },
        async () => text("deleted everything"),
      );
      const schema = {
        type: "object",
        properties: { region: { type: "string", "x-mcp-header": "Region" }, text: { type: "string" } },
        required: ["region", "text"],
      };
      const regional = fromJsonSchema<{ region: string; text: string }>(schema as Parameters<typeof fromJsonSchema>[0]);
      server.registerTool("in_region", { description: "Says where it ran.", inputSchema: regional, annotations: { readOnlyHint: true } }, async (args) =>
        text(`${args.text} in ${args.region}`),
      );
      return server;
    },
    { legacy: options.legacy ?? "reject" },
  );
  const mcp = async (inc: Incoming) => {
    if (inc.req.method === "POST") {
      countMessages(rec, inc.body);
      const msg = inc.body as { method?: string; params?: { name?: string; arguments?: unknown; _meta?: unknown } } | undefined;
      if (msg?.method === "tools/call") rec.calls.push({ tool: String(msg.params?.name), args: msg.params?.arguments, meta: msg.params?._meta });
    } else if (inc.req.method === "DELETE") rec.bump("deletes");
    return handler.fetch(inc.req);
  };
  return mcpFixture(rec, mcp, () => handler.close()).fixture;
}

/** Stateless (no session id; a new server per request), JSON responses. Tools: `echo`, `whoami` (returns the received `_meta` as JSON). GET and DELETE get 405. */
export async function statelessJsonServer(): Promise<McpFixture> {
  const rec = recorder();
  const build = () => {
    const server = new McpServer({ name: "fixture-stateless", version: "1.0.0" });
    addEcho(server, rec);
    addWhoami(server, rec);
    return server;
  };
  return mcpFixture(
    rec,
    (inc) => stateless(build, rec, inc, { json: true }),
    async () => {},
  ).fixture;
}

/**
 * tools/list over pages: `total` tools (250) named tool_000…, `pageSize` (100) per page, each page
 * but the last with an opaque `nextCursor`; the first page is served without a cursor. counters.pages
 * counts pages served. `repeatCursor: true` makes every page return the same cursor (a loop a client
 * must detect). An unknown cursor is -32602. Stateful, SSE.
 */
export async function paginatingServer(options: { total?: number; pageSize?: number; repeatCursor?: boolean } = {}): Promise<McpFixture> {
  const { total = 250, pageSize = 100, repeatCursor = false } = options;
  const rec = recorder();
  const nonce = randomBytes(6).toString("hex");
  const encode = (offset: number) => Buffer.from(`${nonce}:${offset}`).toString("base64url");
  const decode = (cursor: string) => {
    const [n, offset] = Buffer.from(cursor, "base64url").toString().split(":");
    if (n !== nonce || !/^\d+$/.test(offset ?? "")) throw new McpError(ErrorCode.InvalidParams, "Invalid cursor");
    return Number(offset);
  };
  const names = Array.from({ length: total }, (_, i) => `tool_${String(i).padStart(3, "0")}`);
  const sessions = new Sessions(
    () =>
      lowLevel("fixture-paginating", rec, async (cursor) => {
        const offset = cursor === undefined ? 0 : repeatCursor ? pageSize : decode(cursor);
        rec.bump("pages");
        const end = offset + pageSize;
        return { tools: names.slice(offset, end).map((n) => rawTool(n)), ...(end < total && { nextCursor: encode(repeatCursor ? pageSize : end) }) };
      }),
    rec,
  );
  return mcpFixture(
    rec,
    (inc) => sessions.handle(inc),
    () => sessions.forget(),
  ).fixture;
}

/**
 * Stateful, SSE. Before its answer to tools/list and to tools/call it sends, on the same response
 * stream: a server→client `ping` request (not awaited: a client may never answer; answers are
 * counted in counters.responses), a `notifications/message` log line and a `notifications/progress`
 * (with the request's progressToken, or an unsolicited one). Tool: `echo`.
 */
export async function notifyingServer(): Promise<McpFixture> {
  const rec = recorder();
  const chatter = async (label: string, extra: Extra) => {
    void extra.sendRequest({ method: "ping" }, EmptyResultSchema, { timeout: 5000 }).catch(() => {});
    await extra.sendNotification({ method: "notifications/message", params: { level: "info", logger: "fixture", data: `${label}: working on it` } });
    await extra.sendNotification({
      method: "notifications/progress",
      params: { progressToken: extra._meta?.progressToken ?? "unsolicited", progress: 1, total: 2, message: label },
    });
    await Bun.sleep(5); // let the ping reach the stream before the result does
  };
  const sessions = new Sessions(
    () =>
      lowLevel(
        "fixture-notifying",
        rec,
        async (_cursor, extra) => {
          await chatter("tools/list", extra);
          return { tools: [{ ...rawTool("echo", "Returns its text argument."), annotations: { readOnlyHint: true, destructiveHint: false } }] };
        },
        async (_name, args, extra) => {
          await chatter("tools/call", extra);
          const t = typeof args === "object" && args !== null && "text" in args ? String(args.text) : "";
          return text(t);
        },
      ),
    rec,
  );
  return mcpFixture(
    rec,
    (inc) => sessions.handle(inc),
    () => sessions.forget(),
  ).fixture;
}

/** What badNamesServer lists: the names a client must keep (in order) and the ones it must drop. */
export const BAD_NAMES = {
  valid: ["ok_tool", "dup", "also-ok", "A".repeat(64)],
  invalid: ["bad name", "dots.are.bad", "x".repeat(65), "", "ünïcode"],
  /** The description of the first `dup` (the second, with another description, must be dropped). */
  dupDescription: "first dup",
};

/** Stateless, JSON. tools/list returns BAD_NAMES.valid plus every BAD_NAMES.invalid name and a second `dup`. */
export async function badNamesServer(): Promise<McpFixture> {
  const rec = recorder();
  const tools: Tool[] = [
    rawTool("ok_tool"),
    rawTool("bad name"),
    rawTool("dup", BAD_NAMES.dupDescription),
    rawTool("dots.are.bad"),
    rawTool("also-ok"),
    rawTool("x".repeat(65)),
    rawTool(""),
    rawTool("ünïcode"),
    rawTool("dup", "second dup, must be dropped"),
    rawTool("A".repeat(64)),
  ];
  const build = () => lowLevel("fixture-bad-names", rec, async () => ({ tools }));
  return mcpFixture(
    rec,
    (inc) => stateless(build, rec, inc, { json: true }),
    async () => {},
  ).fixture;
}

/**
 * Stateless, SSE. initialize is answered at once; tools/list and tools/call answer after `delayMs`
 * (default 20 s) while the SDK writes `: keepalive` comments every `keepAliveMs` (500 ms) on the
 * response stream. A client that goes away aborts the wait (counters.aborted); counters.completed
 * counts answers given. Tool: `echo`.
 */
export async function slowServer(options: { delayMs?: number; keepAliveMs?: number } = {}): Promise<McpFixture> {
  const { delayMs = 20_000, keepAliveMs = 500 } = options;
  const rec = recorder();
  const wait = async (extra: Extra) => {
    try {
      await sleep(delayMs, extra.signal);
      rec.bump("completed");
    } catch (error) {
      rec.bump("aborted");
      throw error;
    }
  };
  const build = () =>
    lowLevel(
      "fixture-slow",
      rec,
      async (_cursor, extra) => (await wait(extra), { tools: [rawTool("echo", "Returns its text argument, slowly.")] }),
      async (_name, args, extra) => (await wait(extra), text(JSON.stringify(args ?? {}))),
    );
  return mcpFixture(
    rec,
    (inc) => stateless(build, rec, inc, { keepAliveMs }),
    async () => {},
  ).fixture;
}

// ---------------------------------------------------------------------------------------------
// 7-10: redirects, lost sessions, auth.

/** Answers every request (any method, any path) with 302 to `location`; counters.redirects. */
export async function redirectingServer(location = "http://169.254.169.254/latest/meta-data/"): Promise<McpFixture & { location: string }> {
  const rec = recorder();
  const http = host(rec, () => {
    rec.bump("redirects");
    return new Response(null, { status: 302, headers: { location } });
  });
  return { url: `${http.origin}/mcp`, requests: rec.requests, calls: rec.calls, counters: rec.counters, location, stop: () => http.stop() };
}

/**
 * Stateful SSE (tools as statefulSseServer) that forgets every session, so the next request with
 * an old Mcp-Session-Id gets 404 (-32001 "Session not found"), once the response to the trigger
 * has been sent:
 * - `initialized` (default): after accepting notifications/initialized, so the operation's real
 *   request (tools/list or tools/call) meets the 404;
 * - `initialize`: after the initialize result, so notifications/initialized meets it;
 * - `request`: after the first tools/list or tools/call result, so the closing DELETE meets it;
 * - `manual`: only when `forget()` is called.
 * It forgets `times` times (default 1; Infinity to keep forgetting). counters.forgets counts them.
 */
export async function forgetfulServer(
  options: { forgetAfter?: "initialize" | "initialized" | "request" | "manual"; times?: number } = {},
): Promise<McpFixture & { forget(): Promise<void> }> {
  const { forgetAfter = "initialized", times = 1 } = options;
  let remaining = times;
  const rec = recorder();
  const sessions = new Sessions(() => {
    const server = new McpServer({ name: "fixture-forgetful", version: "1.0.0" });
    addDemoTools(server, rec);
    return server;
  }, rec);
  const forget = async () => {
    rec.bump("forgets");
    await sessions.forget();
  };
  const triggers = (body: unknown) => {
    const methods = (Array.isArray(body) ? body : [body]).map((m) => (typeof m === "object" && m !== null && "method" in m ? m.method : undefined));
    if (forgetAfter === "initialize") return methods.includes("initialize");
    if (forgetAfter === "initialized") return methods.includes("notifications/initialized");
    if (forgetAfter === "request") return methods.includes("tools/list") || methods.includes("tools/call");
    return false;
  };
  const { fixture } = mcpFixture(
    rec,
    async (inc) => {
      const res = await sessions.handle(inc);
      if (res.status >= 300 || !triggers(inc.body) || remaining <= 0) return res;
      remaining--;
      return afterBody(res, () => void forget());
    },
    () => sessions.forget(),
  );
  return { ...fixture, forget };
}

/**
 * Stateless, SSE. Without `Authorization: Bearer <token>` it answers 401 with
 * `WWW-Authenticate: Bearer` (`Bearer error="invalid_token"` for a wrong token) and a -32001 body;
 * counters.unauthorized. Tool: `secret_echo` {text}.
 */
export async function bearerServer(options: { token: string }): Promise<McpFixture> {
  const rec = recorder();
  const build = () => {
    const server = new McpServer({ name: "fixture-bearer", version: "1.0.0" });
    addEcho(server, rec, "secret_echo");
    return server;
  };
  const mcp = async (inc: Incoming) => {
    const auth = inc.req.headers.get("authorization");
    if (auth !== `Bearer ${options.token}`) {
      rec.bump("unauthorized");
      return rpcError(401, -32001, "Unauthorized", { "www-authenticate": auth ? 'Bearer error="invalid_token"' : "Bearer" });
    }
    return stateless(build, rec, inc);
  };
  return mcpFixture(rec, mcp, async () => {}).fixture;
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
}

export interface OAuthFixture extends McpFixture {
  origin: string;
  /** `<origin>/.well-known/oauth-protected-resource/mcp`, as named in WWW-Authenticate. */
  resourceMetadataUrl: string;
  tokenEndpoint: string;
  clientId: string;
  /** Mints a fresh pair, as if an authorization-code grant had just happened. */
  issue(): TokenPair;
  /** Every current access token stops working (401 at /mcp), so the client must refresh. */
  expireAccessTokens(): void;
  /** Every refresh token stops working (invalid_grant at /token). */
  revokeRefreshTokens(): void;
}

/**
 * An MCP server (stateful SSE, tool `echo`) behind OAuth, with its own tiny authorization server on
 * the same origin:
 * - GET /.well-known/oauth-protected-resource/mcp (and /.well-known/oauth-protected-resource):
 *   `{ resource: <url>, authorization_servers: [<origin>] }`;
 * - GET /.well-known/oauth-authorization-server: RFC 8414 metadata (issuer = origin, token_endpoint);
 * - POST /token, grant_type=refresh_token (form), client auth by client_id (body or Basic) and, when
 *   `clientSecret` is set, client_secret: rotates (new access + refresh token; the old refresh token
 *   and the access token issued with it stop working). Errors: invalid_client (401),
 *   unsupported_grant_type / invalid_grant / invalid_request (400).
 *   counters: token_requests, token_refreshes (successes), token_failures;
 * - /mcp accepts only a current access token, else 401 with
 *   `WWW-Authenticate: Bearer resource_metadata="<origin>/.well-known/oauth-protected-resource/mcp"`
 *   (plus `error="invalid_token"` when a token was sent); counters.unauthorized.
 */
export async function oauthProtectedServer(options: { clientId?: string; clientSecret?: string } = {}): Promise<OAuthFixture> {
  const clientId = options.clientId ?? "fixture-client";
  const rec = recorder();
  const access = new Set<string>();
  const refresh = new Map<string, string>(); // live refresh token -> the access token issued with it
  const issue = (): TokenPair => {
    const pair = { access_token: `at_${randomBytes(16).toString("hex")}`, refresh_token: `rt_${randomBytes(16).toString("hex")}` };
    access.add(pair.access_token);
    refresh.set(pair.refresh_token, pair.access_token);
    return pair;
  };
  const sessions = new Sessions(() => {
    const server = new McpServer({ name: "fixture-oauth", version: "1.0.0" });
    addEcho(server, rec);
    return server;
  }, rec);
  const tokenError = (status: number, error: string, headers: Record<string, string> = {}) =>
    Response.json({ error }, { status, headers: { "cache-control": "no-store", ...headers } });

  const token = (inc: Incoming) => {
    rec.bump("token_requests");
    const fail = (status: number, error: string, headers?: Record<string, string>) => (rec.bump("token_failures"), tokenError(status, error, headers));
    if (inc.req.method !== "POST" || typeof inc.body !== "object" || inc.body === null || inc.json) return fail(400, "invalid_request");
    const form = inc.body as Record<string, string>;
    // Client authentication: HTTP Basic (RFC 6749 section 2.3.1, form-encoded parts) or the body.
    let id = form.client_id;
    let secret = form.client_secret;
    const basic = /^Basic\s+(.+)$/i.exec(inc.req.headers.get("authorization") ?? "");
    if (basic?.[1]) {
      const [u = "", p = ""] = Buffer.from(basic[1], "base64").toString().split(":");
      id = decodeURIComponent(u.replace(/\+/g, " "));
      secret = decodeURIComponent(p.replace(/\+/g, " "));
    }
    if (id !== clientId || (options.clientSecret !== undefined && secret !== options.clientSecret)) {
      return fail(401, "invalid_client", basic ? { "www-authenticate": 'Basic realm="token"' } : {});
    }
    if (form.grant_type !== "refresh_token") return fail(400, "unsupported_grant_type");
    const old = form.refresh_token;
    if (old === undefined || !refresh.has(old)) return fail(400, "invalid_grant");
    access.delete(refresh.get(old)!);
    refresh.delete(old);
    const pair = issue();
    rec.bump("token_refreshes");
    return Response.json({ ...pair, token_type: "Bearer", expires_in: 3600 }, { headers: { "cache-control": "no-store" } });
  };

  const { fixture, origin } = mcpFixture(
    rec,
    async (inc, origin) => {
      const auth = /^Bearer\s+(.+)$/i.exec(inc.req.headers.get("authorization") ?? "")?.[1];
      if (auth === undefined || !access.has(auth)) {
        rec.bump("unauthorized");
        const challenge = `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"${auth === undefined ? "" : ', error="invalid_token"'}`;
        return rpcError(401, -32001, "Unauthorized", { "www-authenticate": challenge });
      }
      return sessions.handle(inc);
    },
    () => sessions.forget(),
    (inc, origin) => {
      const path = inc.path.split("?")[0];
      if (inc.req.method === "GET" && (path === "/.well-known/oauth-protected-resource/mcp" || path === "/.well-known/oauth-protected-resource")) {
        return Response.json({ resource: `${origin}/mcp`, authorization_servers: [origin], bearer_methods_supported: ["header"] });
      }
      if (inc.req.method === "GET" && path === "/.well-known/oauth-authorization-server") {
        return Response.json({
          issuer: origin,
          token_endpoint: `${origin}/token`,
          authorization_endpoint: `${origin}/authorize`, // present for metadata validators; not implemented
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
          code_challenge_methods_supported: ["S256"],
        });
      }
      if (path === "/token") return token(inc);
      return undefined;
    },
  );
  return {
    ...fixture,
    origin,
    resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp`,
    tokenEndpoint: `${origin}/token`,
    clientId,
    issue,
    expireAccessTokens: () => access.clear(),
    revokeRefreshTokens: () => refresh.clear(),
  };
}

// ---------------------------------------------------------------------------------------------
// 11: the reference "everything" server, as a child process behind a recording proxy.

export const EVERYTHING_DIR = join(ROOT, "node_modules/@modelcontextprotocol/server-everything");

export function everythingInstalled(packageDir = EVERYTHING_DIR): boolean {
  return existsSync(join(packageDir, "dist/index.js"));
}

/**
 * `@modelcontextprotocol/server-everything` started as `<runtime> dist/index.js streamableHttp`
 * with PORT=<free port> (it listens on every interface, path /mcp, stateful SSE with an event
 * store). The fixture's `url` is a recording proxy in front of it (so requests, counters and calls
 * work as elsewhere); `directUrl` is the child itself. Throws if the package is not installed.
 */
export async function everythingServer(
  options: { packageDir?: string; runtime?: string; startTimeoutMs?: number } = {},
): Promise<McpFixture & { directUrl: string; output(): string }> {
  const dir = options.packageDir ?? EVERYTHING_DIR;
  if (!everythingInstalled(dir)) throw new Error(`${dir} is missing: npm install --save-dev --save-exact @modelcontextprotocol/server-everything@2026.8.31`);
  const port = freePort();
  const directUrl = `http://127.0.0.1:${port}/mcp`;
  const proc = Bun.spawn([options.runtime ?? process.execPath, join(dir, "dist/index.js"), "streamableHttp"], {
    cwd: dir,
    env: childEnv({ PORT: String(port) }),
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) output = (output + decoder.decode(chunk, { stream: true })).slice(-20_000); // it logs every request
  };
  void drain(proc.stdout);
  void drain(proc.stderr);
  const deadline = Date.now() + (options.startTimeoutMs ?? 20_000);
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server-everything exited with ${proc.exitCode}: ${output}`);
    try {
      await fetch(directUrl, { method: "GET" }); // any HTTP answer (400 without a session) means it listens
      break;
    } catch {}
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`server-everything did not start: ${output}`);
    }
    await Bun.sleep(100);
  }
  const rec = recorder();
  const { fixture } = mcpFixture(
    rec,
    async (inc) => {
      if (inc.req.method === "DELETE") rec.bump("deletes");
      if (inc.req.method === "POST") {
        countMessages(rec, inc.body);
        for (const m of Array.isArray(inc.body) ? inc.body : [inc.body]) {
          if (m?.method === "tools/call") rec.calls.push({ tool: m.params?.name, args: m.params?.arguments, meta: m.params?._meta });
        }
      }
      const headers = new Headers(inc.req.headers);
      headers.delete("host");
      headers.delete("content-length");
      const upstream = await fetch(`http://127.0.0.1:${port}${inc.path}`, {
        method: inc.req.method,
        headers,
        body: inc.req.body === null ? null : await inc.req.arrayBuffer(),
        redirect: "manual",
        signal: inc.req.signal,
      });
      const out = new Headers(upstream.headers);
      out.delete("content-encoding"); // fetch has already decoded the body
      out.delete("content-length");
      return new Response(upstream.body, { status: upstream.status, headers: out });
    },
    async () => {
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 3000);
      await proc.exited;
      clearTimeout(timer);
    },
  );
  return { ...fixture, directUrl, output: () => output };
}
