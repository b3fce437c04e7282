// Answer, the pipeline's third stage: the model gets the agent's
// instructions, the customer's trusted traits, the session history, the retrieved passages and the
// agent's enabled actions as tools; tool calls run through the tool runtime (validation, caps,
// audit: src/tools/runtime.ts) bound to the chatting customer, and each one becomes an action. At most
// ANSWER.toolRounds rounds of tool calls; after that the model is asked once more to answer without
// calling tools (calls it makes then are not run), so an answer always ends in text.
import type { MessageSource } from "../../db/schema/index.ts";
import { AppError } from "../../errors.ts";
import type { ToolInfo, ToolResult } from "../../ports/tools.ts";
import { ToolNameMap } from "../llm/names.ts";
import type { LlmMessage, LlmProvider, LlmTool, Passage, Say } from "../llm/types.ts";
import { t } from "../../i18n/catalogue.ts";

export const ANSWER = {
  /** Rounds in which the model may call tools; the next request offers none. */
  toolRounds: 3,
  /** Tool calls run per round; further ones are answered "not run". */
  callsPerRound: 5,
  /** A tool result is cut to this many characters before the model sees it. */
  toolResultChars: 12_000,
} as const;

// not for customers: an instruction to the model
const LAST_ROUND = "You have used every tool call allowed for this message. Answer the customer now with what you have; do not call tools.";
/** What a model that said nothing leaves the customer, in English (the catalogue's `agent.nothing_said`). */
export const NOTHING_SAID = t("en", "agent.nothing_said");

/** An action record of a tool call (docs/interface.md 2.6 `actions`; its shape is ours: docs/decisions.md). */
export interface ToolAction {
  type: "tool";
  name: string;
  status: "succeeded" | "failed";
  error?: { code: string; message: string };
}

export interface AnswerInput {
  provider: LlmProvider;
  system: string;
  messages: LlmMessage[];
  passages: Passage[];
  /** What the agent may call in this chat (already filtered for the channel and customer). */
  tools: readonly ToolInfo[];
  /** Runs one tool through the runtime, bound to the chat's scope; throws AppError. */
  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  signal: AbortSignal;
  /** The customer's language and the catalogue's sentences in it (README "Languages"); English when absent. */
  language?: string;
  say?: Say;
  /** Where text and actions go as they are produced (the stream, or a collector). */
  emit: { text(text: string): void; action(action: unknown): void };
}

export interface AnswerResult {
  text: string;
  toolCalls: number;
  toolFailures: number;
  /** Documents the tools returned (search_docs, read_doc). */
  toolSources: MessageSource[];
  stop: "end" | "tool_calls" | "max_tokens";
  /** False when the provider said it found no answer (as data: its `done` event), or said nothing at all. */
  answered: boolean;
  /** The document a no-answer reply named as the closest, if any. */
  closest?: string;
}

function cut(text: string, max: number) {
  return text.length > max ? `${text.slice(0, max)}… [cut at ${max} characters]` : text;
}

/** Documents a knowledge-base tool returned, as sources. */
function sourcesOf(name: string, result: ToolResult): MessageSource[] {
  const value = result.value as Record<string, unknown> | null;
  if (!value || typeof value !== "object" || result.isError) return [];
  const one = (d: Record<string, unknown>): MessageSource[] =>
    typeof d.id === "string" && typeof d.title === "string" ? [{ doc_id: d.id, title: d.title, url: typeof d.url === "string" ? d.url : null }] : [];
  if (name === "read_doc") return one(value);
  if (name === "search_docs" && Array.isArray(value.results)) return (value.results as Record<string, unknown>[]).flatMap(one);
  return [];
}

export async function answer(input: AnswerInput): Promise<AnswerResult> {
  const names = new ToolNameMap(input.tools.map((t) => t.name));
  const offered: LlmTool[] = input.tools.map((t) => ({ name: names.toProvider(t.name), description: t.description, parameters: t.inputSchema }));
  const messages = [...input.messages];
  const result: AnswerResult = { text: "", toolCalls: 0, toolFailures: 0, toolSources: [], stop: "end", answered: true };

  for (let round = 0; ; round++) {
    // The last round still lists the tools (Anthropic refuses tool_use history without them) but
    // tells the model to answer; a call it makes anyway is not run.
    const last = round >= ANSWER.toolRounds;
    const system = last ? `${input.system}\n\n${LAST_ROUND}` : input.system;
    let text = "";
    const calls: { id: string; name: string; arguments: Record<string, unknown> }[] = [];
    for await (const event of input.provider.stream({
      system,
      messages,
      tools: offered,
      passages: input.passages,
      signal: input.signal,
      ...(input.language ? { language: input.language } : {}),
      ...(input.say ? { say: input.say } : {}),
    })) {
      if (event.type === "text") {
        const clean = event.text.replace(/\x1e/g, "");
        text += clean;
        input.emit.text(clean);
      } else if (event.type === "tool_call") calls.push(event);
      else {
        result.stop = event.stop;
        result.answered = event.answered !== false;
        if (event.closest) result.closest = event.closest;
      }
    }
    result.text += text;
    if (calls.length === 0 || last) {
      // A model that said nothing (or only asked for more tools) still leaves the customer an answer.
      if (result.text.trim() === "") {
        const nothing = input.say ? input.say("agent.nothing_said") : NOTHING_SAID;
        input.emit.text(nothing);
        result.text = nothing;
        result.answered = false;
      }
      return result;
    }

    messages.push({ role: "assistant", content: text, toolCalls: calls });
    for (const [i, call] of calls.entries()) {
      const name = names.toOriginal(call.name);
      let content: string;
      if (i >= ANSWER.callsPerRound)
        content = JSON.stringify({ error: `not run: at most ${ANSWER.callsPerRound} tool calls per turn` }); // not for customers: to the model
      else if (name === null) {
        content = JSON.stringify({ error: `unknown tool ${call.name}` });
        result.toolFailures++;
        result.toolCalls++;
        input.emit.action({
          type: "tool",
          name: call.name.slice(0, 64),
          status: "failed",
          error: { code: "not_found", message: "The model asked for a tool it was not offered." }, // not for customers: the action's diagnosis
        } satisfies ToolAction);
      } else {
        result.toolCalls++;
        try {
          const ran = await input.callTool(name, call.arguments);
          content = cut(JSON.stringify(ran.isError ? { error: ran.value } : ran.value) ?? "null", ANSWER.toolResultChars);
          if (ran.isError) result.toolFailures++;
          else result.toolSources.push(...sourcesOf(name, ran));
          input.emit.action({
            type: "tool",
            name,
            status: ran.isError ? "failed" : "succeeded",
            ...(ran.isError ? { error: { code: "tool_error", message: "The tool reported a failure." } } : {}), // not for customers: the action's diagnosis
          } satisfies ToolAction);
        } catch (error) {
          if (input.signal.aborted) throw error;
          const failure = error instanceof AppError ? error : AppError.toolFailed(`${name} failed.`);
          result.toolFailures++;
          content = JSON.stringify({ error: { code: failure.code, message: failure.message } });
          input.emit.action({ type: "tool", name, status: "failed", error: { code: failure.code, message: failure.message } } satisfies ToolAction);
        }
      }
      messages.push({ role: "tool", content, toolCallId: call.id });
    }
  }
}
