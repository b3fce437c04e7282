// The 0x1E framing of /api/sdk/chat/stream (docs/interface.md 4.5, docs/interface.md D): records, the final summary,
// the error record, stripping, one write per record, headers, and Bun's idle timeout.
import { describe, expect, test } from "bun:test";
import { createHandler } from "../../src/http/handler.ts";
import { setRequestMeta } from "../../src/http/request-meta.ts";
import { createLogger } from "../../src/log.ts";
import { actionRecord, actionsRecord, chatStream, errorRecord, RS, type StreamOutcome, stripSeparator, textOnly } from "../../src/sdk/stream.ts";

async function chunksOf(response: Response): Promise<string[]> {
  const decoder = new TextDecoder();
  const out: string[] = [];
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(decoder.decode(value, { stream: true }));
  }
}

const describeError = (e: unknown) => ({ code: "llm_failed", message: e instanceof Error ? e.message : String(e) });

describe("records", () => {
  test("are framed by 0x1E and carry no 0x1E inside", () => {
    expect(actionRecord({ type: "x" })).toBe(`${RS}__ACTION__{"type":"x"}${RS}`);
    expect(actionsRecord([])).toBe(`${RS}__ACTIONS__[]${RS}`);
    expect(errorRecord({ code: "c", message: "m" })).toBe(`${RS}__ERROR__{"code":"c","message":"m"}${RS}`);
    // A separator inside a value is escaped by JSON, so the record stays one record.
    const tricky = actionRecord({ note: `a${RS}b` });
    expect(tricky.split(RS)).toHaveLength(3);
    expect(tricky).toContain("\\u001e");
  });

  test("stripSeparator removes every 0x1E", () => {
    expect(stripSeparator(`a${RS}b${RS}${RS}c`)).toBe("abc");
    expect(stripSeparator("plain")).toBe("plain");
  });
});

describe("chatStream", () => {
  test("headers, text, actions as they resolve, and the summary as the last record", async () => {
    let after: StreamOutcome<string> | undefined;
    const response = chatStream({
      sessionId: "s1",
      agentId: "a1",
      describe: describeError,
      async run(sink) {
        sink.text("Hello");
        sink.action({ type: "tool", name: "search_docs" });
        sink.text(` wor${RS}ld`);
        sink.text("");
        return "done";
      },
      after: (o) => (after = o),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    expect(response.headers.get("x-session-id")).toBe("s1");
    expect(response.headers.get("x-agent-id")).toBe("a1");
    const chunks = await chunksOf(response);
    // One write per piece: a record never spans two chunks and text never shares one with a record.
    expect(chunks).toEqual(["Hello", actionRecord({ type: "tool", name: "search_docs" }), " world", actionsRecord([{ type: "tool", name: "search_docs" }])]);
    const body = chunks.join("");
    expect(textOnly(body)).toBe("Hello world");
    expect(body.endsWith(actionsRecord([{ type: "tool", name: "search_docs" }]))).toBe(true);
    await Bun.sleep(0);
    expect(after).toEqual({ ok: true, value: "done", actions: [{ type: "tool", name: "search_docs" }] });
  });

  test("a failure after the headers ends the stream with an error record and no summary", async () => {
    let after: StreamOutcome<void> | undefined;
    const response = chatStream({
      sessionId: "s",
      agentId: "a",
      describe: describeError,
      async run(sink) {
        sink.text("Part");
        sink.action({ type: "tool", name: "t" });
        throw new Error("the model went away");
      },
      after: (o) => (after = o),
    });
    const body = (await chunksOf(response)).join("");
    expect(body.endsWith(errorRecord({ code: "llm_failed", message: "the model went away" }))).toBe(true);
    expect(body).not.toContain("__ACTIONS__");
    expect(textOnly(body)).toBe("Part");
    await Bun.sleep(0);
    expect(after?.ok).toBe(false);
    expect(after?.actions).toEqual([{ type: "tool", name: "t" }]);
  });

  test("the first text leaves before the answer ends", async () => {
    let finish!: () => void;
    const held = new Promise<void>((r) => (finish = r));
    const response = chatStream({
      sessionId: "s",
      agentId: "a",
      describe: describeError,
      async run(sink) {
        sink.text("first");
        await held;
        sink.text(" second");
      },
    });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe("first");
    finish();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(textOnly(rest)).toBe(" second");
  });

  test("a client going away aborts the answer's signal and reports an unfinished outcome", async () => {
    let signal!: AbortSignal;
    let after: StreamOutcome<void> | undefined;
    let reached!: () => void;
    const started = new Promise<void>((r) => (reached = r));
    const response = chatStream({
      sessionId: "s",
      agentId: "a",
      describe: describeError,
      async run(sink) {
        signal = sink.signal;
        sink.text("x");
        reached();
        await new Promise((_, reject) => sink.signal.addEventListener("abort", () => reject(sink.signal.reason)));
      },
      after: (o) => (after = o),
    });
    const reader = response.body!.getReader();
    await reader.read();
    await started;
    await reader.cancel();
    await Bun.sleep(0);
    expect(signal.aborted).toBe(true);
    expect(after?.ok).toBe(false);
  });

  test("over a real socket, a silence longer than the server's idle timeout does not cut the stream", async () => {
    const log = createLogger("error", () => {});
    const handler = createHandler(
      (request) =>
        chatStream({
          sessionId: "s",
          agentId: "a",
          request,
          describe: describeError,
          async run(sink) {
            sink.text("before");
            // Bun checks idle sockets every ~4 s: with idleTimeout 1 a silent response is cut by 5 s.
            await Bun.sleep(5500);
            sink.text(" after");
          },
        }),
      { log, trustProxy: false },
    );
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 1, fetch: (request, srv) => handler(request, srv) });
    try {
      const response = await fetch(`http://127.0.0.1:${server.port}/`);
      const body = await response.text();
      expect(textOnly(body)).toBe("before after");
      expect(body.endsWith(actionsRecord([]))).toBe(true);
    } finally {
      server.stop(true);
    }
  }, 15_000);

  test("asks the server that accepted the request for no idle timeout on it", () => {
    const calls: [Request, number][] = [];
    const request = new Request("http://localhost/");
    setRequestMeta(request, { id: "r", ip: "127.0.0.1", server: { timeout: (r: Request, s: number) => calls.push([r, s]) } as never });
    chatStream({ sessionId: "s", agentId: "a", request, describe: describeError, run: async () => {} });
    expect(calls).toEqual([[request, 0]]);
  });
});
