// The one interface between the chat pipeline and a language model (README "LLM providers",
// docs/interface.md E). A provider turns a request — instructions, the conversation, the agent's tools and
// the knowledge-base passages retrieved for this turn — into a stream of events. Three adapters
// implement it: `builtin` (extractive, no network), `openai` (Chat Completions) and `anthropic`
// (Messages). Providers never execute tools: a `tool_call` event ends the turn with
// `done.stop = "tool_calls"`; the pipeline runs the tools and calls `stream` again with the
// results appended as `tool` messages.

import type { MessageKey, Params } from "../../i18n/catalogue.ts";

/** One sentence of the catalogue in the customer's language (src/i18n/, src/texts/ `Texts.t`). */
export type Say = (key: MessageKey, params?: Params) => string;

/** One turn of the conversation as the model sees it. */
export interface LlmMessage {
  role: "user" | "assistant" | "tool";
  content: string;
  /** On an assistant turn: the tools it asked for (names are provider-safe, see names.ts). */
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> }[];
  /** On a tool turn: the id of the call this is the result of. */
  toolCallId?: string;
}

/** A tool offered to the model. `name` is provider-safe (no dots): map `mcp.a.b` with names.ts (docs/interface.md B.11). */
export interface LlmTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: Record<string, unknown>;
}

/** A knowledge-base passage retrieved for this turn; `score` is higher for better matches. */
export interface Passage {
  docId: string;
  title: string;
  url: string | null;
  text: string;
  score: number;
  /** The stemmed words of title and text (src/kit/words.ts), when retrieval has them cached: the builtin provider then need not stem the passage again. */
  stems?: ReadonlySet<string>;
  /** The share (0–1) of the question's weighted rare terms the passage holds, when retrieval measured it. */
  coverage?: number;
  /**
   * How likely (0–1) the knowledge base holds an answer to the question at all, when retrieval
   * measured it (src/agents/pipeline/confidence.ts `heldOf`); the same for every passage of one question.
   */
  held?: number;
}

export interface LlmRequest {
  /** The agent's instructions and anything else the pipeline puts before the conversation. */
  system: string;
  messages: LlmMessage[];
  tools: LlmTool[];
  passages: Passage[];
  /** Aborts the request (client gone, pipeline deadline). */
  signal: AbortSignal;
  /** The customer's language (ISO 639-1): the builtin provider's own sentences are in it (README "Languages"). */
  language?: string;
  /** The sentences of the catalogue in that language, the org's overrides applied; English when absent. */
  say?: Say;
}

export type LlmEvent =
  | { type: "text"; text: string }
  | { type: "tool_call"; id: string; name: string; arguments: Record<string, unknown> }
  /**
   * Always the last event of a successful stream; a stream that ends without it failed (LlmError).
   * `answered: false`: the provider found no answer and said so (the builtin's "no answer"), as data,
   * never read back from the text; `closest` then names the document it pointed to, if any.
   */
  | { type: "done"; stop: "end" | "tool_calls" | "max_tokens"; usage?: { input: number; output: number }; answered?: boolean; closest?: string };

export type ProviderKind = "builtin" | "openai" | "anthropic";

export interface LlmProvider {
  kind: ProviderKind;
  model: string;
  /** Throws LlmError on failure (before the first event or mid-stream). */
  stream(request: LlmRequest): AsyncIterable<LlmEvent>;
}
