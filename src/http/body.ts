// Request bodies: read with a size cap (413 past it, whether or not Content-Length was sent) and
// parsed by media type. One parser for every route; Elysia's own parsers never run. JSON goes
// through parseJsonBounded (src/http/json.ts: depth, control characters, duplicate keys); form
// and text bodies are refused when they carry control characters other than tab, CR and LF.
import { AppError } from "../errors.ts";
import { readBodyCapped } from "../net/capped-body.ts";
import { parseJsonBounded } from "./json.ts";
import { findControlCharacter } from "./json-strings.ts";

/**
 * Body size caps by path prefix, longest match first. Documented in the README. A `raw` route
 * receives the unparsed text (or why it could not be read) as a RawBody, because it answers in
 * its own protocol's error format (the JSON-RPC tool server, the OAuth endpoints).
 */
export const BODY_LIMITS: { prefix: string; bytes: number; raw?: true; exact?: true; deferred?: true; binary?: true; configured?: true }[] = [
  { prefix: "/api/", bytes: 64 * 1024 },
  { prefix: "/api/mcp", bytes: 1024 * 1024, raw: true, exact: true },
  // OAuth endpoints answer RFC 6749 / RFC 7591 errors even for bodies that do not parse.
  { prefix: "/api/mcp/oauth/register", bytes: 64 * 1024, raw: true, exact: true },
  { prefix: "/api/mcp/oauth/token", bytes: 64 * 1024, raw: true, exact: true },
  { prefix: "/api/mcp/oauth/revoke", bytes: 64 * 1024, raw: true, exact: true },
  { prefix: "/api/docs", bytes: 1024 * 1024 },
  // A question set: up to 500 questions of up to 4,000 characters a field (src/agents/eval-runs.ts).
  // Never read here: the route checks the member first, then reads it (readJsonAfterAuth below).
  { prefix: "/api/eval/runs", bytes: 8 * 1024 * 1024, exact: true, deferred: true },
  // Uploaded files, base64 in JSON: 20 files of up to 10 MiB would not fit; 40 MiB of base64 is 30 MiB of files.
  // Uploaded files, as JSON: never read here. The route checks the member first, then reads the
  // body itself with this cap (readJsonAfterAuth below).
  { prefix: "/api/knowledge/files", bytes: 40 * 1024 * 1024, exact: true, deferred: true, configured: true },
  // Chat messages carry up to four images as data: URLs (src/conversations/input.ts CHAT_LIMITS).
  { prefix: "/api/sdk/chat", bytes: 5 * 1024 * 1024 },
  // Dashboard forms: an agent's instructions (20,000 characters) and a knowledge-base document
  // (200,000) arrive urlencoded, where a non-ASCII character takes up to 9 bytes.
  // A relayed email: never read here. The route checks that the relay is on and its secret first,
  // then reads the raw bytes itself with INBOUND_MAX_MESSAGE_BYTES (at most this) as the cap.
  { prefix: "/api/inbound/email", bytes: 25 * 1024 * 1024, exact: true, deferred: true, configured: true },
  // A recording, as bytes (src/sdk/voice-routes.ts checks VOICE_MAX_AUDIO_BYTES, at most this).
  { prefix: "/api/sdk/voice/transcribe", bytes: 25 * 1024 * 1024, exact: true, binary: true, configured: true },
  { prefix: "/dashboard", bytes: 256 * 1024 },
  { prefix: "/dashboard/knowledge", bytes: 2 * 1024 * 1024 },
  // The same question set as a form: read only once the member is known (readFormAfterAuth below).
  { prefix: "/dashboard/eval", bytes: 8 * 1024 * 1024, exact: true, deferred: true },
  { prefix: "/", bytes: 16 * 1024 },
];

export class RawBody {
  constructor(
    readonly text: string,
    readonly error?: AppError,
  ) {}
}

/**
 * A body left unread by the parser: the route reads `request` itself once it has decided to
 * (src/mail-in/routes.ts, after its secret is checked).
 */
export class DeferredBody {}

/** A `binary` route's body: its bytes and media type, or why it could not be read. */
export class BinaryBody {
  constructor(
    readonly bytes: Uint8Array,
    readonly type: string,
    readonly error?: AppError,
  ) {}
}

/**
 * The largest body read before its caller is known (every parsed route's cap). The `deferred`
 * routes read theirs only after authenticating (readJsonAfterAuth, readFormAfterAuth) and the
 * `configured` ones (the relay, a recording) only as far as their setting allows: both raise what
 * Bun accepts (serverBodyCap), never what is read for a stranger.
 */
export const MAX_BODY_BYTES = Math.max(...BODY_LIMITS.filter((l) => !l.configured && !l.deferred).map((l) => l.bytes));

/** The largest fixed cap of a route read only after its caller is known (a question set). */
const DEFERRED_BYTES = Math.max(...BODY_LIMITS.filter((l) => l.deferred && !l.configured).map((l) => l.bytes));

/**
 * Bun.serve's `maxRequestBodySize`, which holds for every route: MAX_BODY_BYTES, raised to
 * INBOUND_MAX_MESSAGE_BYTES only when the relay endpoint is on, and to VOICE_MAX_AUDIO_BYTES when
 * that is larger. Whatever it is, each route still reads with its own cap (a chunked body
 * included), and the relay reads nothing before its secret.
 */
