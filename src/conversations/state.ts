// Per-process state of the chat, carried in `deps.chat` (built by buildDeps; no module-level state).
export interface ChatState {
  /** Knowledge passages per document version `${id}:${updatedAt}`, least recently used first (src/agents/pipeline/knowledge.ts). */
  passages: Map<string, string[]>;
  /** Reply writes still pending after a stream, per conversation (src/conversations/transcript.ts). */
  pendingReplies: Map<string, Promise<void>>;
}

export function createChatState(): ChatState {
  return { passages: new Map(), pendingReplies: new Map() };
}
