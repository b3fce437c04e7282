// Our MCP client for connectors: Streamable HTTP toward servers we do not control, every request
// through the outbound guard. docs/interface.md appendix B is the contract:
// - POST with `Accept: application/json, text/event-stream`; JSON and SSE answers both parsed
//   (src/connectors/mcp-wire.ts); a 3xx is an error naming its Location; caps on response bytes;
//   one total deadline per operation (an AbortSignal), not an idle timer;
// - the revision: `server/discover` first (2026-07-28, stateless: no initialize, every request
//   carries its version and our capabilities in `_meta` and mirrors its method and name in
//   headers, src/connectors/mcp-modern.ts). A refusal without a modern error body is a legacy
//   server: `initialize` proposing 2025-11-25, accepting any known version the server picks, then
//   notifications/initialized (any 2xx); `MCP-Protocol-Version` and `Mcp-Session-Id` echoed
//   afterwards; the session closed with DELETE. An UnsupportedProtocolVersion error (-32022)
//   names the server's versions and we take the newest we speak. A server that issued no session
//   id (and every 2026-07-28 server) may be called again on that handshake (McpSession.resume);
//   a version learnt at an earlier discovery skips the probe (McpSession.open's `known`).
import { guardedFetch, readCapped, RedirectRefusedError, ResponseTooLargeError, BlockedUrlError } from "../net/guard.ts";
import { messageOf } from "../errors.ts";
import { isKnownProtocolVersion } from "../kit/mcp.ts";
import { CLIENT_LIMITS, type ConnectionOptions, deadlineError, errorInBody, type JsonRpcMessage, McpClientError, readResponse } from "./mcp-wire.ts";
import { choose, eraOf, META_SERVER_INFO, MODERN_VERSION, modernHeaders, withModernMeta } from "./mcp-modern.ts";

export { CLIENT_LIMITS, type ConnectionOptions, McpClientError, type McpErrorKind } from "./mcp-wire.ts";

/** The newest handshake revision (docs/interface.md B.1): a server that speaks an older one answers with it, and we follow. */
export const CLIENT_PROTOCOL_VERSION = "2025-11-25";
export const CLIENT_INFO = { name: "svc-agents", version: "1.0.0" };

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const record = (value: unknown) => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);

/** What `initialize` (or `server/discover`) told us about a server that keeps no session (see McpSession.resume). */
export interface Handshake {
  protocolVersion: string;
  serverInfo: Record<string, unknown>;
}

/** One MCP session (for 2026-07-28, a series of independent requests): open it, make requests, close it. */
export class McpSession {
  private nextId = 1;
  private sessionId?: string;
  protocolVersion = CLIENT_PROTOCOL_VERSION;
  serverInfo: Record<string, unknown> = {};
  /** Speaking 2026-07-28: no handshake, every request self-contained. */
  private modern = false;
  private initialized = false;
  /** Started from an earlier handshake (resume), not by initialize or server/discover. */
  private resumed = false;

  private constructor(private readonly options: ConnectionOptions) {}

  /**
   * A session on a server that issued no Mcp-Session-Id at an earlier initialize (or that speaks
   * 2026-07-28), started from that handshake without sending anything: such a server keeps
   * nothing between requests. If the server now refuses a request (400 or 404: it started keeping
   * sessions, or no longer speaks that version), the request fails as `session_lost`, and
   * `request(…, retryable)` does a real handshake and retries once.
   */
  static resume(options: ConnectionOptions, handshake: Handshake): McpSession {
    const session = new McpSession(options);
    session.protocolVersion = handshake.protocolVersion;
    session.serverInfo = handshake.serverInfo;
    session.modern = handshake.protocolVersion === MODERN_VERSION;
    session.initialized = !session.modern;
    session.resumed = true;
    return session;
  }

  /** Whether this session did a handshake of its own (initialize or server/discover), rather than resume an earlier one. */
  get handshook(): boolean {
    return (this.initialized || this.modern) && !this.resumed;
  }

  /** The handshake this session made, when the server keeps no session (reusable with resume). */
  get sessionless(): Handshake | undefined {
    if (this.resumed || (!this.modern && (!this.initialized || this.sessionId !== undefined))) return undefined;
    return { protocolVersion: this.protocolVersion, serverInfo: this.serverInfo };
  }

