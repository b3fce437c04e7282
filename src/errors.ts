// The one error type feature code throws. Each transport maps it to its wire form: dashboard and
// SDK APIs to `{"error":{"code","message","details"}}` (src/http/errors.ts); the tool server and
// the OAuth endpoints bring their own protocol errors.
export interface ErrorDetail {
  /** JSON Pointer into the request body or query, e.g. `/email`. */
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }

  /** The wire form. Dashboard and SDK APIs use this one; protocol errors (OAuth, JSON-RPC) override it. */
  toResponse(requestId: string): Response {
    const body = {
      error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}), request_id: requestId },
    };
    return new Response(JSON.stringify(body), {
      status: this.status,
      headers: { "content-type": "application/json; charset=utf-8", ...this.headers },
    });
  }

  static badRequest(message: string, details?: ErrorDetail[]) {
    return new AppError(400, "validation_failed", message, details);
  }
  static unauthorized(message = "Sign in to continue.") {
    return new AppError(401, "unauthorized", message);
  }
  static forbidden(message: string) {
    return new AppError(403, "forbidden", message);
  }
  static notFound(message = "Not found.") {
    return new AppError(404, "not_found", message);
  }
  static tooManyRequests(retryAfterSeconds: number, message = "Too many requests. Try again later.") {
    return new AppError(429, "rate_limited", message, undefined, { "retry-after": String(retryAfterSeconds) });
  }
}

/** The message of anything thrown, for logs and error texts (never a stack). */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
