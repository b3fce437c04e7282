// Fake model servers on loopback that speak the real streaming wire formats (docs/interface.md E):
//   fakeOpenAi()    — Chat Completions: POST {baseUrl}/chat/completions, `data:` chunks, `data: [DONE]`
//   fakeAnthropic() — Messages: POST {baseUrl}/v1/messages, named events, message_stop
// Each test scripts the replies (queued; one per request) and reads back every request the
// server received (`fake.requests`, so a test can assert that no model was called at all).
//
//   const fake = await fakeOpenAi();
//   fake.enqueue({ steps: [{ text: "Hel" }, { pause: 50 }, { text: "lo" }] });
//   fake.enqueue({ steps: [{ tool: { name: "search_docs", arguments: { query: "reset" }, fragments: 3 } }] });
//   fake.enqueue({ steps: [{ text: "partial" }], end: "error" });            // mid-stream error event
//   fake.enqueue({ steps: [{ text: "partial" }], end: "no-terminator" });    // ends without [DONE] / message_stop
//   fake.enqueue({ steps: [{ text: "partial" }], end: "cut" });              // connection broken mid-body
//   fake.enqueue({ status: 429, headers: { "retry-after": "0" } });          // an HTTP error, no stream
//   fake.enqueue({ steps: [...], ollama: true });                            // tool calls all at index 0, whole
//   ... fake.baseUrl, fake.requests, fake.close()
// With nothing queued a request gets `fallback` (default: the text "Hello from the fake model.").
// `{ until: promise }` holds the stream until the test resolves it (deterministic "model is slow").

export type FakeStep =
  | { text: string }
  | { pause: number }
  | { until: Promise<unknown> }
  | { tool: { name: string; arguments: Record<string, unknown> | string; id?: string; fragments?: number } };

export interface FakeScript {
  /** An HTTP error instead of a stream (e.g. 429, 500, 529, 401). */
  status?: number;
  headers?: Record<string, string>;
  /** The error body for `status`; defaults to the vendor's error shape. */
  body?: unknown;
  steps?: FakeStep[];
  /** Stop reason; default: tool calls if any, else the normal end. */
  stop?: "end" | "tool_calls" | "max_tokens";
  /** How the stream ends. Default "normal". */
  end?: "normal" | "error" | "no-terminator" | "cut";
  /** OpenAI only: send every tool call whole, at index 0, as Ollama does. */
  ollama?: boolean;
  usage?: { input: number; output: number };
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The JSON body (or the raw text if it was not JSON). */
  body: any;
}

export interface FakeLlm {
  kind: "openai" | "anthropic";
  /** What LLM_BASE_URL (or an override's base_url) should be. */
  baseUrl: string;
  requests: RecordedRequest[];
  enqueue(...scripts: FakeScript[]): void;
  /** Forgets queued scripts and recorded requests (call it in beforeEach). */
  reset(): void;
  fallback: FakeScript;
  /** When set, requests without this key get the vendor's 401. */
  apiKey?: string;
  close(): Promise<void>;
}

