// The OpenAI-compatible adapter against a fake Chat Completions server speaking the real
// streaming wire format (docs/interface.md E).
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { LlmError } from "../../../src/agents/llm/errors.ts";
import { fakeOpenAi } from "../../support/fake-llm.ts";
import { collect, providerOn, request, textOf } from "./helpers.ts";

const fake = await fakeOpenAi();
afterAll(() => fake.close());
beforeEach(() => fake.reset());

describe("openai adapter", () => {
  test("streams text deltas and ends with done, usage recorded; the request is a streamed Chat Completions call", async () => {
    fake.enqueue({ steps: [{ text: "Open " }, { text: "Settings" }, { text: "." }], usage: { input: 42, output: 3 } });
    const { events, error } = await collect(
      providerOn(fake),
      request({
        passages: [{ docId: "d1", title: "Resetting your password", url: "https://help.example/reset", text: "Open Settings.", score: 1 }],
        tools: [{ name: "mcp__github__create_issue", description: "Create an issue", parameters: { type: "object", properties: {} } }],
      }),
    );
    expect(error).toBeUndefined();
    expect(events.filter((e) => e.type === "text").length).toBe(3);
    expect(textOf(events)).toBe("Open Settings.");
    expect(events.at(-1)).toEqual({ type: "done", stop: "end", usage: { input: 42, output: 3 } });
    const [sent] = fake.requests;
    expect(sent!.path).toBe("/v1/chat/completions");
    expect(sent!.headers.authorization).toBe("Bearer sk-test");
    expect(sent!.body).toMatchObject({ model: "test-model", stream: true, stream_options: { include_usage: true }, max_tokens: 256 });
    expect(sent!.body.messages[0].role).toBe("system");
    expect(sent!.body.messages[0].content).toContain("You are a support agent.");
    expect(sent!.body.messages[0].content).toContain("[1] Resetting your password <https://help.example/reset>");
    expect(sent!.body.messages[1]).toEqual({ role: "user", content: "How do I reset my password?" });
    expect(sent!.body.tools).toEqual([
      { type: "function", function: { name: "mcp__github__create_issue", description: "Create an issue", parameters: { type: "object", properties: {} } } },
    ]);
  });

  test("the endpoint path goes before a base URL's query (gateways that want ?api-version=)", async () => {
    fake.enqueue({ steps: [{ text: "ok" }] });
    const { error } = await collect(providerOn(fake, { baseUrl: `${fake.baseUrl}/?api-version=2025-01-01` }));
    expect(error).toBeUndefined();
    expect(fake.requests[0]!.path).toBe("/v1/chat/completions");
  });

  test("a tool call split across fragments is assembled by index; the result goes back as a tool message", async () => {
    fake.enqueue({ steps: [{ text: "Let me look." }, { tool: { name: "search_docs", arguments: { query: "reset password", limit: 3 }, fragments: 5 } }] });
    const first = await collect(providerOn(fake));
    expect(first.error).toBeUndefined();
    expect(first.events).toEqual([
      { type: "text", text: "Let me look." },
      { type: "tool_call", id: "call_1", name: "search_docs", arguments: { query: "reset password", limit: 3 } },
      { type: "done", stop: "tool_calls", usage: { input: 11, output: 7 } },
    ]);
    fake.enqueue({ steps: [{ text: "Done." }] });
    const second = await collect(
      providerOn(fake),
      request({
        messages: [
          { role: "user", content: "How do I reset my password?" },
          { role: "assistant", content: "Let me look.", toolCalls: [{ id: "call_1", name: "search_docs", arguments: { query: "reset password", limit: 3 } }] },
          { role: "tool", toolCallId: "call_1", content: '{"hits":[]}' },
        ],
      }),
    );
    expect(textOf(second.events)).toBe("Done.");
    expect(fake.requests[1]!.body.messages.slice(1)).toEqual([
      { role: "user", content: "How do I reset my password?" },
      {
        role: "assistant",
        content: "Let me look.",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "search_docs", arguments: '{"query":"reset password","limit":3}' } }],
      },
      { role: "tool", tool_call_id: "call_1", content: '{"hits":[]}' },
    ]);
  });

  test("two parallel tool calls at different indexes stay apart", async () => {
    fake.enqueue({ steps: [{ tool: { name: "a", arguments: { x: 1 }, fragments: 3 } }, { tool: { name: "b", arguments: { y: 2 }, fragments: 2 } }] });
    const { events } = await collect(providerOn(fake));
    expect(events.filter((e) => e.type === "tool_call")).toEqual([
      { type: "tool_call", id: "call_1", name: "a", arguments: { x: 1 } },
      { type: "tool_call", id: "call_2", name: "b", arguments: { y: 2 } },
    ]);
  });

  test("Ollama-style: several calls all at index 0 are kept apart by their ids", async () => {
    fake.enqueue({
      ollama: true,
      steps: [{ tool: { name: "a", arguments: { x: 1 }, id: "call_a" } }, { tool: { name: "b", arguments: { y: 2 }, id: "call_b" } }],
    });
    const { events } = await collect(providerOn(fake));
    expect(events.filter((e) => e.type === "tool_call")).toEqual([
      { type: "tool_call", id: "call_a", name: "a", arguments: { x: 1 } },
      { type: "tool_call", id: "call_b", name: "b", arguments: { y: 2 } },
    ]);
    expect(events.at(-1)).toMatchObject({ type: "done", stop: "tool_calls" });
  });

  test("an error event mid-stream is an LlmError after the text already streamed", async () => {
    fake.enqueue({ steps: [{ text: "Partial answer" }], end: "error" });
    const { events, error } = await collect(providerOn(fake));
    expect(textOf(events)).toBe("Partial answer");
    expect(events.some((e) => e.type === "done")).toBe(false);
    expect(error).toBeInstanceOf(LlmError);
    expect(error.code).toBe("stream_error");
  });

  test("a stream that ends without [DONE] is a failure, not an answer", async () => {
    fake.enqueue({ steps: [{ text: "Looks complete" }], end: "no-terminator" });
    const { events, error } = await collect(providerOn(fake));
    expect(events.some((e) => e.type === "done")).toBe(false);
    expect(error).toBeInstanceOf(LlmError);
    expect(error.code).toBe("stream_cut");
  });

  test("a connection broken mid-body is a failure", async () => {
    fake.enqueue({ steps: [{ text: "Half" }], end: "cut" });
    const { events, error } = await collect(providerOn(fake));
    expect(events.some((e) => e.type === "done")).toBe(false);
    expect(error).toBeInstanceOf(LlmError);
    expect(error.retryable).toBe(true);
  });

  test("a server that ignores stream: true and answers JSON is a clear non-retryable failure", async () => {
    fake.enqueue({ status: 200, body: { choices: [{ message: { role: "assistant", content: "whole" } }] } });
    const { error } = await collect(providerOn(fake));
    expect(error).toBeInstanceOf(LlmError);
    expect(error.code).toBe("bad_response");
    expect(error.retryable).toBe(false);
    expect(fake.requests.length).toBe(1);
  });

  test("429 with Retry-After is retried once, after the wait it names", async () => {
    fake.enqueue({ status: 429, headers: { "retry-after": "1" } }, { steps: [{ text: "ok" }] });
    const started = performance.now();
    const { events, error } = await collect(providerOn(fake));
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe("ok");
    expect(fake.requests.length).toBe(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });

  test("a second 5xx is not retried again: LlmError with the status", async () => {
    fake.enqueue({ status: 503, headers: { "retry-after": "0" } }, { status: 500, headers: { "retry-after": "0" } }, { steps: [{ text: "never" }] });
    const { error } = await collect(providerOn(fake));
    expect(error).toBeInstanceOf(LlmError);
    expect(error.status).toBe(500);
    expect(fake.requests.length).toBe(2);
  });

  test("other 4xx are not retried, and the error names the server's message but never the key", async () => {
    fake.apiKey = "sk-right";
    fake.enqueue({ steps: [{ text: "never" }] });
    const { error } = await collect(providerOn(fake, { apiKey: "sk-wrong" }));
    expect(error).toBeInstanceOf(LlmError);
    expect(error.status).toBe(401);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("authentication_error");
    expect(error.message).not.toContain("sk-wrong");
    expect(fake.requests.length).toBe(1);
  });

  test("a Retry-After longer than the deadline fails at once instead of sleeping into a timeout", async () => {
    fake.enqueue({ status: 429, headers: { "retry-after": "30" } });
    const started = performance.now();
    const { error } = await collect(providerOn(fake, { timeoutMs: 2000 }));
    expect(error.status).toBe(429);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(fake.requests.length).toBe(1);
  });

  test("the deadline is total: a model that stalls mid-stream is cut with a timeout LlmError", async () => {
    let release!: () => void;
    fake.enqueue({ steps: [{ text: "slow" }, { until: new Promise<void>((r) => (release = r)) }, { text: "never" }] });
    const { events, error } = await collect(providerOn(fake, { timeoutMs: 300 }));
    release();
    expect(textOf(events)).toBe("slow");
    expect(error).toBeInstanceOf(LlmError);
    expect(error.code).toBe("timeout");
  });

  test("an org's URL goes through the outbound guard: loopback is refused outside development", async () => {
    const { anthropicProvider } = await import("../../../src/agents/llm/anthropic.ts");
    const { openAiProvider } = await import("../../../src/agents/llm/openai.ts");
    const settings = { baseUrl: fake.baseUrl, model: "m", trusted: false, maxTokens: 10, timeoutMs: 2000 };
    const guard = { allowLoopback: false, resolver: async () => ["127.0.0.1"] };
    for (const provider of [openAiProvider(settings, { deps: { guard } }), anthropicProvider(settings, { deps: { guard } })]) {
      const { error } = await collect(provider);
      expect(error).toBeInstanceOf(LlmError);
      expect(error.code).toBe("blocked_url");
    }
    expect(fake.requests.length).toBe(0);
  });
});
