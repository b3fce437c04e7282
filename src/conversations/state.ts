// Per-process state of the chat, carried in `deps.chat` (built by buildDeps; no module-level state).
/** A document's passage with the stemmed words of its title and text (for term coverage). */
export interface CachedPassage {
  text: string;
  stems: ReadonlySet<string>;
}

export interface ChatState {
  /** Knowledge passages per document version `${id}:${updatedAt}`, least recently used first (src/agents/pipeline/knowledge.ts). */
  passages: Map<string, CachedPassage[]>;
  /** Reply writes still pending after a stream, per conversation (src/conversations/transcript.ts). */
  pendingReplies: Map<string, Promise<void>>;
}

export function createChatState(): ChatState {
  return { passages: new Map(), pendingReplies: new Map() };
}
