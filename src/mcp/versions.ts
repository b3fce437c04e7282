// The MCP revisions the tool server speaks (docs/interface.md 4.2, A.3) and what tells them apart.
// Up to 2025-11-25 a client negotiates in `initialize` and then names the version in the
// MCP-Protocol-Version header (absent: 2025-03-26). 2026-07-28 has no handshake: every request
// carries `_meta` `io.modelcontextprotocol/protocolVersion`, mirrored in that header, with the
// method and tool name mirrored in `Mcp-Method` / `Mcp-Name`.
import { AppError, RPC } from "../errors.ts";

/** Negotiable in `initialize`, newest first. */
export const HANDSHAKE_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
/** Served statelessly, without `initialize`. */
export const STATELESS_VERSIONS = ["2026-07-28"] as const;
/** What `server/discover` and an UnsupportedProtocolVersion error list. */
export const SUPPORTED_VERSIONS: readonly string[] = [...STATELESS_VERSIONS, ...HANDSHAKE_VERSIONS];

export const META_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
/** 2026-07-28 error codes (reserved range -32020 to -32099). */
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** initialize: the client's version when we speak it, else our latest (each revision's lifecycle rules). */
export function negotiate(proposed: unknown): string {
  return typeof proposed === "string" && (HANDSHAKE_VERSIONS as readonly string[]).includes(proposed) ? proposed : HANDSHAKE_VERSIONS[0];
}

/** Revisions are dates, so they compare as strings. */
export const atLeast = (version: string, revision: string) => version >= revision;

/** A request's `_meta` version, when it carries a string one. */
export function metaVersion(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined;
  const params = (message as Record<string, unknown>).params;
  if (typeof params !== "object" || params === null) return undefined;
  const meta = (params as Record<string, unknown>)._meta;
  if (typeof meta !== "object" || meta === null) return undefined;
  const version = (meta as Record<string, unknown>)[META_VERSION];
  return typeof version === "string" ? version : undefined;
}

/** `=?base64?…?=` (2026-07-28 Streamable HTTP, "Value Encoding") decoded; a plain value as is. */
export function headerValue(raw: string | null): string | null {
  if (raw === null) return null;
  const match = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(raw);
  if (!match) return raw;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(match[1]!), (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

const badMeta = (message: string) =>
  new AppError(400, "validation_failed", `Invalid params: ${message}`, undefined, undefined, { rpcCode: RPC.INVALID_PARAMS });
const mismatch = (message: string) => new AppError(400, "header_mismatch", `Header mismatch: ${message}`, undefined, undefined, { rpcCode: HEADER_MISMATCH });

/**
 * 2026-07-28 "Server Validation": the body is one request whose `_meta` version is one we serve,
 * equal to MCP-Protocol-Version, and whose method (and tool name) equal Mcp-Method (Mcp-Name).
 * Returns the refusal, or undefined when the request may run.
 */
export function checkStatelessRequest(message: unknown, headers: Headers): AppError | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message))
    return AppError.rpcEnvelope(RPC.INVALID_REQUEST, "Invalid Request: 2026-07-28 has no batches; send one JSON-RPC message per POST.");
  const requested = metaVersion(message);
  const header = headers.get("mcp-protocol-version");
  // RequestMetaObject: the version and the client's capabilities are required in every request's _meta.
  if (requested === undefined) return badMeta(`params._meta must carry ${META_VERSION}.`);
  const meta = ((message as Record<string, unknown>).params as Record<string, unknown>)._meta as Record<string, unknown>;
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (typeof capabilities !== "object" || capabilities === null || Array.isArray(capabilities))
    return badMeta(`params._meta must carry ${META_CLIENT_CAPABILITIES} (an object).`);
  if (header !== requested)
    return mismatch(`MCP-Protocol-Version ${header === null ? "is missing" : `'${header}'`} does not match ${META_VERSION} '${requested}'.`);
  if (!(STATELESS_VERSIONS as readonly string[]).includes(requested))
    return new AppError(400, "unsupported_protocol_version", "Unsupported protocol version", undefined, undefined, {
      rpcCode: UNSUPPORTED_PROTOCOL_VERSION,
      rpcData: { supported: [...SUPPORTED_VERSIONS], requested },
    });
  const m = message as Record<string, unknown>;
  const method = headers.get("mcp-method");
  if (method === null) return mismatch("the Mcp-Method header is required.");
  if (method !== m.method) return mismatch(`Mcp-Method '${method}' does not match the body's method.`);
  if (m.method === "tools/call") {
    const name = (m.params as Record<string, unknown> | undefined)?.name;
    const given = headerValue(headers.get("mcp-name"));
    if (given === null) return mismatch("the Mcp-Name header is required for tools/call (Base64 sentinel values must decode as UTF-8).");
    if (given !== name) return mismatch("Mcp-Name does not match params.name.");
  }
  return undefined;
}
