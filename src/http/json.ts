// Hostile JSON, refused at the door and at write time.
//
// 1. `parseJsonBounded(text)` parses untrusted JSON text (every request body, the raw JSON-RPC and
//    OAuth bodies). Before JSON.parse runs, one linear pass over the text, with an explicit stack of
//    at most JSON_MAX_DEPTH frames (no recursion), refuses:
//      - nesting deeper than JSON_MAX_DEPTH (64) arrays/objects: anything that later walks the value
//        recursively (validators, the error mapper, JSON.stringify, PostgreSQL's jsonb) stays far from
//        its stack limit, and the cost of a body is linear in its size;
//      - C0 control characters (U+0000–U+001F) other than tab, LF and CR in any string, object keys
//        included, escaped (`\u0000`) or raw: PostgreSQL refuses NUL in text and jsonb (a 500 before),
//        and the others have no business in names, e-mails, URIs or free text;
//      - unpaired UTF-16 surrogates (`\ud800`): PostgreSQL's jsonb refuses them, and they cannot be
//        encoded as UTF-8 anyway;
//      - duplicate object keys (RFC 8259 §4: names SHOULD be unique; parsers disagree on which wins,
//        so a duplicate is a smuggling shape, not data);
//      - the key `__proto__` (prototype poisoning through Object.assign / spread of parsed input);
//      - number literals that overflow a double (1e400 parses to Infinity, which JSON cannot hold).
//    Syntax itself is JSON.parse's job; the result of a refusal is a JsonInputError (an AppError,
//    400 invalid_json) whose `kind` lets a protocol map it (the tool server answers -32700 for
//    "syntax" and -32600 for a refused shape; registration answers invalid_client_metadata).
//
// 2. `checkFreeForm` / `assertFreeForm` / the TypeBox type `FreeForm(...)` bound what is STORED in a
//    free-form object (traits, custom_fields, context, properties, tool input schemas): a depth and
//    a serialized-size cap, with messages that name the limit. Because every stored free-form value
//    is bounded on write, every read of it is bounded too (even pretty-printed, see decisions.md).
import { Kind, type TSchema, Type, TypeRegistry } from "@sinclair/typebox";
import { GetErrorFunction, SetErrorFunction } from "@sinclair/typebox/errors";
import { AppError, type ErrorDetail } from "../errors.ts";

/** Deepest nesting of arrays/objects accepted in a request body: `[[1]]` has depth 2. */
export const JSON_MAX_DEPTH = 64;

export type JsonRefusal = "syntax" | "depth" | "control_character" | "lone_surrogate" | "duplicate_key" | "forbidden_key" | "number_range";

/** Untrusted JSON refused. Always 400 `invalid_json` in the shared error shape. */
export class JsonInputError extends AppError {
  constructor(
    readonly kind: JsonRefusal,
    message: string,
  ) {
    super(400, "invalid_json", message);
  }
}

/** True for the C0 control characters we refuse: U+0000–U+001F except tab, LF, CR. */
export function isRefusedControl(code: number): boolean {
  return code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d;
}

const REFUSED_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f]/;

/** The first refused control character in `text` as a description ("U+0000"), or null. Linear. */
export function findControlCharacter(text: string): string | null {
  const found = REFUSED_CONTROL.exec(text);
  return found ? `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}` : null;
}

/** True when `text` holds an unpaired UTF-16 surrogate. Linear. */
export function hasLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return true;
    } else if (code >= 0xdc00 && code <= 0xdfff) return true;
  }
  return false;
}

const CONTROL_MESSAGE = "Strings may not contain control characters other than tab, line feed and carriage return";

function hex4(text: string, at: number): number {
  if (at + 4 > text.length) return -1;
  const value = Number.parseInt(text.slice(at, at + 4), 16);
  return /^[0-9a-fA-F]{4}$/.test(text.slice(at, at + 4)) ? value : -1;
}

interface Frame {
  object: boolean;
  expectKey: boolean;
  keys: Set<string> | null;
}

/**
 * Parses untrusted JSON text with the bounds above. Throws JsonInputError; never recurses, and
 * takes time linear in `text.length`. `maxDepth` may be lowered by a caller, not raised past need.
 *
 * `relay: true` is for third-party answers we pass on (a custom action's partner API, a connected
 * MCP server, a model provider): only nesting and `__proto__` are refused there. Depth is what
 * hurts us — Bun's JSON.stringify of a value nested 100,000 levels blocks the process for over
 * ten seconds before it throws — while a NUL or a duplicate key in someone else's data is theirs.
 */
