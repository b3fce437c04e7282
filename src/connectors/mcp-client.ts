// Our MCP client for connectors: Streamable HTTP (MCP 2025-03-26) toward servers we do not
// control, every request through the outbound guard. docs/interface.md appendix B is the contract:
// - POST with `Accept: application/json, text/event-stream`; JSON and SSE answers both parsed;
//   notifications and server requests before our response are skipped; reading stops at our
//   response; a stream that ends without it is an error;
// - initialize (proposing 2025-03-26, accepting any known version the server picks), then
//   notifications/initialized (any 2xx), then the request; `MCP-Protocol-Version` and
//   `Mcp-Session-Id` echoed afterwards; the session closed with DELETE; a server that issued no
//   session id may be called again on that handshake (McpSession.resume);
// - one total deadline per operation (an AbortSignal), not an idle timer;
// - caps on response bytes; a 3xx is an error naming its Location.
import { createParser } from "eventsource-parser";
import { type GuardOptions, guardedFetch, readCapped, RedirectRefusedError, ResponseTooLargeError, BlockedUrlError } from "../net/guard.ts";
import { messageOf } from "../errors.ts";
import { isKnownProtocolVersion } from "../kit/mcp.ts";
import { isTimeout } from "../kit/timeouts.ts";
import { parseJsonBounded } from "../http/json.ts";

/** The newest handshake revision (docs/interface.md B.1): a server that speaks an older one answers with it, and we follow. */
export const CLIENT_PROTOCOL_VERSION = "2025-11-25";
export const CLIENT_INFO = { name: "svc-agents", version: "1.0.0" };
export const CLIENT_LIMITS = {
  /** One response (JSON body or the SSE stream read until our answer). */
  responseBytes: 4 * 1024 * 1024,
  sessionIdLength: 256,
};

export type McpErrorKind = "auth" | "session_lost" | "http" | "protocol" | "rpc" | "timeout" | "blocked";

export class McpClientError extends Error {
  override name = "McpClientError";
  constructor(
    readonly kind: McpErrorKind,
    message: string,
    readonly details: { status?: number; wwwAuthenticate?: string | null; rpcCode?: number } = {},
  ) {
    super(message);
  }
}

export interface ConnectionOptions {
  url: string;
  /** Authorization headers for each request (read again after a credential refresh). */
  authHeaders: () => Record<string, string>;
  guard: GuardOptions;
  /** The operation's total deadline. */
  signal: AbortSignal;
}

interface JsonRpcMessage {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

function deadlineError(error: unknown): McpClientError | undefined {
  if (isTimeout(error)) return new McpClientError("timeout", "the server did not answer before the deadline");
  return undefined;
}

/** Picks our response (by id) out of a JSON body or an SSE stream. */
async function readResponse(response: Response, id: number, signal: AbortSignal): Promise<JsonRpcMessage> {
  const type = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "text/event-stream") return readEventStream(response, id, signal);
  const text = new TextDecoder().decode(await readCapped(response, CLIENT_LIMITS.responseBytes));
  let parsed: unknown;
  try {
    // Nesting bounded (src/http/json.ts relay mode): a result nested 100,000 levels would block
    // the process in JSON.stringify for seconds.
    parsed = parseJsonBounded(text, { relay: true });
  } catch {
    throw new McpClientError("protocol", `the server answered ${type || "without a content type"} that is not JSON (or nested too deeply)`);
  }
  const messages = (Array.isArray(parsed) ? parsed : [parsed]) as JsonRpcMessage[];
  const ours = messages.find((m) => m && typeof m === "object" && m.id === id && ("result" in m || "error" in m));
  if (!ours) throw new McpClientError("protocol", "the server's answer does not contain a response to our request");
  return ours;
}

