// Tool arguments are validated against the tool's JSON Schema before the tool runs. Ajv is the
// standard JSON Schema validator (also what the MCP SDK uses); compiled validators are cached by
// schema text, since connector schemas change only on discovery.
import Ajv, { type ValidateFunction } from "ajv";
import type { JsonSchemaObject } from "./types.ts";

const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
const cache = new Map<string, ValidateFunction>();
const CACHE_MAX = 2000;

function compiled(schema: JsonSchemaObject): ValidateFunction {
  const key = JSON.stringify(schema);
  let validate = cache.get(key);
  if (!validate) {
    // `$schema` names a meta-schema (draft-07, 2020-12, …) Ajv may not have loaded; the keywords
    // tool schemas use are the same across drafts, so it is ignored rather than refused.
    const { $schema: _ignored, ...rest } = schema;
    validate = ajv.compile(rest);
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(key, validate);
  }
  return validate;
}

/** Null when valid; otherwise the failing JSON path and why, e.g. `/limit: must be <= 20`. */
export function argumentProblem(schema: JsonSchemaObject, args: unknown): string | null {
  let validate: ValidateFunction;
  try {
    validate = compiled(schema);
  } catch {
    return "the tool's input schema is invalid";
  }
  if (validate(args)) return null;
  const error = validate.errors?.[0];
  if (!error) return "invalid arguments";
  const missing = error.keyword === "required" ? `/${(error.params as { missingProperty: string }).missingProperty}` : "";
  const extra = error.keyword === "additionalProperties" ? `/${(error.params as { additionalProperty: string }).additionalProperty}` : "";
  return `${error.instancePath + missing + extra || "/"}: ${error.message ?? "is invalid"}`;
}
