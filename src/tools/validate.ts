// Tool arguments are validated against the tool's JSON Schema before the tool runs. Ajv is the
// standard JSON Schema validator (also what the MCP SDK uses). Compiled validators are cached by
// schema text, since connector schemas change only on discovery; the cache (and the Ajv instance,
// which keeps its own registry of compiled schemas) lives in a validator built once per Deps.
import Ajv, { type ValidateFunction } from "ajv";
import type { JsonSchemaObject } from "./types.ts";

const CACHE_MAX = 2000;
const INVALID_SCHEMA = "the tool's input schema is invalid";

export interface ArgumentValidator {
  /** Null when valid; otherwise the failing JSON path and why, e.g. `/limit: must be <= 20`. */
  problem(schema: JsonSchemaObject, args: unknown): string | null;
}

function newAjv() {
  return new Ajv({ strict: false, allErrors: false, validateFormats: false });
}

/**
 * `$schema` names a meta-schema (draft-07, 2020-12, …) Ajv may not have loaded; the keywords tool schemas use are the same across drafts, so it is
 * ignored rather than refused.
 */
function withoutMetaSchema(schema: JsonSchemaObject) {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

function describe(validate: ValidateFunction): string {
  const error = validate.errors?.[0];
  if (!error) return "invalid arguments";
  const missing = error.keyword === "required" ? `/${(error.params as { missingProperty: string }).missingProperty}` : "";
  const extra = error.keyword === "additionalProperties" ? `/${(error.params as { additionalProperty: string }).additionalProperty}` : "";
  return `${error.instancePath + missing + extra || "/"}: ${error.message ?? "is invalid"}`;
}

export function createArgumentValidator(): ArgumentValidator {
  let ajv = newAjv();
  const cache = new Map<string, ValidateFunction>();

  function compiled(schema: JsonSchemaObject): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = cache.get(key);
    if (!validate) {
      if (cache.size >= CACHE_MAX) {
        // Ajv keeps every schema it compiled; starting over bounds both caches together.
        cache.clear();
        ajv = newAjv();
      }
      validate = ajv.compile(withoutMetaSchema(schema));
      cache.set(key, validate);
    }
    return validate;
  }

  return {
    problem(schema, args) {
      let validate: ValidateFunction;
      try {
        validate = compiled(schema);
      } catch {
        return INVALID_SCHEMA;
      }
      return validate(args) ? null : describe(validate);
    },
  };
}

/** Whether Ajv can compile a schema at all (checked when a custom action is saved). Uncached. */
export function schemaProblem(schema: JsonSchemaObject): string | null {
  try {
    newAjv().compile(withoutMetaSchema(schema));
    return null;
  } catch {
    return INVALID_SCHEMA;
  }
}
