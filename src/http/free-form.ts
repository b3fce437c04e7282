// Free-form values stored by the service (traits, custom_fields, context, properties, tool input
// schemas): `checkFreeForm` / `assertFreeForm` / the TypeBox type `FreeForm(...)` bound what is
// STORED in such an object — a depth and a serialized-size cap, with messages that name the limit.
// Because every stored free-form value is bounded on write, every read of it is bounded too (even
// pretty-printed: docs/decisions.md). Request bodies are bounded before this, on the way in, by
// src/http/json.ts.
//
// Nothing happens when this module is loaded. The `FreeForm` kind is registered with TypeBox, and
// TypeBox's error function taught to name the limit, by installFreeFormKind(), which the HTTP error
// handling (src/http/errors.ts errorHandling) calls when an app is built — TypeBox keeps both in
// process-wide registries, so that is a change to global state made once, on purpose, not a side
// effect of an import.
import { Kind, type TSchema, Type, TypeRegistry } from "@sinclair/typebox";
import { GetErrorFunction, SetErrorFunction } from "@sinclair/typebox/errors";
import { AppError, type ErrorDetail } from "../errors.ts";
import { CONTROL_MESSAGE, findControlCharacter, hasLoneSurrogate } from "./json-strings.ts";

export interface FreeFormLimits {
  /** Deepest nesting of arrays/objects: `{"a":{"b":1}}` has depth 2. */
  maxDepth: number;
  /** Largest JSON.stringify(value) size, in UTF-8 bytes. */
  maxBytes: number;
}

/** Traits, custom fields, context, properties, metadata: depth 8, 16 KiB serialized. */
export const FREE_FORM_LIMITS: Readonly<FreeFormLimits> = { maxDepth: 8, maxBytes: 16 * 1024 };
/** JSON Schemas supplied by a tenant (custom action input_schema): depth 32, 32 KiB serialized. */
export const SCHEMA_LIMITS: Readonly<FreeFormLimits> = { maxDepth: 32, maxBytes: 32 * 1024 };

/**
 * Why `value` may not be stored, naming the limit, or null when it may. Iterative (an explicit
 * stack), so an arbitrarily deep value costs O(maxDepth × width) before it is refused, never a stack
 * overflow. Also refuses control characters and lone surrogates in keys and strings (PostgreSQL's
 * jsonb refuses NUL and lone surrogates), and non-JSON values (functions, symbols, bigints).
 */
export function checkFreeForm(value: unknown, limits: Partial<FreeFormLimits> = {}): string | null {
  const { maxDepth, maxBytes } = { ...FREE_FORM_LIMITS, ...limits };
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  const badString = (s: string) => findControlCharacter(s) !== null || hasLoneSurrogate(s);
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (typeof v === "string") {
      if (badString(v)) return `${CONTROL_MESSAGE}, nor unpaired surrogates.`;
      continue;
    }
    if (v === null || typeof v === "number" || typeof v === "boolean" || v === undefined) continue;
    if (typeof v !== "object") return `Only JSON values are accepted (found a ${typeof v}).`;
    if (depth + 1 > maxDepth) return `Nesting deeper than ${maxDepth} levels is not accepted.`;
    if (Array.isArray(v)) {
      for (const item of v) stack.push({ value: item, depth: depth + 1 });
    } else {
      for (const [key, item] of Object.entries(v)) {
        if (badString(key)) return `Keys: ${CONTROL_MESSAGE.toLowerCase()}, nor unpaired surrogates.`;
        stack.push({ value: item, depth: depth + 1 });
      }
    }
  }
  // Depth is bounded now, so JSON.stringify cannot overflow the stack.
  const serialized = JSON.stringify(value);
  if (serialized !== undefined && Buffer.byteLength(serialized, "utf8") > maxBytes) {
    return `Larger than ${maxBytes} bytes as JSON is not accepted.`;
  }
  return null;
}

/**
 * Throws a 400 validation_failed (JSON-RPC -32602) naming the limit unless `value` may be stored.
 * `path` is the JSON Pointer of the field in the request, e.g. "/traits".
 */
export function assertFreeForm(value: unknown, path: string, limits: Partial<FreeFormLimits> = {}): void {
  const problem = checkFreeForm(value, limits);
  if (problem === null) return;
  const detail: ErrorDetail = { path, message: problem };
  throw AppError.badRequest(`${path.replace(/^\//, "") || "The value"}: ${problem}`, [detail]);
}

// TypeBox: `FreeForm()` is an object of any keys (t.Record(t.String(), t.Unknown())) that also
// passes checkFreeForm; Elysia's validator reports its failure as 400 validation_failed with the
// limit in the message. `FreeForm(SCHEMA_LIMITS)` for schemas.
const FREE_FORM_KIND = "FreeFormObject";
const isFreeFormObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Registers the `FreeForm` kind with TypeBox (so a route schema using it can be checked) and wraps
 * TypeBox's error function so its failure names the limit (TypeBox's own text would be "Expected
 * kind …"); every other schema keeps the message it had. Call before any route using FreeForm is
 * checked; later calls do nothing, so each app built in one process may call it.
 */
export function installFreeFormKind(): void {
  if (TypeRegistry.Has(FREE_FORM_KIND)) return;
  TypeRegistry.Set<FreeFormLimits>(FREE_FORM_KIND, (schema, value) => isFreeFormObject(value) && checkFreeForm(value, schema) === null);
  const fallback = GetErrorFunction();
  SetErrorFunction((parameter) => {
    if (parameter.schema[Kind] !== FREE_FORM_KIND) return fallback(parameter);
    if (!isFreeFormObject(parameter.value)) return "Expected a JSON object.";
    return checkFreeForm(parameter.value, parameter.schema as unknown as FreeFormLimits) ?? "Expected a bounded JSON object.";
  });
}

/** A free-form object field bounded by `limits` (default FREE_FORM_LIMITS). */
export function FreeForm(limits: Partial<FreeFormLimits> = {}, options: { description?: string } = {}): TSchema & { static: Record<string, unknown> } {
  const { maxDepth, maxBytes } = { ...FREE_FORM_LIMITS, ...limits };
  return Type.Unsafe<Record<string, unknown>>({
    [Kind]: FREE_FORM_KIND,
    // No `type`: Elysia's normaliser (exact-mirror) would rebuild an "object" and turn an array
    // into {"0":…} before the check ran; without one it passes the value through untouched.
    maxDepth,
    maxBytes,
    description: options.description ?? `A JSON object, at most ${maxDepth} levels deep and ${maxBytes} bytes as JSON.`,
  }) as TSchema & { static: Record<string, unknown> };
}
