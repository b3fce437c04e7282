// Transcripts: the customer's message is stored before
// generation starts; the reply — text, actions, sources, confidence, agent, routing — when the
// answer is complete (after a stream: once the body is closed, docs/interface.md 4.5 "stored asynchronously"), so a
// crash mid-answer loses at most the unfinished reply. A failed or abandoned answer is stored too,
// with what was produced and why it stopped.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { conversationMessages, conversations, type MessageRouting, type MessageSource, type MessageStatus } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import type { Conversation } from "./sessions.ts";

export type ConversationMessage = typeof conversationMessages.$inferSelect;

/** Earlier messages handed to the model with each turn (the most recent ones). */
export const HISTORY_TURNS = 30;

export interface CustomerMessage {
  text: string;
  images: string[];
  mode: string;
}

export interface Reply {
  text: string;
  agentId: string;
  actions: unknown[];
  sources: MessageSource[];
  confidence: number | null;
  routing: MessageRouting | null;
  status: MessageStatus;
  error?: { code: string; message: string } | null;
  /** Set when the answer created a ticket (routing or escalation): the conversation then counts as routed. */
  ticketId?: string | null;
}

/**
 * One statement, so one round trip and one commit: the message is inserted and the conversation's
 * counters updated by a data-modifying CTE (atomic like a transaction).
 */
async function append(deps: Deps, conversation: Conversation, values: Omit<typeof conversationMessages.$inferInsert, "id" | "orgId" | "conversationId" | "createdAt">, after: Partial<typeof conversations.$inferInsert>): Promise<void> {
  const now = deps.now();
  const inserted = deps.db
    .$with("inserted")
    .as(deps.db.insert(conversationMessages).values({ ...values, id: Bun.randomUUIDv7(), orgId: conversation.orgId, conversationId: conversation.id, createdAt: now }).returning({ conversationId: conversationMessages.conversationId }));
  await deps.db
    .with(inserted)
    .update(conversations)
    .set({ ...after, messageCount: sql`${conversations.messageCount} + 1`, updatedAt: now })
    .where(and(eq(conversations.orgId, conversation.orgId), inArray(conversations.id, deps.db.select({ id: inserted.conversationId }).from(inserted))));
}

export function storeCustomerMessage(deps: Deps, conversation: Conversation, message: CustomerMessage): Promise<void> {
  return append(deps, conversation, { role: "customer", text: message.text, images: message.images, mode: message.mode }, {});
}

export function storeReply(deps: Deps, conversation: Conversation, reply: Reply): Promise<void> {
  return append(
    deps,
    conversation,
    {
      role: "agent",
      text: reply.text,
      agentId: reply.agentId,
      actions: reply.actions,
      sources: reply.sources,
      confidence: reply.confidence,
      routing: reply.routing,
      status: reply.status,
      error: reply.error ?? null,
    },
    { agentId: reply.agentId, ...(reply.ticketId ? { routed: true, ticketId: reply.ticketId } : {}) },
  );
}

/** The latest `limit` messages of a conversation, oldest first. */
export async function recentMessages(deps: Deps, conversation: Pick<Conversation, "orgId" | "id">, limit = HISTORY_TURNS): Promise<ConversationMessage[]> {
  const rows = await deps.db
    .select()
    .from(conversationMessages)
    .where(and(eq(conversationMessages.orgId, conversation.orgId), eq(conversationMessages.conversationId, conversation.id)))
    .orderBy(desc(conversationMessages.createdAt), desc(conversationMessages.id))
    .limit(limit);
  return rows.reverse();
}

// --- replies written after a stream ---------------------------------------------------------
//
// A streamed reply is written once the body is closed. The next message of the same session waits
// for that write (in this process) so its history includes the reply; tests and shutdown can wait
// for every pending write with `transcriptsSettled`.

/** Runs `write` after any pending write of the same conversation; failures are logged, never thrown. */
export function storeLater(deps: Deps, conversationId: string, write: () => Promise<unknown>): Promise<void> {
  const pending = deps.chat.pendingReplies;
  const previous = pending.get(conversationId) ?? Promise.resolve();
  const next = previous
    .then(write)
    .catch((error) => deps.log.error("storing a chat reply failed", { conversation_id: conversationId, error }))
    .then(() => {
      if (pending.get(conversationId) === next) pending.delete(conversationId);
    });
  pending.set(conversationId, next);
  return next;
}

/** Waits for the pending writes of one conversation, or of all. */
export async function transcriptsSettled(deps: Deps, conversationId?: string): Promise<void> {
  const pending = deps.chat.pendingReplies;
  if (conversationId !== undefined) {
    await pending.get(conversationId);
    return;
  }
  await Promise.all([...pending.values()]);
}