  /**
   * Opens a session. `known` is the revision an earlier discovery negotiated with this server
   * (2026-07-28 versioning: clients SHOULD cache the era and re-probe when the assumption fails):
   * a handshake revision goes straight to initialize, 2026-07-28 straight to its requests;
   * without one, or when initialize is refused, `server/discover` probes first.
   */
  static async open(options: ConnectionOptions, known?: string): Promise<McpSession> {
    const session = new McpSession(options);
    if (known === MODERN_VERSION) {
      session.modern = true;
      session.protocolVersion = MODERN_VERSION;
      return session;
    }
    if (known !== undefined && isKnownProtocolVersion(known)) {
      try {
        await session.handshake(CLIENT_PROTOCOL_VERSION);
        return session;
      } catch (error) {
        if (eraOf(error, false) === undefined) throw error;
      }
    }
    await session.negotiate();
    return session;
  }

  /** `server/discover`, then the era it shows (2026-07-28 streamable-http.mdx, "Backward Compatibility"). */
  private async negotiate(retried = false): Promise<void> {
    this.modern = true;
    this.protocolVersion = MODERN_VERSION;
    let result: Record<string, unknown> | undefined;
    try {
      result = record(await this.send("server/discover", undefined));
    } catch (error) {
      this.modern = false;
      const era = eraOf(error, true);
      if (era === undefined) throw error;
      const version = era === "legacy" ? CLIENT_PROTOCOL_VERSION : choose(era);
      // Refused 2026-07-28 while naming it as supported: the versioning rules say retry with a version it names; once.
      if (version === MODERN_VERSION) {
        if (retried) throw error;
        return this.negotiate(true);
      }
      return this.handshake(version);
    }
    // A result without supportedVersions is no DiscoverResult: a legacy server answering an unknown method generically.
    const listed = result?.supportedVersions;
    const version = Array.isArray(listed) ? choose(listed.filter((v): v is string => typeof v === "string")) : CLIENT_PROTOCOL_VERSION;
    if (version !== MODERN_VERSION) {
      this.modern = false;
      return this.handshake(version);
    }
    this.serverInfo = record(record(result?._meta)?.[META_SERVER_INFO]) ?? {};
  }

  /** initialize proposing `version` (docs/interface.md B.6: a session lost at notifications/initialized gets one fresh start). */
  private async handshake(version: string): Promise<void> {
    try {
      await this.initialize(version);
    } catch (error) {
      if (!(error instanceof McpClientError) || error.kind !== "session_lost") throw error;
      await this.initialize(version);
    }
  }

  private async initialize(proposed = CLIENT_PROTOCOL_VERSION): Promise<void> {
    this.sessionId = undefined;
    this.initialized = false;
    this.resumed = false;
    this.modern = false;
    const result = (await this.send("initialize", { protocolVersion: proposed, capabilities: {}, clientInfo: CLIENT_INFO })) as {
      protocolVersion?: unknown;
      serverInfo?: unknown;
    };
    const version = typeof result?.protocolVersion === "string" ? result.protocolVersion : "";
    if (!isKnownProtocolVersion(version))
      throw new McpClientError("protocol", `the server chose protocol version ${JSON.stringify(version)}, which we do not know`);
    this.protocolVersion = version;
    this.serverInfo = record(result.serverInfo) ?? {};
    this.initialized = true;
    await this.notify("notifications/initialized");
  }

  private headers(method: string, params: Record<string, unknown> | undefined, extra: Record<string, string>): Record<string, string> {
    return {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(this.modern ? { ...modernHeaders(method, params), ...extra } : {}),
      ...(!this.modern && this.initialized ? { "mcp-protocol-version": this.protocolVersion } : {}),
      ...(!this.modern && this.sessionId ? { "mcp-session-id": this.sessionId } : {}),
      ...this.options.authHeaders(),
    };
  }

