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
