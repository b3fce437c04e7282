// The tool server's JSON-RPC engine (docs/interface.md 4.2 and 7.1): one authenticated POST body in, one
// HTTP answer out. It parses the body (bounded), splits a batch, checks each envelope, charges the
// per-token limit, and dispatches initialize, ping, tools/list and tools/call — the last two
// straight to the tool runtime (deps.tools), which owns visibility, validation, limits, deadlines
// and the audit row. Every failure is an AppError, mapped to the wire here and nowhere else.
import type { StageTimer } from "../kit/stage-timer.ts";
import type { Deps } from "../deps.ts";
import { AppError, knownError, RPC } from "../errors.ts";
import { JsonInputError, parseJsonBounded } from "../http/json.ts";
import { findControlCharacter } from "../http/json-strings.ts";
import type { AccessContext } from "../oauth/verify.ts";
import type { Taken } from "../ratelimit/leased.ts";
import { chargeToken, methodClass, rateLimitHeaders } from "../ratelimit/per-token.ts";
import type { CallScope } from "../ports/tools.ts";
import { boundCustomerOf, findEndUser, findEndUserByEmail } from "../customers/records.ts";
import { isKnownProtocolVersion, KNOWN_PROTOCOL_VERSIONS } from "../kit/mcp.ts";
import { failure, parseMessage, type RpcId, type RpcRequest, type RpcResponse, success } from "./jsonrpc.ts";
import { callResult, capabilities, discoverResult, listedTool, serverInfo, SERVER_NAME, SERVER_VERSION, stateless, TOOLS_TTL_MS } from "./shape.ts";
import { atLeast, checkStatelessRequest, HANDSHAKE_VERSIONS, metaVersion, negotiate, STATELESS_VERSIONS } from "./versions.ts";

export const PROTOCOL_VERSION = "2025-03-26";
export const SERVER_INFO = { name: SERVER_NAME, version: SERVER_VERSION };
export const METHODS = ["initialize", "ping", "tools/list", "tools/call"] as const;
/** The error code of a method this server does not implement (not of a tool that finds nothing). */
const METHOD_NOT_FOUND = "method_not_found";

export interface RpcAnswer {
  status: number;
  headers: Record<string, string>;
  /** Null for 202 (only notifications were sent, docs/interface.md A.2). */
  body: unknown;
}

/**
 * The HTTP status an error gives a single-message answer. JSON-RPC errors travel in a 200, except
 * where a client acts on the status: 401 (refresh), 403 insufficient_scope (docs/interface.md
 * A.6), 429 (back off, docs/interface.md 7.1), 503 with Retry-After (the database is unavailable:
 * README "Faults and shutdown"), and an envelope the server cannot read at all (400).
 */
function httpOf(error: AppError): { status: number; headers?: Record<string, string> } | undefined {
  if (error.status === 401 || error.status === 429 || error.status === 503 || error.reason === "scope") return { status: error.status, headers: error.headers };
  if (error.rpcCode === RPC.PARSE_ERROR || error.rpcCode === RPC.INVALID_REQUEST) return { status: 400 };
  return undefined;
}

/** The answer when the request fails as a whole (authentication, protocol version, body): id null. */
export function rpcFailure(error: AppError): RpcAnswer {
  return { status: error.status, headers: error.headers ?? {}, body: failure(null, error.toRpc()) };
}

function asAppError(deps: Pick<Deps, "log">, method: string, error: unknown): AppError {
  const known = knownError(error);
  if (known) return known;
  deps.log.error("tool server method failed", { method, error });
  return new AppError(500, "internal_error", "Internal error.");
}

/** `_meta.bound_end_user_id` / `bound_email`, resolved within the token's org on every call. */
async function boundCustomer(deps: Pick<Deps, "db">, orgId: string, meta: unknown) {
  if (meta === undefined) return undefined;
  if (typeof meta !== "object" || meta === null || Array.isArray(meta)) throw AppError.badRequest("Invalid params: _meta must be an object.");
  const { bound_end_user_id: id, bound_email: email } = meta as Record<string, unknown>;
  if (id === undefined && email === undefined) return undefined;
  if ((id !== undefined && typeof id !== "string") || (email !== undefined && typeof email !== "string"))
    throw AppError.badRequest("Invalid params: _meta.bound_end_user_id and _meta.bound_email must be strings.");
  if (findControlCharacter(id ?? "") !== null || findControlCharacter(email ?? "") !== null)
    throw AppError.badRequest("Invalid params: the bound customer is not known in this organisation.");
  const byId = id !== undefined ? await findEndUser(deps, orgId, id) : null;
  const byEmail = email !== undefined ? await findEndUserByEmail(deps, orgId, email) : null;
  const user = id !== undefined ? byId : byEmail;
  // The same answer whether the customer is unknown, stale or another org's: no hint either way.
  if (!user || (byId && email !== undefined && byEmail?.id !== byId.id))
    throw AppError.badRequest("Invalid params: the bound customer is not known in this organisation.");
  return boundCustomerOf(user);
}