  private async post(body: { method: string; params?: Record<string, unknown> }, extra: Record<string, string> = {}): Promise<Response> {
    let response: Response;
    try {
      const init = {
        method: "POST",
        headers: this.headers(body.method, body.params, extra),
        body: JSON.stringify({ jsonrpc: "2.0", ...body }),
        signal: this.options.signal,
      };
      response = await guardedFetch(this.options.url, init, this.options.guard);
    } catch (error) {
      if (error instanceof RedirectRefusedError || error instanceof BlockedUrlError) throw new McpClientError("blocked", error.message);
      throw deadlineError(error) ?? new McpClientError("http", `could not reach the server: ${messageOf(error)}`);
    }
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      throw new McpClientError("auth", `the server refused our credentials (HTTP ${response.status})`, {
        status: response.status,
        wwwAuthenticate: response.headers.get("www-authenticate"),
      });
    }
    if (response.status === 404 && this.sessionId) {
      await response.body?.cancel();
      throw new McpClientError("session_lost", "the server no longer knows our session (HTTP 404)", { status: 404 });
    }
    if ((response.status === 400 || response.status === 404) && this.resumed && !this.modern) {
      await response.body?.cancel();
      throw new McpClientError("session_lost", `the server refused a request made on its earlier handshake (HTTP ${response.status})`, {
        status: response.status,
      });
    }
    if (!response.ok) {
      const text = new TextDecoder().decode(await readCapped(response, 64 * 1024).catch(() => new Uint8Array()));
      // 2026-07-28 refuses with 400 (404 for an unknown method) and a JSON-RPC error saying why.
      const rpc = errorInBody(text);
      const said = rpc ? `error ${rpc.code}: ${String(rpc.message).slice(0, 200)}` : text.slice(0, 200);
      throw new McpClientError("http", `the server answered HTTP ${response.status}${said ? `: ${said}` : ""}`, {
        status: response.status,
        ...(rpc ? { rpcCode: rpc.code, rpcData: rpc.data } : {}),
      });
    }
    return response;
  }

  private async send(method: string, params: Record<string, unknown> | undefined, extra?: Record<string, string>): Promise<unknown> {
    const id = this.nextId++;
    const sent = this.modern ? withModernMeta(params, CLIENT_INFO) : params;
    const response = await this.post({ id, method, ...(sent ? { params: sent } : {}) } as { method: string; params?: Record<string, unknown> }, extra);
    if (method === "initialize") {
      const issued = response.headers.get("mcp-session-id");
      if (issued !== null) {
        if (issued.length > CLIENT_LIMITS.sessionIdLength || !VISIBLE_ASCII.test(issued))
          throw new McpClientError("protocol", "the server issued an invalid Mcp-Session-Id");
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
    if (message.error)
      throw new McpClientError("rpc", `the server answered ${method} with error ${message.error.code}: ${String(message.error.message).slice(0, 300)}`, {
        rpcCode: message.error.code,
        rpcData: message.error.data,
      });
    // 2026-07-28: a result says whether it is complete (absent: complete); `input_required` asks
    // the client for input mid-request, which a connector has no person to ask.
    const resultType = record(message.result)?.resultType;
    if (resultType !== undefined && resultType !== "complete")
      throw new McpClientError(
        "protocol",
        `the server answered ${method} with resultType ${JSON.stringify(String(resultType).slice(0, 40))}, which connectors cannot complete`,
      );
    return message.result;
  }

  private async notify(method: string): Promise<void> {
    const response = await this.post({ method });
    await response.body?.cancel(); // any 2xx will do (docs/interface.md B.2)
  }

  /**
   * A request; `headers` are sent only on a 2026-07-28 request (a tool's `Mcp-Param-*`). On a lost
   * session, re-initialise once and retry when `retryable`. A 2026-07-28 request the server
   * refused for its version (an UnsupportedProtocolVersion error, or a legacy 4xx) never ran:
   * it is retried once in the revision the refusal points to.
   */
  async request(method: string, params: Record<string, unknown> | undefined, retryable: boolean, headers: Record<string, string> = {}): Promise<unknown> {
    try {
      return await this.send(method, params, headers);
    } catch (error) {
      if (!(error instanceof McpClientError)) throw error;
      if (this.modern) {
        const era = eraOf(error, false);
        if (era === undefined) throw error;
        const version = era === "legacy" ? CLIENT_PROTOCOL_VERSION : choose(era);
        if (version === MODERN_VERSION) return this.send(method, params, headers); // named as supported: once more
        // A server that refuses the older handshake too was not an older server: its first refusal is the reason.
        await this.handshake(version).catch(() => {
          throw error;
        });
        return this.send(method, params);
      }
      if (error.kind !== "session_lost" || !retryable) throw error;
      await this.initialize();
      return this.send(method, params);
    }
  }

  /** Ends a stateful session (docs/interface.md B.7); failures are ignored. 2026-07-28 has none. */
  async close(): Promise<void> {
    if (!this.sessionId || this.modern) return;
    try {
      const response = await guardedFetch(
        this.options.url,
        { method: "DELETE", headers: this.headers("", undefined, {}), signal: AbortSignal.timeout(5000) },
        this.options.guard,
      );
      await response.body?.cancel();
    } catch {}
  }
}
