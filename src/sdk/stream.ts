// The streamed chat answer (docs/interface.md 4.5, docs/interface.md D): a chunked
// `text/plain; charset=utf-8` body where the reply's text arrives as the model produces it and
// action records are framed by the ASCII record separator 0x1E:
//
//   \x1e__ACTION__<json>\x1e          one action, as it resolves
//   \x1e__ACTIONS__<json-array>\x1e   the summary of every action: the LAST record of a complete stream
//   \x1e__ERROR__{"code","message"}\x1e   instead of the summary, when the answer failed after the
//                                      headers went out, so a cut stream is never taken for a finished one
//
// Guarantees a client can rely on:
//   * no 0x1E ever appears in text: it is stripped here from whatever the model or the knowledge
//     base produced, and JSON.stringify escapes it (as \u001e) inside records;
//   * every record is one enqueue (one write), never split by us across writes;
//   * stripping every `\x1e…\x1e` substring from the concatenated body leaves exactly the reply text.
//
// A slow model must not be cut by Bun's idle timeout (FACTS: 10 s by default, 60 s in src/server.ts):
// the request's own idle timeout is switched off with `server.timeout(request, 0)`; the model's own
// deadline (LLM_TIMEOUT_SECONDS) bounds the answer instead.
import type { TurnSink } from "../agents/turn.ts";
import { liftIdleTimeout } from "../http/request-meta.ts";

export const RS = "\x1e";
const RS_ALL = /\x1e/g;

/** Text as it may travel outside records: without the separator. */
export function stripSeparator(text: string): string {
  return text.includes(RS) ? text.replace(RS_ALL, "") : text;
}

export const actionRecord = (action: unknown) => `${RS}__ACTION__${JSON.stringify(action)}${RS}`;
export const actionsRecord = (actions: readonly unknown[]) => `${RS}__ACTIONS__${JSON.stringify(actions)}${RS}`;
export const errorRecord = (error: { code: string; message: string }) => `${RS}__ERROR__${JSON.stringify({ code: error.code, message: error.message })}${RS}`;

/** What a client that wants only the text does (docs/interface.md 4.5): drop every record. */
export function textOnly(body: string): string {
  return body.replace(/\x1e[^\x1e]*\x1e/g, "");
}

/** What the answer writes into the stream. */
export interface StreamSink {
  /** Reply text; 0x1E is removed. Empty strings are skipped. */
  text(text: string): void;
  /** One action record, also kept for the final summary. */
  action(action: unknown): void;
  /** Aborted when the client goes away; pass it on to the model request. */
  readonly signal: AbortSignal;
}

export type StreamOutcome<T> = { ok: true; value: T; actions: unknown[] } | { ok: false; error: unknown; actions: unknown[] };

export interface ChatStreamOptions<T> {
  sessionId: string;
  agentId: string;
  /** The incoming request, to lift Bun's idle timeout for this response. */
  request?: Request;
  /** Produces the answer into the sink. Throwing after this started ends the stream with an error record. */
  run(sink: StreamSink): Promise<T>;
  /** The public code and message of a failure (never a stack or a secret). */
  describe(error: unknown): { code: string; message: string };
  /** Runs after the body is closed (complete, failed or abandoned): the transcript is stored here (docs/interface.md 4.5). */
  after?(outcome: StreamOutcome<T>): void;
  /** Told when the stream opens; what it answers is called once when the stream ends (svc_open_streams). */
  opened?(): () => void;
}

export const STREAM_HEADERS = {
  "content-type": "text/plain; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
} as const;

/** An open stream: its response, the sink the answer writes into, and how it ends. */
export interface OpenStream {
  response: Response;
  sink: StreamSink;
  /** Writes the summary of every action (`error` null) or the error record, then closes the body. */
  finish(error: { code: string; message: string } | null): void;
}

/** The streamed response. Headers leave as soon as it is returned; the body follows what the sink is given. */
export function openChatStream(options: Pick<ChatStreamOptions<unknown>, "sessionId" | "agentId" | "request" | "opened">): OpenStream {
  const encoder = new TextEncoder();
  const abort = new AbortController();
  const actions: unknown[] = [];
  let open = true;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const closed = options.opened?.() ?? (() => {});

  const write = (chunk: string) => {
    if (!open || abort.signal.aborted || chunk === "") return;
    try {
      controller.enqueue(encoder.encode(chunk));
    } catch {
      open = false; // the consumer is gone
    }
  };
  const sink: StreamSink = {
    text: (text) => write(stripSeparator(text)),
    action(action) {
      actions.push(action);
      write(actionRecord(action));
    },
    signal: abort.signal,
  };
  const finish = (error: { code: string; message: string } | null) => {
    write(error ? errorRecord(error) : actionsRecord(actions));
    closed();
    if (!open) return;
    open = false;
    try {
      controller.close();
    } catch {}
  };

  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      closed();
      open = false;
      abort.abort(new DOMException("The client closed the stream.", "AbortError"));
    },
  });

  if (options.request) liftIdleTimeout(options.request);
  const response = new Response(body, {
    status: 200,
    headers: { ...STREAM_HEADERS, "x-session-id": options.sessionId, "x-agent-id": options.agentId },
  });
  return { response, sink, finish };
}

/** A stream whose answer is produced by `run`, started once the response is out; `after` is told how it ended. */
export function chatStream<T>(options: ChatStreamOptions<T>): Response {
  const stream = openChatStream(options);
  // Started on the next turn so the Response (and its headers) is out before any work.
  queueMicrotask(async () => {
    let outcome: StreamOutcome<T>;
    const actions: unknown[] = [];
    const sink: StreamSink = { text: stream.sink.text, action: (a) => (actions.push(a), stream.sink.action(a)), signal: stream.sink.signal };
    try {
      const value = await options.run(sink);
      stream.finish(null);
      outcome = { ok: true, value, actions };
    } catch (error) {
      stream.finish(options.describe(error));
      outcome = { ok: false, error, actions };
    }
    options.after?.(outcome);
  });
  return stream.response;
}

/**
 * The streaming sink of a chat turn (src/agents/turn.ts): resolves with the response when the turn
 * opens, rejects with what failed before that; a failure after it (the reply's store) goes to `late`.
 */
export function streamTurn(
  request: Request,
  hooks: { opened?(): () => void; late(error: unknown): void },
  run: (sink: TurnSink) => Promise<void>,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    let stream: OpenStream | null = null;
    const sink: TurnSink = {
      acknowledgesAtOpen: true,
      open(head) {
        stream = openChatStream({ ...head, request, opened: hooks.opened });
        resolve(stream.response);
      },
      text: (text) => stream?.sink.text(text),
      action: (action) => stream?.sink.action(action),
      get signal() {
        return stream?.sink.signal ?? request.signal;
      },
      end: (end) => stream?.finish(end.ok ? null : end.error),
    };
    run(sink).catch((error) => (stream ? hooks.late(error) : reject(error)));
  });
}

/** Also used by /api/sdk/chat, whose answer may take several model requests and tool calls, each bounded by its own deadline. */
export { liftIdleTimeout };
