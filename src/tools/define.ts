// A built-in tool declared once: its input is a TypeBox schema, from which follow both what
// tools/list carries (plain JSON Schema) and the type of its handler's arguments (`Static<>`), as
// the MCP SDK's `registerTool` derives a handler's types from the input it declares. The runtime
// validates every call's arguments against that same schema (src/tools/validate.ts, Ajv) before
// the handler runs, so the types hold; a bad argument is refused there, -32602, as before.
//
// Annotations come with the defaults of a built-in tool, so a tool states only where it differs:
// it stays inside the service (openWorld false), reaches no customer (destructive false), may
// write (readOnly false); a read-only tool is idempotent, a writing one is not unless it says so.
import { type SchemaOptions, type Static, type TObject, type TProperties, type TSchema, Type } from "@sinclair/typebox";
import type { FeatureFlag } from "../kit/flags.ts";
import type { Scope } from "../oauth/scopes.ts";
import type { JsonSchemaObject, ToolContext, ToolDefinition, ToolResult, ToolSource } from "./types.ts";

export interface ToolSpec<I extends TObject> {
  name: string;
  description: string;
  /** A name for people: the annotation `title` (and the tool's `title` from 2025-06-18). */
  title: string;
  input: I;
  /** `outputSchema` (2025-06-18+): the JSON Schema its results' `structuredContent` follows. */
  outputSchema?: JsonSchemaObject;
  scope: Scope;
  source: ToolSource;
  /** readOnlyHint: changes nothing anywhere. Default false. */
  readOnly?: boolean;
  /** destructiveHint: changes state outside the service (a message to a customer). Default false. */
  destructive?: boolean;
  /** idempotentHint: calling again with the same arguments changes nothing more. Default: readOnly. */
  idempotent?: boolean;
  /** openWorldHint: reaches people or systems outside the service. Default false. */
  openWorld?: boolean;
  /** Whether an agent has it on before anyone toggles it. Default true. */
  defaultEnabled?: boolean;
  requiresFlag?: FeatureFlag;
  execute(ctx: ToolContext, args: Static<I>): Promise<ToolResult>;
}

export function defineTool<I extends TObject>(spec: ToolSpec<I>): ToolDefinition {
  const { input, execute, readOnly = false, destructive = false, idempotent = readOnly, openWorld = false, defaultEnabled = true, ...rest } = spec;
  return {
    ...rest,
    // Plain JSON: what tools/list and the validator read, without TypeBox's symbol keys.
    inputSchema: JSON.parse(JSON.stringify(input)) as JsonSchemaObject,
    destructive,
    readOnly,
    idempotent,
    openWorld,
    defaultEnabled,
    // The one place the arguments' type is asserted: the runtime has just validated them against `input`.
    execute: (ctx, validated) => execute(ctx, validated as Static<I>),
  };
}

/** These keys first, in this order, then the rest as given: the order tools/list has always written schemas in. */
const FIRST = ["type", "anyOf", "items", "properties", "required"];

function ordered<T extends TSchema>(schema: T): T {
  const from = schema as unknown as Record<PropertyKey, unknown>;
  const out: Record<PropertyKey, unknown> = {};
  for (const key of FIRST) if (key in from) out[key] = from[key];
  for (const key of Reflect.ownKeys(from)) if (!(key in out)) out[key] = from[key];
  return out as unknown as T;
}

/**
 * TypeBox's builders for tool arguments, writing JSON Schema as tools/list carries it (`type`
 * first; a string choice as `{ type: "string", enum }`, where TypeBox would list `const`s).
 */
export const Arg = {
  string: (options?: Parameters<typeof Type.String>[0]) => ordered(Type.String(options)),
  integer: (options?: Parameters<typeof Type.Integer>[0]) => ordered(Type.Integer(options)),
  boolean: (options?: Parameters<typeof Type.Boolean>[0]) => ordered(Type.Boolean(options)),
  object: <P extends TProperties>(properties: P, options?: Parameters<typeof Type.Object>[1]) => ordered(Type.Object(properties, options)),
  array: <T extends TSchema>(items: T, options?: Parameters<typeof Type.Array>[1]) => ordered(Type.Array(items, options)),
  /** The schema or null, as `anyOf`. */
  nullable: <T extends TSchema>(schema: T, options?: SchemaOptions) => ordered(Type.Union([schema, Type.Null()], options)),
  /** One of these strings: `{ type: "string", enum }`. */
  choice: <const V extends readonly string[]>(values: V, options?: SchemaOptions) => Type.Unsafe<V[number]>({ type: "string", enum: [...values], ...options }),
  /** A schema TypeBox would write otherwise (`type: ["string", "null"]`, an open object), typed by hand. */
  json: <T>(schema: Record<string, unknown>) => Type.Unsafe<T>(schema),
  optional: Type.Optional,
};
