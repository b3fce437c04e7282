// What the two network adapters share (docs/interface.md E): one POST with a total deadline, at most one
// retry, and the response read as Server-Sent Events.
//
//   * Deadline: `timeoutMs` bounds the whole exchange — both attempts, the wait between them and
//     reading the stream to its end — not the gap between bytes (a model may think for a while).
//   * Retry: once, only before any of the answer was read, on a network failure, 408, 409, 429
//     or 5xx (Anthropic's 529 "overloaded" is a 5xx). The wait honours `Retry-After` (seconds or
//     an HTTP date) and is 500 ms otherwise; when the wait would overrun the deadline we give up
//     at once instead of sleeping into a timeout. Other 4xx (bad key, bad request) never retry.
//   * Where it goes: the operator's LLM_BASE_URL is trusted and fetched directly; a URL an org
//     admin configured goes through the outbound guard (src/net/guard.ts) on every request, so
//     it can never reach the internal network, and redirects are never followed.
//   * Bounds: an error body is read up to 16 KiB; one SSE event up to 1 MiB; a whole stream up
//     to 8 MiB.
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { Deps } from "../../deps.ts";
import { messageOf } from "../../errors.ts";
import { realTimers, type Timers } from "../../kit/timers.ts";
import { BlockedUrlError, guardedFetch, RedirectRefusedError } from "../../net/guard.ts";
import { LlmError } from "./errors.ts";
import { parseJsonBounded } from "../../http/json.ts";

export const LLM_HTTP_LIMITS = { errorBodyBytes: 16 * 1024, eventBytes: 1024 * 1024, streamBytes: 8 * 1024 * 1024, defaultRetryDelayMs: 500 };

export interface Endpoint {
  url: string;
  /** The operator's URL (plain fetch) or an org's (through the outbound guard). */
  trusted: boolean;
  headers: Record<string, string>;
}

export interface CallOptions {
  /** `timers` makes the deadline follow the test clock (src/kit/timers.ts); real timers otherwise. */
  deps: Pick<Deps, "guard"> & { timers?: Pick<Timers, "deadline"> };
  timeoutMs: number;
  signal: AbortSignal;
}

