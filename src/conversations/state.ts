// Per-process state of the chat, carried in `deps.chat` (built by the composition root; no module-level state).
import type { ChatState } from "../ports/caches.ts";

export function createChatState(): ChatState {
  return { pendingReplies: new Map() };
}
