// What our MCP client adds to speak 2026-07-28 (stateless) to a connector's server: the request's
// `_meta` (protocol version, client info, client capabilities), the mirrored headers
// (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*` from a tool's `x-mcp-header` parameters) with their
// value encoding, and how a refusal tells a modern server from a legacy one. Specification
// 2026-07-28: basic/transports/streamable-http.mdx ("Request Metadata", "Backward Compatibility")
// and basic/versioning.mdx ("Protocol Version Negotiation").

import { isKnownProtocolVersion, KNOWN_PROTOCOL_VERSIONS } from "../kit/mcp.ts";
import { McpClientError } from "./mcp-wire.ts";

/** The stateless revision we speak; the ones negotiated by `initialize` are in src/kit/mcp.ts. */
export const MODERN_VERSION = "2026-07-28";
export const META_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";

export const HEADER_MISMATCH = -32020;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** A refusal carrying one of these comes from a modern server: retry or correct, never fall back to initialize. */
export const MODERN_ERRORS: ReadonlySet<number> = new Set([HEADER_MISMATCH, MISSING_REQUIRED_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION]);

/** The request's params with our `_meta` merged over the caller's (e.g. the customer binding). */
export function withModernMeta(params: Record<string, unknown> | undefined, clientInfo: Record<string, unknown>): Record<string, unknown> {
  const given = params?._meta;
  const meta = typeof given === "object" && given !== null && !Array.isArray(given) ? (given as Record<string, unknown>) : {};
  return { ...params, _meta: { ...meta, [META_VERSION]: MODERN_VERSION, [META_CLIENT_INFO]: clientInfo, [META_CLIENT_CAPABILITIES]: {} } };
}

const SENTINEL = /^=\?base64\?.*\?=$/s;

/**
 * "Value Encoding": plain when it is visible ASCII (inner spaces allowed, empty too; a tab is a control character) and not sentinel-shaped, else
 * `=?base64?…?=` of its UTF-8.
 */
