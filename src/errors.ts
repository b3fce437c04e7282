// The one error type feature code throws, whatever the transport: a machine code, an HTTP status,
// a JSON-RPC code and a message safe to show the caller (never a stack, a SQL text or a secret).
// It is mapped to the wire exactly twice: `{"error":{"code","message","details","request_id"}}`
// for the dashboard and SDK APIs (`toResponse`, used by src/http/errors.ts) and a JSON-RPC error
// object for the tool server (`toRpc`, used by src/mcp/rpc.ts). OAuth endpoints keep their own
// RFC 6749 error form (src/oauth/errors.ts).
import { isDatabaseUnavailable } from "./db/unavailable.ts";
import { jsonResponse } from "./kit/json-response.ts";

export interface ErrorDetail {
  /** JSON Pointer into the request body or query, e.g. `/email`. */
  path: string;
  message: string;
}

/** JSON-RPC 2.0 and MCP error codes (docs/interface.md 7.1). */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  UNAUTHORIZED: -32001,
  FORBIDDEN: -32002,
} as const;

/** Why a tool call was refused (JSON-RPC `error.data.reason`, docs/interface.md 7.1 -32002). */
export type DenialReason = "flag" | "integration" | "agent" | "toggle" | "scope" | "destructive" | "customer" | "role" | "rate_limited";

export interface AppErrorOptions {
  /** The JSON-RPC code when the HTTP status alone does not decide it (see `rpcCodeOf`). */
  rpcCode?: number;
  /** Machine-readable reason of a refusal, sent as JSON-RPC `error.data.reason`. */
  reason?: DenialReason;
  /** The failure is temporary: JSON-RPC `error.data.retryable` and `retry_after` (seconds). */
  retryAfter?: number;
  /** JSON-RPC `error.data` a protocol error defines (2026-07-28 UnsupportedProtocolVersion: supported, requested). */
  rpcData?: Record<string, unknown>;
}

/**
 * The JSON-RPC code of an error, from its code and status (docs/interface.md 7.1: tool failures keep
 * their kind — unauthorized/forbidden -32002, validation -32602, not found -32601, else -32603).
 */
function rpcCodeOf(status: number, code: string): number {
  if (code === "validation_failed" || status === 400 || status === 422) return RPC.INVALID_PARAMS;
  if (status === 413 || status === 415) return RPC.INVALID_REQUEST; // a body the server will not read
  if (status === 401) return RPC.UNAUTHORIZED;
  if (status === 403 || status === 429) return RPC.FORBIDDEN;
  if (status === 404) return RPC.METHOD_NOT_FOUND;
  return RPC.INTERNAL_ERROR;
}

export class AppError extends Error {
  readonly rpcCode: number;
  readonly reason?: DenialReason;
  readonly retryAfter?: number;
  readonly rpcData?: Record<string, unknown>;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
    options: AppErrorOptions = {},
  ) {
    super(message);
    this.rpcCode = options.rpcCode ?? rpcCodeOf(status, code);
    this.reason = options.reason;
    this.retryAfter = options.retryAfter;
    this.rpcData = options.rpcData;
  }

  /** The wire form of the dashboard and SDK APIs. */
  toResponse(requestId: string): Response {
    const body = {
      error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}), request_id: requestId },
    };
    return jsonResponse(body, this.status, this.headers);
  }

  /** The JSON-RPC error object (docs/interface.md 7.1); `data.reason` names why a call was refused. */
  toRpc(): { code: number; message: string; data?: unknown } {
    if (this.retryAfter !== undefined) return { code: this.rpcCode, message: this.message, data: { retryable: true, retry_after: this.retryAfter } };
    if (this.rpcData) return { code: this.rpcCode, message: this.message, data: this.rpcData };
    return { code: this.rpcCode, message: this.message, ...(this.reason ? { data: { reason: this.reason } } : {}) };
  }

  static badRequest(message: string, details?: ErrorDetail[]) {
    return new AppError(400, "validation_failed", message, details);
  }
  /** A page cursor this service did not issue (src/db/keyset.ts). */
  static badCursor(path = "/cursor") {
    return AppError.badRequest(`${path.slice(1)} is not a cursor this service issued.`, [{ path, message: "is not a cursor this service issued" }]);
  }
  static unauthorized(message = "Sign in to continue.") {
    return new AppError(401, "unauthorized", message);
  }
  static forbidden(message: string, reason?: DenialReason, headers?: Record<string, string>) {
    return new AppError(403, "forbidden", message, undefined, headers, { reason });
  }
  static notFound(message = "Not found.") {
    return new AppError(404, "not_found", message);
  }
  static tooManyRequests(retryAfterSeconds: number, message = "Too many requests. Try again later.") {
    return new AppError(429, "rate_limited", message, undefined, { "retry-after": String(retryAfterSeconds) }, { reason: "rate_limited" });
  }
  /** A tool ran and failed for a reason of its own (a connector down, a custom action's 5xx): 502, -32603. */
  static toolFailed(message: string) {
    return new AppError(502, "tool_failed", message);
  }
  /** The database cannot be reached now (README "Faults and shutdown"): 503 with Retry-After, -32603 retryable. */
  static databaseUnavailable() {
    const seconds = DATABASE_RETRY_AFTER_SECONDS;
    return new AppError(
      503,
      "database_unavailable",
      `The database is unavailable. Try again in ${seconds} s.`,
      undefined,
      { "retry-after": String(seconds) },
      { retryAfter: seconds },
    );
  }
  /** A JSON-RPC envelope error: the body is not JSON (-32700) or not a valid request (-32600). */
  static rpcEnvelope(rpcCode: typeof RPC.PARSE_ERROR | typeof RPC.INVALID_REQUEST, message: string) {
    return new AppError(400, rpcCode === RPC.PARSE_ERROR ? "parse_error" : "invalid_request", message, undefined, undefined, { rpcCode });
  }
}

/** What a client is told to wait before retrying a request the database could not serve. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The one mapping of a thrown value to what the caller may see, used by every edge (HTTP, JSON-RPC,
 * a chat stream): an AppError as it is, a database that cannot be reached as
 * `databaseUnavailable`, anything else undefined (the edge logs it and answers its internal error).
 */
export function knownError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) return AppError.databaseUnavailable();
  return undefined;
}

/** The message of anything thrown, for logs and error texts (never a stack). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