/** The revision a request is served by: negotiated in `initialize`, then named by the header. */
async function dispatch(deps: Pick<Deps, "config" | "db" | "tools">, scope: CallScope, request: RpcRequest, version: string): Promise<unknown> {
  const modern = (STATELESS_VERSIONS as readonly string[]).includes(version);
  switch (request.method) {
    case "initialize": {
      if (modern) break;
      // Each revision's lifecycle: the client's version when we speak it, else our latest (A.3).
      const agreed = negotiate(request.params?.protocolVersion);
      return { protocolVersion: agreed, serverInfo: serverInfo(deps.config, agreed), capabilities };
    }
    case "ping":
      if (modern) break; // removed in 2026-07-28
      return {};
    case "server/discover":
      if (!modern) break;
      return discoverResult(deps.config);
    case "tools/list": {
      const tools = (await deps.tools.list(scope)).map((tool) => listedTool(tool, version));
      // The list follows the token's scopes: a shared cache must not hand it to another token.
      return modern ? stateless(deps.config, { tools, ttlMs: TOOLS_TTL_MS, cacheScope: "private" }) : { tools };
    }
    case "tools/call": {
      const params = request.params ?? {};
      const result = await deps.tools.call(
        { ...scope, resolveCustomer: () => boundCustomer(deps, scope.orgId, params._meta) },
        // Checked by the runtime, which audits a call whatever its name is.
        params.name as string,
        params.arguments,
      );
      const tool = atLeast(version, "2025-06-18") ? (await deps.tools.list(scope)).find((t) => t.name === params.name) : undefined;
      const answer = callResult(tool, result, version);
      return modern ? stateless(deps.config, answer) : answer;
    }
  }
  throw new AppError(404, METHOD_NOT_FOUND, `Method not found: ${request.method}`);
}

/** The body's JSON, or the single error answer when it is not acceptable JSON at all. */
function parseBody(body: string): { parsed: unknown } | { error: AppError } {
  try {
    // Relay mode: nesting is bounded, but strings are not refused here for control characters, so a
    // NUL inside a tool's arguments reaches the runtime, which refuses it as -32602 *and* writes the
    // audit row (every call leaves its row, whatever its input).
    return { parsed: parseJsonBounded(body, { relay: true }) };
  } catch (error) {
    if (!(error instanceof JsonInputError)) throw error;
    // Not JSON at all → -32700; JSON we refuse to read (too deep: src/http/json.ts) → -32600.
    // Either way there is no request to run or audit.
    return {
      error:
        error.kind === "syntax"
          ? AppError.rpcEnvelope(RPC.PARSE_ERROR, "Parse error: the body is not valid JSON.")
          : AppError.rpcEnvelope(RPC.INVALID_REQUEST, `Invalid Request: ${error.message}`),
    };
  }
}

/**
 * The revision a body is served by (docs/interface.md A.3): 2026-07-28 when the header or the
 * request's `_meta` names a version no handshake negotiates (checked as that revision's "Server
 * Validation" says), else the MCP-Protocol-Version header's (absent: 2025-03-26). From 2025-06-18
 * on a body is one message: batches were removed.
 */
