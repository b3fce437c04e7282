// The Anthropic Messages adapter against a fake server speaking the real streaming events
// (docs/interface.md E).
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { LlmError } from "../../../src/agents/llm/errors.ts";
import { fakeAnthropic } from "../../support/fake-llm.ts";
import { collect, providerOn, request, textOf } from "./helpers.ts";

const fake = await fakeAnthropic();
afterAll(() => fake.close());
beforeEach(() => fake.reset());

describe("anthropic adapter", () => {
  test("streams text deltas, skips pings, ends at message_stop with usage; headers, top-level system and max_tokens are sent", async () => {
    fake.enqueue({ steps: [{ text: "Open " }, { text: "Settings." }], usage: { input: 30, output: 4 } });
    const { events, error } = await collect(
      providerOn(fake),
      request({ passages: [{ docId: "d1", title: "Resetting your password", url: null, text: "Open Settings.", score: 1 }] }),
    );
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: "text", text: "Open " },
      { type: "text", text: "Settings." },
      { type: "done", stop: "end", usage: { input: 30, output: 4 } },
    ]);
    const [sent] = fake.requests;
    expect(sent!.path).toBe("/v1/messages");
    expect(sent!.headers["x-api-key"]).toBe("sk-test");
    expect(sent!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(sent!.headers.authorization).toBeUndefined();
    expect(sent!.body).toMatchObject({ model: "test-model", max_tokens: 256, stream: true });
    expect(sent!.body.system).toContain("You are a support agent.");
    expect(sent!.body.system).toContain("[1] Resetting your password\nOpen Settings.");
    expect(sent!.body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "How do I reset my password?" }] }]);
    expect(sent!.body.tools).toBeUndefined();
  });

  test("a tool_use block with input_json_delta fragments becomes one tool call; results go back as tool_result blocks in a user turn", async () => {
    fake.enqueue({ steps: [{ text: "Searching." }, { tool: { name: "search_docs", id: "toolu_1", arguments: { query: "reset password" }, fragments: 4 } }] });
    const tools = [{ name: "search_docs", description: "Search", parameters: { type: "object", properties: { query: { type: "string" } } } }];
    const first = await collect(providerOn(fake), request({ tools }));
    expect(first.error).toBeUndefined();
    expect(first.events).toEqual([
      { type: "text", text: "Searching." },
      { type: "tool_call", id: "toolu_1", name: "search_docs", arguments: { query: "reset password" } },
      { type: "done", stop: "tool_calls", usage: { input: 11, output: 7 } },
    ]);
    expect(fake.requests[0]!.body.tools).toEqual([{ name: "search_docs", description: "Search", input_schema: tools[0]!.parameters }]);

    fake.enqueue({ steps: [{ text: "Found it." }] });
    const second = await collect(
      providerOn(fake),
      request({
        tools,
        messages: [
          { role: "user", content: "How do I reset my password?" },
          { role: "assistant", content: "Searching.", toolCalls: [{ id: "toolu_1", name: "search_docs", arguments: { query: "reset password" } }] },
          { role: "tool", toolCallId: "toolu_1", content: '{"hits":1}' },
        ],
      }),
    );
    expect(textOf(second.events)).toBe("Found it.");
    expect(fake.requests[1]!.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "How do I reset my password?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Searching." },
          { type: "tool_use", id: "toolu_1", name: "search_docs", input: { query: "reset password" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: '{"hits":1}' }] },
    ]);
  });

  test("an overloaded_error event mid-stream is a retryable LlmError after the text already streamed", async () => {
    fake.enqueue({ steps: [{ text: "Partial" }], end: "error" });
    const { events, error } = await collect(providerOn(fake));
    expect(textOf(events)).toBe("Partial");
    expect(events.some((e) => e.type === "done")).toBe(false);
    expect(error).toBeInstanceOf(LlmError);
    expect(error.code).toBe("stream_error");
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("overloaded_error");
  });

  test("a stream without message_stop is a failure", async () => {
    fake.enqueue({ steps: [{ text: "Looks complete" }], end: "no-terminator" });
    const { events, error } = await collect(providerOn(fake));
    expect(events.some((e) => e.type === "done")).toBe(false);
    expect(error.code).toBe("stream_cut");
  });

  test("the deadline follows deps.timers: firing it mid-stream ends the answer with a timeout LlmError", async () => {
    const fired = new AbortController();
    let asked = 0;
    const timers = {
      deadline: (ms: number) => {
        asked = ms;
        return fired.signal;
      },
    };
    let release!: () => void;
    fake.enqueue({ steps: [{ text: "thinking" }, { until: new Promise<void>((r) => (release = r)) }, { text: "never" }] });
    const events: string[] = [];
    let error: any;
    try {
      for await (const event of providerOn(fake, { timeoutMs: 60_000 }, timers).stream(request())) {
        if (event.type === "text") events.push(event.text);
        fired.abort(new DOMException("The operation timed out.", "TimeoutError"));
      }
    } catch (e) {
      error = e;
    }
    release();
    expect(asked).toBe(60_000);
    expect(events).toEqual(["thinking"]);
    expect(error).toBeInstanceOf(LlmError);
    expect(error.code).toBe("timeout");
    expect(error.message).toContain("60 s");
  });

  test("529 overloaded is retried once", async () => {
    fake.enqueue({ status: 529, headers: { "retry-after": "0" } }, { steps: [{ text: "ok" }] });
    const { events, error } = await collect(providerOn(fake));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe("ok");
    expect(fake.requests.length).toBe(2);
  });

  test("400 is not retried", async () => {
    fake.enqueue({ status: 400 }, { steps: [{ text: "never" }] });
    const { error } = await collect(providerOn(fake));
    expect(error.status).toBe(400);
    expect(error.retryable).toBe(false);
    expect(fake.requests.length).toBe(1);
  });

  test("a compatible server that sends the whole tool input in content_block_start (no deltas) is understood", async () => {
    const events = [
      ["message_start", { message: { usage: { input_tokens: 3, output_tokens: 1 } } }],
      ["content_block_start", { index: 0, content_block: { type: "tool_use", id: "toolu_x", name: "lookup", input: { order: 42 } } }],
      ["content_block_stop", { index: 0 }],
      ["message_delta", { delta: { stop_reason: "tool_use" }, usage: { output_tokens: 5 } }],
      ["message_stop", {}],
    ] as const;
    const raw = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(events.map(([type, data]) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`).join(""), {
          headers: { "content-type": "text/event-stream" },
        }),
    });
    try {
      const { events: got, error } = await collect(providerOn({ ...fake, baseUrl: `http://127.0.0.1:${raw.port}` }));
      expect(error).toBeUndefined();
      expect(got).toEqual([
        { type: "tool_call", id: "toolu_x", name: "lookup", arguments: { order: 42 } },
        { type: "done", stop: "tool_calls", usage: { input: 3, output: 5 } },
      ]);
    } finally {
      await raw.stop(true);
    }
  });

  test("consecutive turns of one role are merged and empty text is not sent", async () => {
    fake.enqueue({ steps: [{ text: "ok" }] });
    await collect(
      providerOn(fake),
      request({
        messages: [
          { role: "user", content: "first" },
          { role: "user", content: "second" },
          {
            role: "assistant",
            content: "",
            toolCalls: [
              { id: "t1", name: "a", arguments: {} },
              { id: "t2", name: "b", arguments: {} },
            ],
          },
          { role: "tool", toolCallId: "t1", content: "r1" },
          { role: "tool", toolCallId: "t2", content: "r2" },
        ],
      }),
    );
    expect(fake.requests[0]!.body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "first" },
          { type: "text", text: "second" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "t1", name: "a", input: {} },
          { type: "tool_use", id: "t2", name: "b", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: "r1" },
          { type: "tool_result", tool_use_id: "t2", content: "r2" },
        ],
      },
    ]);
  });
});