export function headerSafe(value: string): string {
  const plain = /^([\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?)?$/.test(value) && !SENTINEL.test(value);
  return plain ? value : `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/** One `x-mcp-header` parameter: the chain of `properties` keys to it, and its header name part. */
export interface HeaderParam {
  path: string[];
  name: string;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_TYPES = new Set(["string", "integer", "boolean"]);

function countMarks(value: unknown, depth = 0): number {
  if (depth > 64 || typeof value !== "object" || value === null) return 0;
  let n = 0;
  for (const [key, inner] of Object.entries(value)) n += (key === "x-mcp-header" ? 1 : 0) + countMarks(inner, depth + 1);
  return n;
}

/**
 * A tool's `x-mcp-header` parameters, or why the tool definition is invalid ("Schema Extension":
 * a non-empty token, unique case-insensitively, on a string, integer or boolean property reached
 * only through `properties`). A client on Streamable HTTP must leave such a tool out of its list.
 */
export function headerParams(inputSchema: Record<string, unknown>): { params: HeaderParam[] } | { invalid: string } {
  const params: HeaderParam[] = [];
  const walk = (schema: Record<string, unknown>, path: string[], depth: number) => {
    const properties = schema.properties;
    if (depth > 32 || typeof properties !== "object" || properties === null) return;
    for (const [key, inner] of Object.entries(properties as Record<string, unknown>)) {
      if (typeof inner !== "object" || inner === null) continue;
      const property = inner as Record<string, unknown>;
      if ("x-mcp-header" in property) params.push({ path: [...path, key], name: property["x-mcp-header"] as string });
      walk(property, [...path, key], depth + 1);
    }
  };
  walk(inputSchema, [], 0);
  if (countMarks(inputSchema) !== params.length) return { invalid: "an x-mcp-header is not on a property reached through properties alone" };
  const seen = new Set<string>();
  for (const param of params) {
    const property = param.path.reduce<Record<string, unknown>>((s, key) => (s.properties as Record<string, Record<string, unknown>>)[key]!, inputSchema);
    if (typeof param.name !== "string" || !TOKEN.test(param.name))
      return { invalid: `x-mcp-header of ${param.path.join(".")} is not an HTTP field-name token` };
    if (seen.has(param.name.toLowerCase())) return { invalid: `x-mcp-header ${param.name} is used twice` };
    seen.add(param.name.toLowerCase());
    if (typeof property.type !== "string" || !HEADER_TYPES.has(property.type))
      return { invalid: `x-mcp-header ${param.name} is on a property that is not a string, integer or boolean` };
  }
  return { params };
}

/** The `Mcp-Param-*` headers of one call: a value present at the parameter's path, converted and encoded; absent or null values send nothing. */
export function paramHeaders(params: HeaderParam[], args: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const param of params) {
    let value: unknown = args;
    for (const key of param.path)
      value = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
    let text: string | undefined;
    if (typeof value === "string") text = value;
    else if (typeof value === "boolean") text = String(value);
    else if (typeof value === "number" && Number.isSafeInteger(value)) text = String(value);
    if (text !== undefined) headers[`mcp-param-${param.name.toLowerCase()}`] = headerSafe(text);
  }
  return headers;
}

/** The mirrored headers of a modern request: Mcp-Method always, Mcp-Name where the method names something. */
export function modernHeaders(method: string, params: Record<string, unknown> | undefined): Record<string, string> {
  const headers: Record<string, string> = { "mcp-protocol-version": MODERN_VERSION, "mcp-method": method };
  const named = method === "resources/read" ? params?.uri : method === "tools/call" || method === "prompts/get" ? params?.name : undefined;
  if (typeof named === "string") headers["mcp-name"] = headerSafe(named);
  return headers;
}

const record = (value: unknown) => (typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined);

const NOT_ABOUT_ERA = new Set([408, 413, 429, 431]);

/**
 * What a refused request says about the server's era (2026-07-28 versioning, "Backward
 * Compatibility"): `legacy` (a 4xx, or for the probe a JSON-RPC error, that is no modern error:
 * fall back to initialize), the versions an UnsupportedProtocolVersion error names, or undefined
 * when the failure is not about the era at all.
 */
export function eraOf(error: unknown, probe: boolean): "legacy" | string[] | undefined {
  if (!(error instanceof McpClientError)) return undefined;
  const { status, rpcCode, rpcData } = error.details;
  if (rpcCode === UNSUPPORTED_PROTOCOL_VERSION && (error.kind === "http" || error.kind === "rpc")) {
    const supported = record(rpcData)?.supported;
    return Array.isArray(supported) ? supported.filter((v): v is string => typeof v === "string") : [];
  }
  if (rpcCode !== undefined && MODERN_ERRORS.has(rpcCode)) return undefined;
  // A rate limit, a request too large or too slow is about this request, never the server's era:
  // falling back would send it again at once and hide why it was refused.
  if (error.kind === "http" && status !== undefined && status >= 400 && status < 500 && !NOT_ABOUT_ERA.has(status)) return "legacy";
  if (error.kind === "rpc" && probe) return "legacy";
  // An answer to the probe that is no JSON-RPC answer at all (not JSON, nested past our bound): a
  // legacy server answering an unknown method its own way. initialize then decides, under the
  // same bounds (the hostile-upstream test's server answers every method but three with one shape).
  if (error.kind === "protocol" && probe) return "legacy";
  return undefined;
}

/** The newest revision of `supported` we speak: the modern one, else the newest handshake revision. */
export function choose(supported: string[]): string {
  if (supported.includes(MODERN_VERSION)) return MODERN_VERSION;
  const known = supported.filter(isKnownProtocolVersion).sort().at(-1);
  if (!known)
    throw new McpClientError(
      "protocol",
      `the server speaks only ${JSON.stringify(supported.slice(0, 10))}, none of which we speak (${[MODERN_VERSION, ...KNOWN_PROTOCOL_VERSIONS].join(", ")})`,
    );
  return known;
}
