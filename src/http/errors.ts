// The JSON error shape of the dashboard and SDK APIs:
//   {"error":{"code":"validation_failed","message":"…","details":[{"path":"/message","message":"…"}],"request_id":"…"}}
// Validation failures are 400 (Elysia's default is 422), unknown routes 404, anything unexpected a
// 500 that carries the request id and nothing of the cause (which goes to the log instead). A
// database that cannot be reached is 503 `database_unavailable` with Retry-After (src/errors.ts
// knownError), so a load balancer or the widget can retry.
import { Elysia, ValidationError } from "elysia";
import { AppError, knownError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { installFreeFormKind } from "./free-form.ts";
import { requestMeta } from "./request-meta.ts";
import { validationDetails } from "./validation-details.ts";
import { failurePart, PART_LABELS, type RequestPart } from "./validation-where.ts";

export function errorResponse(error: AppError, requestId: string): Response {
  return error.toResponse(requestId);
}

/**
 * The error mapping every app is built with. Building it also installs the `FreeForm` kind in
 * TypeBox (src/http/free-form.ts), so a route schema's free-form field is checked, and its failure
 * worded, by our rules before any route is registered.
 */
export function errorHandling(log: Logger) {
  installFreeFormKind();
  return new Elysia({ name: "error-handling" }).onError({ as: "global" }, (context) => {
    const { code, error, request } = context;
    const { id } = requestMeta(request);
    const known = knownError(error);
    if (known) return errorResponse(known, id);
    // Elysia wraps whatever our body parser (src/http/body.ts) throws in a ParseError.
    const cause = (error as { cause?: unknown }).cause;
    if (code === "PARSE" && cause instanceof AppError) return errorResponse(cause, id);
    if (code === "VALIDATION") {
      // The message names the part of the request that failed (src/http/validation-where.ts).
      const failure = error as ValidationError;
      const { part, field } = failurePart(failure, context as unknown as Partial<Record<RequestPart, unknown>>);
      const details = validationDetails(failure).map((d) => (field ? { ...d, path: `/${field}${d.path === "/" ? "" : d.path}` } : d));
      return errorResponse(AppError.badRequest(part ? PART_LABELS[part] : "The request is invalid.", details), id);
    }
    if (code === "NOT_FOUND") return errorResponse(AppError.notFound("No such endpoint."), id);
    if (code === "PARSE") return errorResponse(new AppError(400, "invalid_body", "The request body could not be parsed."), id);
    // The logger writes the error's class (and SQLSTATE), never its stack or a statement's parameters.
    log.error("unhandled error", { request_id: id, error });
    return errorResponse(new AppError(500, "internal_error", "Something went wrong on our side. Quote the request id if you report it."), id);
  });
}
