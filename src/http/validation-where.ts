// Where a validation failure is: the query string, the path, the headers, the cookies or the body,
// so a 400 never says "the request body is invalid" for `?days=0`.
//
// Elysia (1.4) names the part for most failures (`ValidationError.type`). One kind it does not: a
// value that Elysia coerces from text (`t.Integer`/`t.Numeric`/booleans in a query, path or form)
// which decodes but then fails its own schema (`?days=0` against a minimum of 1). TypeBox reports
// that as a TransformDecodeError with the path, but Elysia rethrows only the inner error — type
// "property", path "", the decoded value and the failing schema. We find it again: the first field,
// in Elysia's order of validation, whose text reads as that value and fails that schema. Only the
// path, the query and the body are searched: the context's headers (and cookies) are every one the
// client sent, declared or not (no route declares a schema for them), so `x-anything: 0` would
// otherwise be named for `?days=0`.
import { Value } from "@sinclair/typebox/value";
import type { ValidationError } from "elysia";

export type RequestPart = "query" | "params" | "headers" | "cookie" | "body";
const PARTS: RequestPart[] = ["headers", "params", "query", "cookie", "body"];
/** The parts searched for a failure Elysia left unplaced, in its order of validation. */
const SEARCHED: RequestPart[] = ["params", "query", "body"];

export const PART_LABELS: Record<RequestPart, string> = {
  query: "The request query is invalid.",
  params: "The request path is invalid.",
  headers: "The request headers are invalid.",
  cookie: "The request cookies are invalid.",
  body: "The request body is invalid.",
};

/** How Elysia may have read a field's text before checking it. */
function readings(raw: unknown): unknown[] {
  if (typeof raw !== "string") return [raw];
  const out: unknown[] = [raw];
  if (raw.trim() !== "" && !Number.isNaN(Number(raw))) out.push(Number(raw));
  if (raw === "true" || raw === "false") out.push(raw === "true");
  return out;
}

function fails(schema: unknown, value: unknown): boolean {
  try {
    return !Value.Check(schema as Parameters<typeof Value.Check>[0], value);
  } catch {
    return false;
  }
}

/** The part and field of a failure Elysia reported without them; null when none fits. */
export function locateProperty(error: ValidationError, request: Partial<Record<RequestPart, unknown>>): { part: RequestPart; field: string } | null {
  const failing = error.value;
  const schema = (error.validator as { schema?: unknown } | undefined)?.schema ?? error.validator;
  for (const part of SEARCHED) {
    const fields = request[part];
    if (typeof fields !== "object" || fields === null || Array.isArray(fields)) continue;
    for (const [field, raw] of Object.entries(fields))
      if (readings(raw).some((value) => Object.is(value, failing) && fails(schema, value))) return { part, field };
  }
  return null;
}

/** The part a failure is in, and the field to prefix its details with when Elysia left it out. */
export function failurePart(error: ValidationError, request: Partial<Record<RequestPart, unknown>>): { part: RequestPart | null; field?: string } {
  if ((PARTS as string[]).includes(error.type)) return { part: error.type as RequestPart };
  if (error.type !== "property") return { part: null };
  const found = locateProperty(error, request);
  return found ? { part: found.part, field: found.field } : { part: null };
}