export function serverBodyCap(inbound: { webhookSecret?: string; maxMessageBytes: number }, speech?: { maxAudioBytes: number }): number {
  return Math.max(MAX_BODY_BYTES, DEFERRED_BYTES, UPLOAD_BYTES, inbound.webhookSecret ? inbound.maxMessageBytes : 0, speech?.maxAudioBytes ?? 0);
}

/** The cap of a JSON upload read only after its caller is known (POST /api/knowledge/files). */
export const UPLOAD_BYTES = limitFor("/api/knowledge/files").bytes;

/**
 * A deferred JSON body, read once the route has authenticated its caller: capped (413), parsed
 * with parseJsonBounded (400 on anything it refuses). Validation against the route's schema is
 * the caller's.
 */
export async function readJsonAfterAuth(request: Request, path: string): Promise<unknown> {
  refuseDeclaredOver(request, limitFor(path).bytes);
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") throw new AppError(415, "unsupported_media_type", "The body must be application/json.");
  const text = await readCappedText(request, limitFor(path).bytes);
  if (text === "") throw AppError.badRequest("The body must be a JSON object.");
  return parseJsonBounded(text);
}

/** A deferred urlencoded form, read once the route has authenticated its caller (as readJsonAfterAuth). */
export async function readFormAfterAuth(request: Request, path: string): Promise<Record<string, string | string[]>> {
  refuseDeclaredOver(request, limitFor(path).bytes);
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded")
    throw new AppError(415, "unsupported_media_type", "The body must be a form (application/x-www-form-urlencoded).");
  const form = parseForm(await readCappedText(request, limitFor(path).bytes));
  checkFormControls(form);
  return form;
}

/** 413 at once for a declared Content-Length over the cap, before the media type is looked at (as for a parsed route). */
function refuseDeclaredOver(request: Request, limit: number): void {
  const declared = Number(request.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > limit) throw payloadTooLarge(limit);
}

function limitFor(path: string) {
  let best: (typeof BODY_LIMITS)[number] = { prefix: "", bytes: 16 * 1024 };
  for (const limit of BODY_LIMITS) {
    const matches = limit.exact ? path === limit.prefix : path.startsWith(limit.prefix);
    if (matches && limit.prefix.length > best.prefix.length) best = limit;
  }
  return best;
}

export function payloadTooLarge(limit: number): AppError {
  return new AppError(413, "payload_too_large", `The request body is larger than ${limit} bytes.`);
}

export async function readCappedText(request: Request, limit: number): Promise<string> {
  const bytes = await readBodyCapped(request, limit);
  if (bytes === null) throw payloadTooLarge(limit);
  return new TextDecoder("utf-8", { fatal: false }).decode(bytes);
}

function refuseControls(text: string, what: string): void {
  const found = findControlCharacter(text);
  if (found) throw AppError.badRequest(`The ${what} may not contain control characters other than tab, line feed and carriage return (found ${found}).`);
}

/**
 * Parses a body by its media type. An empty body parses to `undefined` (validation reports it).
 * A `raw` route gets the text unparsed: it must call parseJsonBounded / checkFormControls itself.
 */
export async function parseBody(request: Request, contentType: string, path: string): Promise<unknown> {
  const limit = limitFor(path);
  if (limit.deferred) return new DeferredBody();
  if (limit.binary) {
    const bytes = await readBodyCapped(request, limit.bytes);
    const type = contentType.split(";")[0]!.trim().toLowerCase();
    return bytes === null ? new BinaryBody(new Uint8Array(0), type, payloadTooLarge(limit.bytes)) : new BinaryBody(bytes, type);
  }
  if (limit.raw) {
    try {
      return new RawBody(await readCappedText(request, limit.bytes));
    } catch (error) {
      if (error instanceof AppError) return new RawBody("", error);
      throw error;
    }
  }
  const text = await readCappedText(request, limit.bytes);
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (text === "") return undefined;
  if (type === "application/json" || type.endsWith("+json")) {
    return parseJsonBounded(text);
  }
  if (type === "application/x-www-form-urlencoded") {
    const form = parseForm(text);
    checkFormControls(form);
    return form;
  }
  if (type === "text/plain" || type === "") {
    refuseControls(text, "request body");
    return text;
  }
  throw new AppError(415, "unsupported_media_type", `Content-Type ${type} is not accepted here.`);
}

/** A form body as an object; a repeated name becomes an array (OAuth refuses those, RFC 6749 section 3.2). */
export function parseForm(text: string): Record<string, string | string[]> {
  const fields = new Map<string, string | string[]>();
  for (const [name, value] of new URLSearchParams(text)) {
    const previous = fields.get(name);
    fields.set(name, previous === undefined ? value : [...(Array.isArray(previous) ? previous : [previous]), value]);
  }
  return Object.fromEntries(fields);
}

/**
 * Throws 400 validation_failed when a decoded form (or query) name or value holds a control
 * character other than tab, CR and LF (`%00` decodes to NUL, which PostgreSQL refuses).
 */
export function checkFormControls(fields: Record<string, string | string[]>): void {
  for (const [name, value] of Object.entries(fields)) {
    refuseControls(name, "form field names");
    for (const v of Array.isArray(value) ? value : [value]) refuseControls(v, `form field ${JSON.stringify(name.slice(0, 64))}`);
  }
}