async function readEventStream(response: Response, id: number, signal: AbortSignal): Promise<JsonRpcMessage> {
  if (!response.body) throw new McpClientError("protocol", "the event stream has no body");
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let found: JsonRpcMessage | undefined;
  let bytes = 0;
  const parser = createParser({
    onEvent(event) {
      if (found || event.data === "") return; // priming and keep-alive events carry no message
      let message: unknown;
      try {
        message = parseJsonBounded(event.data, { relay: true });
      } catch {
        return; // not JSON-RPC: ignore, as browsers ignore unknown events
      }
      for (const m of (Array.isArray(message) ? message : [message]) as JsonRpcMessage[]) {
        // Notifications and server-to-client requests before our response are skipped.
        if (m && typeof m === "object" && m.id === id && ("result" in m || "error" in m)) found = m;
      }
    },
  });
  try {
    while (!found) {
      if (signal.aborted) throw new McpClientError("timeout", "the server did not answer before the deadline");
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > CLIENT_LIMITS.responseBytes) throw new ResponseTooLargeError(`the event stream exceeded ${CLIENT_LIMITS.responseBytes} bytes before our response`);
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  if (!found) throw new McpClientError("protocol", "the event stream ended without a response to our request");
  return found;
}

/** What `initialize` told us about a server that issued no session id (see McpSession.resume). */
export interface Handshake {
  protocolVersion: string;
  serverInfo: Record<string, unknown>;
}

/** One MCP session: open it, make requests, close it. */
export class McpSession {
  private nextId = 1;
  private sessionId?: string;
  protocolVersion = CLIENT_PROTOCOL_VERSION;
  serverInfo: Record<string, unknown> = {};
  private initialized = false;
  /** Started from an earlier handshake (resume), not by initialize. */
  private resumed = false;

  private constructor(private readonly options: ConnectionOptions) {}

  /**
   * A session on a server that issued no Mcp-Session-Id at an earlier initialize, started from
   * that handshake without sending anything: such a server keeps nothing between requests, so a
   * new initialize would tell it nothing. If the server now refuses a request (400 or 404: it
   * started keeping sessions, or no longer speaks that version), the request fails as
   * `session_lost`, and `request(…, retryable)` does a real handshake and retries once.
   */
  static resume(options: ConnectionOptions, handshake: Handshake): McpSession {
    const session = new McpSession(options);
    session.protocolVersion = handshake.protocolVersion;
    session.serverInfo = handshake.serverInfo;
    session.initialized = true;
    session.resumed = true;
    return session;
  }

  /** Whether this session did a handshake of its own (initialize), rather than resume an earlier one. */
  get handshook(): boolean {
    return this.initialized && !this.resumed;
  }

  /** The handshake this session made, when the server issued no session id (reusable with resume). */
  get sessionless(): Handshake | undefined {
    if (!this.initialized || this.resumed || this.sessionId !== undefined) return undefined;
    return { protocolVersion: this.protocolVersion, serverInfo: this.serverInfo };
  }

  static async open(options: ConnectionOptions): Promise<McpSession> {
    const session = new McpSession(options);
    try {
      await session.initialize();
    } catch (error) {
      // docs/interface.md B.6: a session lost during the handshake (404 on notifications/initialized) gets one fresh start.
      if (!(error instanceof McpClientError) || error.kind !== "session_lost") throw error;
      await session.initialize();
    }
    return session;
  }

  private async initialize(): Promise<void> {
    this.sessionId = undefined;
    this.initialized = false;
    this.resumed = false;
    const result = (await this.send("initialize", { protocolVersion: CLIENT_PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT_INFO })) as {
      protocolVersion?: unknown;
      serverInfo?: unknown;
    };
    const version = typeof result?.protocolVersion === "string" ? result.protocolVersion : "";
    if (!isKnownProtocolVersion(version)) throw new McpClientError("protocol", `the server chose protocol version ${JSON.stringify(version)}, which we do not know`);
    this.protocolVersion = version;
    this.serverInfo = typeof result.serverInfo === "object" && result.serverInfo !== null ? (result.serverInfo as Record<string, unknown>) : {};
    this.initialized = true;
    await this.notify("notifications/initialized");
  }

  private headers(): Record<string, string> {
    return {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(this.initialized ? { "mcp-protocol-version": this.protocolVersion } : {}),
      ...(this.sessionId ? { "mcp-session-id": this.sessionId } : {}),
      ...this.options.authHeaders(),
    };
  }

  private async post(body: unknown): Promise<Response> {
    let response: Response;
    try {
      response = await guardedFetch(this.options.url, { method: "POST", headers: this.headers(), body: JSON.stringify(body), signal: this.options.signal }, this.options.guard);
    } catch (error) {
      if (error instanceof RedirectRefusedError || error instanceof BlockedUrlError) throw new McpClientError("blocked", error.message);
      throw deadlineError(error) ?? new McpClientError("http", `could not reach the server: ${messageOf(error)}`);
    }
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      throw new McpClientError("auth", `the server refused our credentials (HTTP ${response.status})`, { status: response.status, wwwAuthenticate: response.headers.get("www-authenticate") });
    }
    if (response.status === 404 && this.sessionId) {
      await response.body?.cancel();
      throw new McpClientError("session_lost", "the server no longer knows our session (HTTP 404)", { status: 404 });
    }
    if ((response.status === 400 || response.status === 404) && this.resumed) {
      await response.body?.cancel();
      throw new McpClientError("session_lost", `the server refused a request made on its earlier handshake (HTTP ${response.status})`, { status: response.status });
    }
    if (!response.ok) {
      const excerpt = new TextDecoder().decode(await readCapped(response, 64 * 1024).catch(() => new Uint8Array())).slice(0, 200);
      throw new McpClientError("http", `the server answered HTTP ${response.status}${excerpt ? `: ${excerpt}` : ""}`, { status: response.status });
    }
    return response;
  }

  private async send(method: string, params?: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId++;
    const response = await this.post({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
    if (method === "initialize") {
      const issued = response.headers.get("mcp-session-id");
      if (issued !== null) {
        if (issued.length > CLIENT_LIMITS.sessionIdLength || !VISIBLE_ASCII.test(issued)) throw new McpClientError("protocol", "the server issued an invalid Mcp-Session-Id");
        this.sessionId = issued;
      }
    }
    let message: JsonRpcMessage;
    try {
      message = await readResponse(response, id, this.options.signal);
    } catch (error) {
      if (error instanceof McpClientError) throw error;
      if (error instanceof ResponseTooLargeError) throw new McpClientError("protocol", error.message);
      throw deadlineError(error) ?? new McpClientError("protocol", `could not read the server's answer: ${messageOf(error)}`);
    }
    if (message.error) throw new McpClientError("rpc", `the server answered ${method} with error ${message.error.code}: ${String(message.error.message).slice(0, 300)}`, { rpcCode: message.error.code });
    return message.result;
  }

  private async notify(method: string): Promise<void> {
    const response = await this.post({ jsonrpc: "2.0", method });
    await response.body?.cancel(); // any 2xx will do (docs/interface.md B.2)
  }

  /** A request; on a lost session, re-initialise once and retry when `retryable`. */
  async request(method: string, params: Record<string, unknown> | undefined, retryable: boolean): Promise<unknown> {
    try {
      return await this.send(method, params);
    } catch (error) {
      if (!(error instanceof McpClientError) || error.kind !== "session_lost" || !retryable) throw error;
      await this.initialize();
      return this.send(method, params);
    }
  }

  /** Ends a stateful session (docs/interface.md B.7); failures are ignored. */
  async close(): Promise<void> {
    if (!this.sessionId) return;
    try {
      const response = await guardedFetch(this.options.url, { method: "DELETE", headers: this.headers(), signal: AbortSignal.timeout(5000) }, this.options.guard);
      await response.body?.cancel();
    } catch {}
  }
}

export const LIST_LIMITS = { pages: 50, tools: 2000 };

/** tools/list with pagination (docs/interface.md B.5): an empty-string cursor is valid; a repeated cursor stops. */
export async function listAllTools(session: McpSession): Promise<unknown[]> {
  const tools: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < LIST_LIMITS.pages; page++) {
    const result = (await session.request("tools/list", cursor !== undefined ? { cursor } : undefined, true)) as { tools?: unknown; nextCursor?: unknown };
    if (!Array.isArray(result?.tools)) throw new McpClientError("protocol", "tools/list did not return a tools array");
    tools.push(...result.tools);
    if (tools.length > LIST_LIMITS.tools) throw new McpClientError("protocol", `the server lists more than ${LIST_LIMITS.tools} tools`);
    if (typeof result.nextCursor !== "string") return tools;
    if (seen.has(result.nextCursor)) throw new McpClientError("protocol", "tools/list repeated a cursor");
    seen.add(result.nextCursor);
    cursor = result.nextCursor;
  }
  throw new McpClientError("protocol", `tools/list has more than ${LIST_LIMITS.pages} pages`);
}
