// OpenAI-compatible Chat Completions (OpenAI, Azure-style gateways, Ollama, vLLM, llama.cpp
// server), streamed (docs/interface.md E):
//   POST {base}/chat/completions, Authorization: Bearer, stream: true and
//   stream_options.include_usage, answered by `data:` events ending with `data: [DONE]`.
// Tool calls arrive as `delta.tool_calls[]` fragments whose `function.arguments` concatenate.
// A fragment names its call by `index`, and the first fragment of a call carries its `id`;
// Ollama sends several complete calls all at index 0 with distinct ids, so a fragment with an
// id we have not seen starts a new call even at a used index, and a fragment without an id
// continues the last call seen at its index. Results go back as {role: "tool", tool_call_id}.
// A stream that ends before [DONE] is a failure (LlmError "stream_cut"), never an answer.
import { LlmError } from "./errors.ts";
import { type CallOptions, type Endpoint, endpointUrl, eventJson, postSse, toolArguments } from "./http.ts";
import { systemPrompt } from "./prompt.ts";
import type { LlmEvent, LlmProvider, LlmRequest } from "./types.ts";

export interface NetworkSettings {
  baseUrl: string;
  apiKey?: string;
  model: string;
  trusted: boolean;
  maxTokens: number;
  timeoutMs: number;
}

function wireMessages(request: LlmRequest) {
  const system = systemPrompt(request.system, request.passages);
  const out: Record<string, unknown>[] = system ? [{ role: "system", content: system }] : [];
  for (const message of request.messages) {
    if (message.role === "tool") out.push({ role: "tool", tool_call_id: message.toolCallId ?? "", content: message.content });
    else if (message.role === "assistant" && message.toolCalls?.length)
      out.push({
        role: "assistant",
        content: message.content === "" ? null : message.content,
        tool_calls: message.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.arguments) } })),
      });
    else out.push({ role: message.role, content: message.content });
  }
  return out;
}

export function openAiBody(request: LlmRequest, settings: Pick<NetworkSettings, "model" | "maxTokens">) {
  return {
    model: settings.model,
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: settings.maxTokens,
    messages: wireMessages(request),
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
        }
      : {}),
  };
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

interface ToolCallFragment {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

const STOPS: Record<string, "end" | "tool_calls" | "max_tokens"> = {
  stop: "end",
  tool_calls: "tool_calls",
  function_call: "tool_calls",
  length: "max_tokens",
  content_filter: "end",
};

export function openAiProvider(settings: NetworkSettings, options: Omit<CallOptions, "signal" | "timeoutMs">): LlmProvider {
  const endpoint: Endpoint = {
    url: endpointUrl(settings.baseUrl, "/chat/completions"),
    trusted: settings.trusted,
    headers: settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {},
  };
  return {
    kind: "openai",
    model: settings.model,
    async *stream(request): AsyncGenerator<LlmEvent> {
      const calls: PendingCall[] = [];
      const byId = new Map<string, PendingCall>();
      const byIndex = new Map<number, PendingCall>();
      let finish: string | null = null;
      let usage: { input: number; output: number } | undefined;
      for await (const event of postSse(endpoint, openAiBody(request, settings), { ...options, signal: request.signal, timeoutMs: settings.timeoutMs })) {
        if (event.data.trim() === "[DONE]") {
          for (const call of calls) yield { type: "tool_call", id: call.id, name: call.name, arguments: toolArguments(call.arguments, call.name) };
          const stop = calls.length > 0 ? "tool_calls" : (STOPS[finish ?? "stop"] ?? "end");
          yield { type: "done", stop, ...(usage ? { usage } : {}) };
          return;
        }
        const chunk = eventJson(event);
        if (chunk.error !== undefined) {
          const error = chunk.error as { message?: unknown };
          throw new LlmError(
            `the model failed mid-answer: ${typeof error?.message === "string" ? error.message.slice(0, 300) : "error event"}`,
            true,
            undefined,
            "stream_error",
          );
        }
        const u = chunk.usage as { prompt_tokens?: unknown; completion_tokens?: unknown } | null | undefined;
        if (u && typeof u.prompt_tokens === "number" && typeof u.completion_tokens === "number")
          usage = { input: u.prompt_tokens, output: u.completion_tokens };
        const choice = (Array.isArray(chunk.choices) ? chunk.choices[0] : undefined) as
          | { delta?: { content?: unknown; tool_calls?: ToolCallFragment[] }; finish_reason?: unknown }
          | undefined;
        if (!choice) continue;
        const delta = choice.delta ?? {};
        if (typeof delta.content === "string" && delta.content !== "") yield { type: "text", text: delta.content };
        for (const fragment of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
          const index = typeof fragment.index === "number" ? fragment.index : 0;
          let call = fragment.id ? byId.get(fragment.id) : byIndex.get(index);
          if (!call) {
            call = { id: fragment.id || `call_${calls.length + 1}`, name: "", arguments: "" };
            calls.push(call);
            byId.set(call.id, call);
          }
          byIndex.set(index, call);
          const name = fragment.function?.name;
          if (name && call.name !== name) call.name += name;
          if (typeof fragment.function?.arguments === "string") call.arguments += fragment.function.arguments;
        }
        if (typeof choice.finish_reason === "string") finish = choice.finish_reason;
      }
      throw new LlmError("the model's stream ended before [DONE]", true, undefined, "stream_cut");
    },
  };
}