export function parseJsonBounded(text: string, options: { maxDepth?: number; relay?: boolean } = {}): unknown {
  const maxDepth = options.maxDepth ?? JSON_MAX_DEPTH;
  const strict = !options.relay;
  const stack: Frame[] = [];
  const length = text.length;
  // Sticky searches jump to the next character that matters (the engine's scan is much faster than
  // a loop over every character); each character is still looked at once, so time stays linear.
  const structural = /["{}[\],]/g;
  const inString = /["\\\x00-\x1f\ud800-\udfff]/g;
  let i = 0;
  scan: while (i < length) {
    structural.lastIndex = i;
    if (!structural.test(text)) break;
    i = structural.lastIndex - 1; // test() (no match object) leaves lastIndex just past the match
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // A string: jump from one escape, control or surrogate to the next, up to the closing quote.
      const start = i + 1;
      let escaped = false;
      i++;
      for (;;) {
        inString.lastIndex = i;
        if (!inString.test(text)) break scan; // unterminated: JSON.parse reports the syntax error
        i = inString.lastIndex - 1;
        const d = text.charCodeAt(i);
        if (d === 0x22) break;
        if (d === 0x5c /* \ */) {
          escaped = true;
          if (text.charCodeAt(i + 1) !== 0x75 /* u */) {
            i += 2;
            continue;
          }
          const unit = hex4(text, i + 2);
          if (!strict) {
            i += 2;
            continue;
          }
          if (unit >= 0 && isRefusedControl(unit)) throw controlError(unit);
          if (unit >= 0xd800 && unit <= 0xdbff) {
            // A high surrogate must be followed by an escaped low surrogate.
            const low = text.charCodeAt(i + 6) === 0x5c && text.charCodeAt(i + 7) === 0x75 ? hex4(text, i + 8) : -1;
            if (!(low >= 0xdc00 && low <= 0xdfff)) throw surrogateError();
            i += 12;
            continue;
          }
          if (unit >= 0xdc00 && unit <= 0xdfff) throw surrogateError();
          i += 6;
          continue;
        }
        if (strict && isRefusedControl(d)) throw controlError(d);
        if (strict && d >= 0xd800 && d <= 0xdfff) {
          const after = text.charCodeAt(i + 1);
          if (d <= 0xdbff && after >= 0xdc00 && after <= 0xdfff) {
            i += 2;
            continue;
          }
          throw surrogateError();
        }
        i++; // tab, LF, CR raw: JSON.parse refuses them as syntax
      }
      const top = stack[stack.length - 1];
      if (top?.object && top.expectKey) {
        top.expectKey = false;
        const raw = text.slice(start, i);
        let key = raw;
        if (escaped) {
          try {
            key = JSON.parse(`"${raw}"`) as string;
          } catch {
            break; // a bad escape: JSON.parse reports it below
          }
        }
        if (key === "__proto__") throw new JsonInputError("forbidden_key", 'The object key "__proto__" is not accepted.');
        if (!strict) {
          i++;
          continue;
        }
        top.keys ??= new Set();
        if (top.keys.has(key)) throw new JsonInputError("duplicate_key", `Duplicate object key ${JSON.stringify(key.slice(0, 64))}.`);
        top.keys.add(key);
      }
      i++;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (stack.length >= maxDepth) throw new JsonInputError("depth", `JSON nesting deeper than ${maxDepth} levels is not accepted.`);
      stack.push({ object: c === 0x7b, expectKey: c === 0x7b, keys: null });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else {
      // ","
      const top = stack[stack.length - 1];
      if (top?.object) top.expectKey = true;
    }
    i++;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new JsonInputError("syntax", "The request body is not valid JSON.");
  }
  // A literal such as 1e400 parses to Infinity, which is no JSON value (it would be stored as null).
  // Only texts that could hold one (a 3-digit exponent, or 309+ digits) are walked, iteratively.
  if (strict && MAYBE_OVERFLOW.test(text) && hasNonFinite(value)) throw new JsonInputError("number_range", "Numbers must fit a double (found one that overflows to infinity).");
  return value;
}

const MAYBE_OVERFLOW = /[eE][+]?0*[1-9]\d{2}|\d{309}/;

function hasNonFinite(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === "number" && !Number.isFinite(v)) return true;
    if (typeof v === "object" && v !== null) pending.push(...(Array.isArray(v) ? v : Object.values(v)));
  }
  return false;
}

function controlError(code: number): JsonInputError {
  return new JsonInputError("control_character", `${CONTROL_MESSAGE} (found U+${code.toString(16).toUpperCase().padStart(4, "0")}).`);
}

function surrogateError(): JsonInputError {
  return new JsonInputError("lone_surrogate", "Strings may not contain unpaired UTF-16 surrogates.");
}

// ---------------------------------------------------------------------------------------------
// Free-form values stored by the service.

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
if (!TypeRegistry.Has(FREE_FORM_KIND)) {
  TypeRegistry.Set<FreeFormLimits>(FREE_FORM_KIND, (schema, value) => isFreeFormObject(value) && checkFreeForm(value, schema) === null);
  // The validation message names the limit that failed (default TypeBox text: "Expected kind …").
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
