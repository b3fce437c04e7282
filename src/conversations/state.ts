// Per-process state of the chat, carried in `deps.chat` (built by buildDeps; no module-level state).
export interface ChatState {
  /** Reply writes still pending after a stream, per conversation (src/conversations/transcript.ts). */
  pendingReplies: Map<string, Promise<void>>;
}

export function createChatState(): ChatState {
  return { pendingReplies: new Map() };
}
