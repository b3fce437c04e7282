// Hostile JSON, refused at the door. `parseJsonBounded(text)` parses untrusted JSON text (every
// request body, the raw JSON-RPC and OAuth bodies). Before JSON.parse runs, one linear pass over
// the text, with an explicit stack of at most JSON_MAX_DEPTH frames (no recursion), refuses:
//   - nesting deeper than JSON_MAX_DEPTH (64) arrays/objects: anything that later walks the value
//     recursively (validators, the error mapper, JSON.stringify, PostgreSQL's jsonb) stays far from
//     its stack limit, and the cost of a body is linear in its size;
//   - C0 control characters (U+0000–U+001F) other than tab, LF and CR in any string, object keys
//     included, escaped (`\u0000`) or raw, and unpaired UTF-16 surrogates (`\ud800`): see
//     src/http/json-strings.ts;
//   - duplicate object keys (RFC 8259 section 4: names SHOULD be unique; parsers disagree on which
//     wins, so a duplicate is a smuggling shape, not data);
//   - the key `__proto__` (prototype poisoning through Object.assign / spread of parsed input);
//   - number literals that overflow a double (1e400 parses to Infinity, which JSON cannot hold).
// Syntax itself is JSON.parse's job; the result of a refusal is a JsonInputError (an AppError, 400
// invalid_json) whose `kind` lets a protocol map it (the tool server answers -32700 for "syntax"
// and -32600 for a refused shape; registration answers invalid_client_metadata).
import { AppError } from "../errors.ts";
import { CONTROL_MESSAGE, isRefusedControl } from "./json-strings.ts";

// What is stored, rather than read, is bounded by src/http/free-form.ts. These names are exported
// here as well for the callers that import them from this module (src/inbox/).

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
  if (strict && MAYBE_OVERFLOW.test(text) && hasNonFinite(value))
    throw new JsonInputError("number_range", "Numbers must fit a double (found one that overflows to infinity).");
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