const encoder = new TextEncoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function split(text: string, parts: number): string[] {
  const n = Math.max(1, Math.min(parts, text.length || 1));
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

type Emit = (chunk: string) => void;

async function runOpenAi(script: FakeScript, model: string, emit: Emit): Promise<void> {
  const base = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: 1_800_000_000, model };
  const chunk = (delta: unknown, finish: string | null = null) =>
    emit(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
  chunk({ role: "assistant", content: "" });
  let tools = 0;
  for (const step of script.steps ?? []) {
    if ("pause" in step) await sleep(step.pause);
    else if ("until" in step) await step.until;
    else if ("text" in step) chunk({ content: step.text });
    else {
      const id = step.tool.id ?? `call_${tools + 1}`;
      const args = typeof step.tool.arguments === "string" ? step.tool.arguments : JSON.stringify(step.tool.arguments);
      if (script.ollama) chunk({ tool_calls: [{ index: 0, id, type: "function", function: { name: step.tool.name, arguments: args } }] });
      else {
        chunk({ tool_calls: [{ index: tools, id, type: "function", function: { name: step.tool.name, arguments: "" } }] });
        for (const part of split(args, step.tool.fragments ?? 1)) chunk({ tool_calls: [{ index: tools, function: { arguments: part } }] });
      }
      tools++;
    }
  }
  if (script.end === "error") {
    emit(`data: ${JSON.stringify({ error: { message: "The server had an error while processing your request.", type: "server_error" } })}\n\n`);
    return;
  }
  if (script.end === "cut") throw new Error("cut");
  const stop = script.stop ?? (tools > 0 ? "tool_calls" : "end");
  chunk({}, { end: "stop", tool_calls: "tool_calls", max_tokens: "length" }[stop]);
  const usage = script.usage ?? { input: 11, output: 7 };
  emit(
    `data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } })}\n\n`,
  );
  if (script.end !== "no-terminator") emit("data: [DONE]\n\n");
}

async function runAnthropic(script: FakeScript, model: string, emit: Emit): Promise<void> {
  const event = (type: string, data: Record<string, unknown>) => emit(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  const usage = script.usage ?? { input: 11, output: 7 };
  event("message_start", {
    message: {
      id: "msg_fake",
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: 1 },
    },
  });
  event("ping", {});
  let index = -1;
  let open: "text" | null = null;
  let tools = 0;
  const close = () => {
    if (open) event("content_block_stop", { index });
    open = null;
  };
  for (const step of script.steps ?? []) {
    if ("pause" in step) await sleep(step.pause);
    else if ("until" in step) await step.until;
    else if ("text" in step) {
      if (open !== "text") {
        close();
        index++;
        open = "text";
        event("content_block_start", { index, content_block: { type: "text", text: "" } });
      }
      event("content_block_delta", { index, delta: { type: "text_delta", text: step.text } });
    } else {
      close();
      index++;
      tools++;
      const args = typeof step.tool.arguments === "string" ? step.tool.arguments : JSON.stringify(step.tool.arguments);
      event("content_block_start", { index, content_block: { type: "tool_use", id: step.tool.id ?? `toolu_fake${tools}`, name: step.tool.name, input: {} } });
      for (const part of split(args, step.tool.fragments ?? 1))
        event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: part } });
      event("content_block_stop", { index });
    }
  }
  if (script.end === "error") {
    event("error", { error: { type: "overloaded_error", message: "Overloaded" } });
    return;
  }
  if (script.end === "cut") throw new Error("cut");
  close();
  const stop = script.stop ?? (tools > 0 ? "tool_calls" : "end");
  event("message_delta", {
    delta: { stop_reason: { end: "end_turn", tool_calls: "tool_use", max_tokens: "max_tokens" }[stop], stop_sequence: null },
    usage: { output_tokens: usage.output },
  });
  if (script.end !== "no-terminator") event("message_stop", {});
}

function errorBody(kind: "openai" | "anthropic", status: number): unknown {
  const type =
    status === 429
      ? "rate_limit_error"
      : status === 401
        ? "authentication_error"
        : status === 529
          ? "overloaded_error"
          : status >= 500
            ? "api_error"
            : "invalid_request_error";
  return kind === "openai" ? { error: { message: `fake ${type}`, type, code: null } } : { type: "error", error: { type, message: `fake ${type}` } };
}

async function startFake(kind: "openai" | "anthropic"): Promise<FakeLlm> {
  const queue: FakeScript[] = [];
  const path = kind === "openai" ? "/v1/chat/completions" : "/v1/messages";
  const fake: FakeLlm = {
    kind,
    baseUrl: "",
    requests: [],
    fallback: { steps: [{ text: "Hello from the fake model." }] },
    enqueue: (...scripts) => void queue.push(...scripts),
    reset: () => {
      queue.length = 0;
      fake.requests.length = 0;
      fake.apiKey = undefined;
    },
    close: async () => {},
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const text = await request.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      fake.requests.push({ method: request.method, path: url.pathname, headers: Object.fromEntries(request.headers), body });
      if (request.method !== "POST" || url.pathname !== path) return Response.json(errorBody(kind, 404), { status: 404 });
      if (fake.apiKey !== undefined) {
        const given = kind === "openai" ? request.headers.get("authorization") : request.headers.get("x-api-key");
        if (given !== (kind === "openai" ? `Bearer ${fake.apiKey}` : fake.apiKey)) return Response.json(errorBody(kind, 401), { status: 401 });
      }
      const script = queue.shift() ?? fake.fallback;
      if (script.status !== undefined) return Response.json(script.body ?? errorBody(kind, script.status), { status: script.status, headers: script.headers });
      const model = typeof (body as { model?: unknown })?.model === "string" ? (body as { model: string }).model : "fake";
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          const emit: Emit = (chunk) => controller.enqueue(encoder.encode(chunk));
          // After the headers and the first bytes went out, so "cut" breaks a stream in flight.
          void (async () => {
            try {
              await (kind === "openai" ? runOpenAi(script, model, emit) : runAnthropic(script, model, emit));
              controller.close();
            } catch (error) {
              await sleep(20);
              // Bun prints the reason of an errored body; a scripted cut is not worth a line.
              controller.error(error instanceof Error && error.message === "cut" ? undefined : error);
            }
          })();
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...script.headers } });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  fake.baseUrl = kind === "openai" ? `${origin}/v1` : origin;
  fake.close = async () => {
    await server.stop(true);
  };
  return fake;
}

export const fakeOpenAi = () => startFake("openai");
export const fakeAnthropic = () => startFake("anthropic");
