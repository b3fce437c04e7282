// The order of a conversation's reply writes (src/agents/turn.ts stores them through it).
import type { Conversation } from "../conversations/sessions.ts";
import { sha256Hex } from "../crypto/tokens.ts";
import type { Deps } from "../deps.ts";
import type { ChatState } from "../ports/caches.ts";

export function createChatState(): ChatState {
  return { pendingReplies: new Map() };
}

/** Runs `write` after any pending write of the same conversation; its failure is the caller's. */
export function writeReply(chat: ChatState, conversation: Pick<Conversation, "id">, sessionId: string, write: () => Promise<void>): Promise<void> {
  const pending = chat.pendingReplies;
  const previous = pending.get(conversation.id) ?? Promise.resolve();
  const written = previous.then(write);
  const settled = written.then(
    () => {},
    () => {},
  );
  // Under the session too: the common path of the next turn knows only the session id before its one statement.
  const keys = [conversation.id, sessionKey(sessionId)];
  for (const key of keys) pending.set(key, settled);
  void settled.then(() => {
    for (const key of keys) if (pending.get(key) === settled) pending.delete(key);
  });
  return written;
}

/** The key of a session's pending write: its hash (the id itself is a bearer secret, kept nowhere). */
export const sessionKey = (sessionId: string) => `session:${sha256Hex(sessionId)}`;

export async function repliesWritten(chat: ChatState, conversationId: string): Promise<void> {
  await chat.pendingReplies.get(conversationId);
}

/** Waits for the pending reply writes of one conversation, or of all (shutdown, tests). */
export async function transcriptsSettled(deps: Pick<Deps, "chat">, conversationId?: string): Promise<void> {
  if (conversationId !== undefined) return repliesWritten(deps.chat, conversationId);
  await Promise.all([...deps.chat.pendingReplies.values()]);
}