/** `{base}{path}`, keeping the base's query after the path (`https://gw/v1?api-version=x` → `https://gw/v1/chat/completions?api-version=x`). */
export function endpointUrl(base: string, path: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}${path}`;
  return url.href;
}

const RETRYABLE = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/** Milliseconds to wait before retrying, from `Retry-After` (RFC 9110 section 10.2.3) or the default. */
export function retryDelayMs(header: string | null, now: number): number {
  if (header === null) return LLM_HTTP_LIMITS.defaultRetryDelayMs;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? LLM_HTTP_LIMITS.defaultRetryDelayMs : Math.max(0, date - now);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

async function errorSummary(response: Response): Promise<string> {
  try {
    const reader = response.body?.getReader();
    if (!reader) return "";
    const chunks: Uint8Array[] = [];
    let size = 0;
    while (size < LLM_HTTP_LIMITS.errorBodyBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
    await reader.cancel().catch(() => {});
    const text = new TextDecoder().decode(Buffer.concat(chunks).subarray(0, LLM_HTTP_LIMITS.errorBodyBytes));
    try {
      // OpenAI: {"error":{"message"}}; Anthropic: {"type":"error","error":{"type","message"}}.
      const parsed = JSON.parse(text) as { error?: { message?: unknown; type?: unknown } | string };
      const error = parsed.error;
      if (typeof error === "string") return error.slice(0, 300);
      if (error && typeof error.message === "string") return `${typeof error.type === "string" ? `${error.type}: ` : ""}${error.message}`.slice(0, 300);
    } catch {}
    return text.replace(/\s+/g, " ").slice(0, 300);
  } catch {
    return "";
  }
}

class Deadline {
  readonly signal: AbortSignal;
  readonly #ends: number;
  constructor(
    readonly timeoutMs: number,
    caller: AbortSignal,
    timer: (ms: number) => AbortSignal,
  ) {
    this.#ends = Date.now() + timeoutMs;
    this.signal = AbortSignal.any([caller, timer(timeoutMs)]);
  }
  remaining(): number {
    return this.#ends - Date.now();
  }
}

function abortError(deadline: Deadline, caller: AbortSignal): LlmError {
  if (caller.aborted) return new LlmError("the request was cancelled", false, undefined, "aborted");
  return new LlmError(`the model gave no complete answer within ${Math.round(deadline.timeoutMs / 1000)} s`, true, undefined, "timeout");
}

async function send(endpoint: Endpoint, body: string, signal: AbortSignal, deps: Pick<Deps, "guard">): Promise<Response> {
  const headers = { "content-type": "application/json", accept: "text/event-stream", "user-agent": "svc-agents/1.0", ...endpoint.headers };
  if (!endpoint.trusted) return guardedFetch(endpoint.url, { method: "POST", headers, body, signal }, deps.guard);
  const response = await fetch(endpoint.url, { method: "POST", headers, body, signal, redirect: "manual" });
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new RedirectRefusedError(response.status, response.headers.get("location"));
  }
  return response;
}

/** POSTs `body` and yields the response's SSE events, with the deadline and retry described above. */
export async function* postSse(endpoint: Endpoint, body: unknown, options: CallOptions): AsyncGenerator<EventSourceMessage> {
  const deadline = new Deadline(options.timeoutMs, options.signal, (ms) => (options.deps.timers ?? realTimers).deadline(ms));
  const payload = JSON.stringify(body);
  let response: Response | undefined;
  for (let attempt = 1; response === undefined; attempt++) {
    let failure: LlmError;
    let wait = LLM_HTTP_LIMITS.defaultRetryDelayMs;
    try {
      const answer = await send(endpoint, payload, deadline.signal, options.deps);
      if (answer.ok) {
        response = answer;
        break;
      }
      const retryable = RETRYABLE(answer.status);
      wait = retryDelayMs(answer.headers.get("retry-after"), Date.now());
      const summary = await errorSummary(answer);
      failure = new LlmError(`the model server answered ${answer.status}${summary ? ` (${summary})` : ""}`, retryable, answer.status, "http_error");
    } catch (error) {
      if (deadline.signal.aborted) throw abortError(deadline, options.signal);
      if (error instanceof BlockedUrlError) throw new LlmError(`the model URL is not allowed: ${error.message}`, false, undefined, "blocked_url");
      if (error instanceof RedirectRefusedError) throw new LlmError(`the model URL ${error.message}`, false, error.status, "http_error");
      failure = new LlmError(`the model server could not be reached: ${messageOf(error)}`, true, undefined, "network");
    }
    if (!failure.retryable || attempt >= 2 || wait >= deadline.remaining()) throw failure;
    try {
      await sleep(wait, deadline.signal);
    } catch {
      throw abortError(deadline, options.signal);
    }
  }

  // A server that ignored `stream: true` answers one JSON document: say so rather than "cut".
  const type = response.headers.get("content-type");
  if (type !== null && !/event-stream/i.test(type)) {
    await response.body?.cancel();
    throw new LlmError(`the model server did not stream (content-type ${type.slice(0, 80)})`, false, response.status, "bad_response");
  }

  const queue: EventSourceMessage[] = [];
  let parseProblem: string | null = null;
  const parser = createParser({
    maxBufferSize: LLM_HTTP_LIMITS.eventBytes,
    onEvent: (event) => queue.push(event),
    onError: (error) => {
      parseProblem = error.message;
    },
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let total = 0;
  try {
    while (true) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (deadline.signal.aborted) throw abortError(deadline, options.signal);
        throw new LlmError(`the model's stream broke off: ${messageOf(error)}`, true, undefined, "stream_cut");
      }
      if (chunk.done) {
        parser.feed(decoder.decode());
        parser.feed("\n\n"); // a last event without its blank line still counts
        yield* queue.splice(0);
        return;
      }
      total += chunk.value.byteLength;
      if (total > LLM_HTTP_LIMITS.streamBytes)
        throw new LlmError(`the model's answer is longer than ${LLM_HTTP_LIMITS.streamBytes} bytes`, false, undefined, "bad_response");
      parser.feed(decoder.decode(chunk.value, { stream: true }));
      if (parseProblem !== null) throw new LlmError(`the model's stream is malformed: ${parseProblem}`, false, undefined, "bad_response");
      yield* queue.splice(0);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * Parses one event's JSON data; a malformed event is a failed stream, not something to skip.
 * Nesting is bounded (src/http/json.ts relay mode): a provider URL may be an org's own server.
 */
export function eventJson(event: EventSourceMessage): Record<string, unknown> {
  try {
    const value = parseJsonBounded(event.data, { relay: true }) as unknown;
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {}
  throw new LlmError(`the model sent an event that is not a JSON object: ${event.data.slice(0, 80)}`, false, undefined, "bad_response");
}

/** Parses accumulated tool-call arguments (a JSON object; empty means none). */
export function toolArguments(raw: string, tool: string): Record<string, unknown> {
  if (raw.trim() === "") return {};
  try {
    const value = parseJsonBounded(raw, { relay: true }) as unknown;
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {}
  throw new LlmError(`the model called ${tool} with arguments that are not a JSON object`, false, undefined, "bad_response");
}
