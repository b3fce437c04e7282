// Anthropic Messages API, streamed (docs/interface.md E):
//   POST {base}/v1/messages with x-api-key, anthropic-version: 2023-06-01, max_tokens (required)
//   and a top-level `system`. Events: message_start (input tokens), content_block_start (`text`,
//   or `tool_use` with id and name), content_block_delta (`text_delta`, or `input_json_delta`
//   whose partial_json concatenates to the tool input), content_block_stop, message_delta
//   (stop_reason, output tokens), message_stop (the terminator), ping, and `error` mid-stream
//   (`overloaded_error` and `api_error` are retryable). Tool results go back as `tool_result`
//   blocks in a user turn; consecutive turns of one role are merged, as the API wants
//   user/assistant alternating. A stream without message_stop is a failure, never an answer.
import { LlmError } from "./errors.ts";
import { type CallOptions, type Endpoint, endpointUrl, eventJson, postSse, toolArguments } from "./http.ts";
import type { NetworkSettings } from "./openai.ts";
import { systemPrompt } from "./prompt.ts";
import type { LlmEvent, LlmProvider, LlmRequest } from "./types.ts";

export const ANTHROPIC_VERSION = "2023-06-01";

type Block = Record<string, unknown>;

function wireMessages(request: LlmRequest) {
  const turns: { role: "user" | "assistant"; content: Block[] }[] = [];
  const push = (role: "user" | "assistant", blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const message of request.messages) {
    const text: Block[] = message.content.trim() === "" ? [] : [{ type: "text", text: message.content }];
    if (message.role === "tool") push("user", [{ type: "tool_result", tool_use_id: message.toolCallId ?? "", content: message.content }]);
    else if (message.role === "assistant")
      push("assistant", [...text, ...(message.toolCalls ?? []).map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.arguments }))]);
    else push("user", text);
  }
  // tool_result blocks must open their user turn, before any text the customer added.
  for (const turn of turns) if (turn.role === "user") turn.content.sort((a, b) => Number(b.type === "tool_result") - Number(a.type === "tool_result"));
  return turns;
}

export function anthropicBody(request: LlmRequest, settings: Pick<NetworkSettings, "model" | "maxTokens">) {
  const system = systemPrompt(request.system, request.passages);
  return {
    model: settings.model,
    max_tokens: settings.maxTokens,
    stream: true,
    ...(system ? { system } : {}),
    messages: wireMessages(request),
    ...(request.tools.length > 0
      ? { tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters })) }
      : {}),
  };
}

const STOPS: Record<string, "end" | "tool_calls" | "max_tokens"> = { end_turn: "end", stop_sequence: "end", tool_use: "tool_calls", max_tokens: "max_tokens" };

export function anthropicProvider(settings: NetworkSettings, options: Omit<CallOptions, "signal" | "timeoutMs">): LlmProvider {
  const endpoint: Endpoint = {
    url: endpointUrl(settings.baseUrl, "/v1/messages"),
    trusted: settings.trusted,
    headers: { "anthropic-version": ANTHROPIC_VERSION, ...(settings.apiKey ? { "x-api-key": settings.apiKey } : {}) },
  };
  return {
    kind: "anthropic",
    model: settings.model,
    async *stream(request): AsyncGenerator<LlmEvent> {
      const tools = new Map<number, { id: string; name: string; json: string; initial: Record<string, unknown> }>();
      let input = 0;
      let output = 0;
      let stop: string | null = null;
      let calls = 0;
      for await (const event of postSse(endpoint, anthropicBody(request, settings), { ...options, signal: request.signal, timeoutMs: settings.timeoutMs })) {
        const data = eventJson(event);
        switch (data.type) {
          case "message_start": {
            const usage = (data.message as { usage?: { input_tokens?: unknown; output_tokens?: unknown } } | undefined)?.usage;
            if (typeof usage?.input_tokens === "number") input = usage.input_tokens;
            if (typeof usage?.output_tokens === "number") output = usage.output_tokens;
            break;
          }
          case "content_block_start": {
            const block = data.content_block as { type?: unknown; id?: unknown; name?: unknown; text?: unknown; input?: unknown } | undefined;
            const input = block?.input && typeof block.input === "object" && !Array.isArray(block.input) ? (block.input as Record<string, unknown>) : {};
            if (block?.type === "tool_use")
              tools.set(Number(data.index), { id: String(block.id ?? ""), name: String(block.name ?? ""), json: "", initial: input });
            else if (block?.type === "text" && typeof block.text === "string" && block.text !== "") yield { type: "text", text: block.text };
            break;
          }
          case "content_block_delta": {
            const delta = data.delta as { type?: unknown; text?: unknown; partial_json?: unknown } | undefined;
            if (delta?.type === "text_delta" && typeof delta.text === "string" && delta.text !== "") yield { type: "text", text: delta.text };
            else if (delta?.type === "input_json_delta" && typeof delta.partial_json === "string") {
              const tool = tools.get(Number(data.index));
              if (tool) tool.json += delta.partial_json;
            }
            break;
          }
          case "content_block_stop": {
            const tool = tools.get(Number(data.index));
            if (tool) {
              tools.delete(Number(data.index));
              calls++;
              // Anthropic streams the input as input_json_delta after an empty `input`; a compatible
              // server that sends the whole input in content_block_start is read from there.
              yield { type: "tool_call", id: tool.id, name: tool.name, arguments: tool.json === "" ? tool.initial : toolArguments(tool.json, tool.name) };
            }
            break;
          }
          case "message_delta": {
            const delta = data.delta as { stop_reason?: unknown } | undefined;
            if (typeof delta?.stop_reason === "string") stop = delta.stop_reason;
            const usage = data.usage as { output_tokens?: unknown } | undefined;
            if (typeof usage?.output_tokens === "number") output = usage.output_tokens;
            break;
          }
          case "message_stop":
            yield { type: "done", stop: calls > 0 ? "tool_calls" : (STOPS[stop ?? "end_turn"] ?? "end"), usage: { input, output } };
            return;
          case "error": {
            const error = data.error as { type?: unknown; message?: unknown } | undefined;
            const kind = typeof error?.type === "string" ? error.type : "error";
            const retryable = kind === "overloaded_error" || kind === "api_error" || kind === "rate_limit_error";
            throw new LlmError(
              `the model failed mid-answer: ${kind}${typeof error?.message === "string" ? `: ${error.message.slice(0, 300)}` : ""}`,
              retryable,
              undefined,
              "stream_error",
            );
          }
          default:
            break; // ping, and event types added later, are ignored (the API's versioning policy)
        }
      }
      throw new LlmError("the model's stream ended before message_stop", true, undefined, "stream_cut");
    },
  };
}
