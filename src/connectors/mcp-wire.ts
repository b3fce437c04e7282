// Reading a connector server's answer (docs/interface.md B.3): our JSON-RPC response picked out of a
// JSON body or an SSE stream, notifications and server requests before it skipped, bytes capped,
// the deadline a total one; and the error every failure of our MCP client becomes.
import { createParser } from "eventsource-parser";
import { type GuardOptions, readCapped, ResponseTooLargeError } from "../net/guard.ts";
import { isTimeout } from "../kit/timeouts.ts";
import { parseJsonBounded } from "../http/json.ts";

/** Where and how a connector is reached: its URL, its credentials, the outbound guard and the operation's deadline. */
export interface ConnectionOptions {
  url: string;
  /** Authorization headers for each request (read again after a credential refresh). */
  authHeaders: () => Record<string, string>;
  guard: GuardOptions;
  /** The operation's total deadline. */
  signal: AbortSignal;
}

export const CLIENT_LIMITS = {
  /** One response (JSON body or the SSE stream read until our answer). */
  responseBytes: 4 * 1024 * 1024,
  sessionIdLength: 256,
};

export type McpErrorKind = "auth" | "session_lost" | "http" | "protocol" | "rpc" | "timeout" | "blocked";

export class McpClientError extends Error {
  override name = "McpClientError";
  constructor(
    readonly kind: McpErrorKind,
    message: string,
    /** `rpcCode`/`rpcData` also on an HTTP failure whose body was a JSON-RPC error (2026-07-28 answers errors with 400 and one). */
    readonly details: { status?: number; wwwAuthenticate?: string | null; rpcCode?: number; rpcData?: unknown } = {},
  ) {
    super(message);
  }
}

export interface JsonRpcMessage {
  jsonrpc?: string;
  id?: string | number | null;
  method?: string;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export function deadlineError(error: unknown): McpClientError | undefined {
  if (isTimeout(error)) return new McpClientError("timeout", "the server did not answer before the deadline");
  return undefined;
}

/** Picks our response (by id) out of a JSON body or an SSE stream. */
export async function readResponse(response: Response, id: number, signal: AbortSignal): Promise<JsonRpcMessage> {
  const type = response.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "text/event-stream") return readEventStream(response, id, signal);
  const text = new TextDecoder().decode(await readCapped(response, CLIENT_LIMITS.responseBytes));
  let parsed: unknown;
  try {
    // Nesting bounded (src/http/json.ts relay mode): a result nested 100,000 levels would block
    // the process in JSON.stringify for seconds.
    parsed = parseJsonBounded(text, { relay: true });
  } catch {
    throw new McpClientError("protocol", `the server answered ${type || "without a content type"} that is not JSON (or nested too deeply)`);
  }
  const messages = (Array.isArray(parsed) ? parsed : [parsed]) as JsonRpcMessage[];
  const ours = messages.find((m) => m && typeof m === "object" && m.id === id && ("result" in m || "error" in m));
  if (!ours) throw new McpClientError("protocol", "the server's answer does not contain a response to our request");
  return ours;
}

/**
 * The JSON-RPC error in a refused request's body (a 4xx), when there is one: any id, since a server that could not read the request answers with a null one.
 */
export function errorInBody(text: string): JsonRpcMessage["error"] | undefined {
  try {
    const parsed = parseJsonBounded(text, { relay: true }) as JsonRpcMessage;
    const error = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed.error : undefined;
    return error && typeof error === "object" && typeof error.code === "number" ? error : undefined;
  } catch {
    return undefined;
  }
}

async function readEventStream(response: Response, id: number, signal: AbortSignal): Promise<JsonRpcMessage> {
  if (!response.body) throw new McpClientError("protocol", "the event stream has no body");
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let found: JsonRpcMessage | undefined;
  let bytes = 0;
  const parser = createParser({
    onEvent(event) {
      if (found || event.data === "") return; // priming and keep-alive events carry no message
      let message: unknown;
      try {
        message = parseJsonBounded(event.data, { relay: true });
      } catch {
        return; // not JSON-RPC: ignore, as browsers ignore unknown events
      }
      for (const m of (Array.isArray(message) ? message : [message]) as JsonRpcMessage[]) {
        // Notifications and server-to-client requests before our response are skipped.
        if (m && typeof m === "object" && m.id === id && ("result" in m || "error" in m)) found = m;
      }
    },
  });
  try {
    while (!found) {
      if (signal.aborted) throw new McpClientError("timeout", "the server did not answer before the deadline");
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > CLIENT_LIMITS.responseBytes)
        throw new ResponseTooLargeError(`the event stream exceeded ${CLIENT_LIMITS.responseBytes} bytes before our response`);
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  if (!found) throw new McpClientError("protocol", "the event stream ended without a response to our request");
  return found;
}