function revisionOf(parsed: unknown, headers: Headers): { version: string; modern: boolean } | { refused: RpcAnswer } {
  const header = headers.get("mcp-protocol-version");
  const requested = metaVersion(parsed);
  const handshake = (v: string) => (HANDSHAKE_VERSIONS as readonly string[]).includes(v);
  if ((header !== null && (STATELESS_VERSIONS as readonly string[]).includes(header)) || (requested !== undefined && !handshake(requested))) {
    const refused = checkStatelessRequest(parsed, headers);
    if (!refused) return { version: requested!, modern: true };
    const id = (parsed as Record<string, unknown> | null)?.id;
    return { refused: { status: 400, headers: {}, body: failure(typeof id === "string" || typeof id === "number" ? id : null, refused.toRpc()) } };
  }
  if (header !== null && !isKnownProtocolVersion(header))
    return {
      refused: rpcFailure(
        AppError.rpcEnvelope(
          RPC.INVALID_REQUEST,
          `Unsupported MCP-Protocol-Version ${header}; supported: ${KNOWN_PROTOCOL_VERSIONS.join(", ")}, ${STATELESS_VERSIONS.join(", ")}.`,
        ),
      ),
    };
  const version = header ?? "2025-03-26";
  if (Array.isArray(parsed) && atLeast(version, "2025-06-18"))
    return {
      refused: rpcFailure(AppError.rpcEnvelope(RPC.INVALID_REQUEST, `Invalid Request: MCP ${version} has no JSON-RPC batches; send one message per POST.`)),
    };
  return { version, modern: false };
}

/** Runs one POST /api/mcp body for a verified token; `timer` (SERVER_TIMING) is told its stages. */
export async function handleRpc(
  deps: Pick<Deps, "config" | "db" | "limiter" | "log" | "now" | "tools">,
  body: string,
  token: AccessContext,
  requestHeaders: Headers,
  timer?: StageTimer,
): Promise<RpcAnswer> {
  const read = parseBody(body);
  if ("error" in read) return rpcFailure(read.error);
  const batch = Array.isArray(read.parsed);
  const messages = batch ? (read.parsed as unknown[]) : [read.parsed];
  if (batch && messages.length === 0) return rpcFailure(AppError.rpcEnvelope(RPC.INVALID_REQUEST, "Invalid Request: an empty batch."));
  const revision = revisionOf(read.parsed, requestHeaders);
  if ("refused" in revision) return revision.refused;
  const { version, modern } = revision;

  let tightest: Taken | undefined;
  const noteCharge = (taken: Taken) => {
    if (!tightest || taken.limit - taken.count < tightest.limit - tightest.count) tightest = taken;
  };
  const scope: CallScope = {
    actor: { kind: "token", tokenId: token.tokenId, clientId: token.clientId, memberId: token.memberId, scopes: token.scopes },
    orgId: token.orgId,
    channel: "mcp",
    onTokenCharge: noteCharge,
    timer,
  };
  const responses: RpcResponse[] = [];
  let http: { status: number; headers?: Record<string, string> } | undefined;
  for (const message of messages) {
    const checked = parseMessage(message);
    if ("error" in checked) {
      responses.push(checked.error);
      http ??= { status: 400 };
      continue;
    }
    const { request } = checked;
    const cls = methodClass(request.method);
    // A tools/call request is charged by the runtime (so every channel counts it the same way).
    const runtimeCharges = cls === "tools/call" && request.id !== undefined;
    if (!runtimeCharges) {
      const taken = await chargeToken(deps.limiter, deps.config, token.tokenId, cls, deps.now());
      noteCharge(taken);
      if (request.id === undefined) continue; // a notification: accepted, nothing to answer (docs/interface.md A.2)
      if (!taken.allowed) {
        const limited = AppError.tooManyRequests(
          taken.retryAfter,
          `Rate limit exceeded: ${taken.limit} ${cls === "other" ? "requests" : request.method} per minute per token; retry in ${taken.retryAfter} s.`,
        );
        responses.push(failure(request.id, limited.toRpc()));
        http ??= httpOf(limited);
        continue;
      }
    }
    try {
      responses.push(success(request.id as RpcId, await dispatch(deps, scope, request, version)));
    } catch (error) {
      const failed = asAppError(deps, request.method, error);
      responses.push(failure(request.id as RpcId, failed.toRpc()));
      // 2026-07-28: a method the server does not implement is a 404 with -32601. A method's own
      // failure stays in the 200 whatever its code (a tool's not_found is -32601 too, interface
      // 7.1): as a 404 the official client reports a transport failure instead of the error
      // (docs/decisions.md "A tool's not_found over HTTP").
      http ??= modern && failed.code === METHOD_NOT_FOUND ? { status: 404 } : httpOf(failed);
    }
  }
  const headers = tightest ? rateLimitHeaders(tightest) : {};
  if (responses.length === 0) return { status: 202, headers, body: null };
  // A batch answers 200 with every entry; a single message carries its own HTTP status.
  if (batch) return { status: 200, headers, body: responses };
  return { status: http?.status ?? 200, headers: { ...headers, ...http?.headers }, body: responses[0] };
}
