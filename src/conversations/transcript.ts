// Transcripts: the customer's message is stored before generation starts (a new session's first
// one with its reply, or within 200 ms: first-turn.ts); the reply — text, actions, sources,
// confidence, agent, routing — when the answer is complete (after a stream: once the body is
// closed, docs/interface.md 4.5 "stored asynchronously"), so a crash mid-answer loses at most the
// unfinished reply. A failed or abandoned answer is stored too,
// with what was produced and why it stopped. When each is written is the turn's (src/agents/turn.ts).
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { conversationMessages, conversations, type MessageRouting, type MessageSource, type MessageStatus } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { reportFactsOf } from "./report-facts.ts";
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
async function append(
  deps: Pick<Deps, "db" | "now">,
  conversation: Conversation,
  values: Omit<typeof conversationMessages.$inferInsert, "id" | "orgId" | "conversationId" | "createdAt">,
  after: Partial<typeof conversations.$inferInsert>,
): Promise<void> {
  const now = deps.now();
  const inserted = deps.db.$with("inserted").as(
    deps.db
      .insert(conversationMessages)
      .values({ ...values, id: Bun.randomUUIDv7(), orgId: conversation.orgId, conversationId: conversation.id, createdAt: now })
      .returning({ conversationId: conversationMessages.conversationId }),
  );
  await deps.db
    .with(inserted)
    .update(conversations)
    // The reports' facts ride on the same update (src/conversations/report-facts.ts).
    .set({ ...after, ...reportFactsOf(values, now), messageCount: sql`${conversations.messageCount} + 1`, updatedAt: now })
    .where(and(eq(conversations.orgId, conversation.orgId), inArray(conversations.id, deps.db.select({ id: inserted.conversationId }).from(inserted))));
}

export function storeCustomerMessage(deps: Pick<Deps, "db" | "now">, conversation: Conversation, message: CustomerMessage): Promise<void> {
  return append(deps, conversation, { role: "customer", text: message.text, images: message.images, mode: message.mode }, {});
}

/**
 * The reply and the session's counters in one statement (the turn's second round trip,
 * docs/performance.md "Round trips of a chat turn"), written as SQL rather than built by the query
 * builder: every chat turn pays for it, and building the builder's statement cost more CPU than
 * the rest of storing it.
 */
export async function storeReply(deps: Pick<Deps, "db" | "now">, conversation: Conversation, reply: Reply): Promise<void> {
  const now = deps.now();
  const at = sql`${now.toISOString()}::timestamptz`;
  const facts = reportFactsOf({ role: "agent", text: reply.text, status: reply.status, routing: reply.routing }, now);
  const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
  const ticketId = reply.ticketId ?? null;
  await deps.db.execute(sql`with inserted as (
    insert into conversation_messages (id, org_id, conversation_id, role, text, agent_id, actions, sources, confidence, routing, status, error, created_at)
    values (${Bun.randomUUIDv7()}::uuid, ${conversation.orgId}::uuid, ${conversation.id}::uuid, 'agent', ${reply.text}, ${reply.agentId}::uuid,
      ${json(reply.actions)}::jsonb, ${json(reply.sources)}::jsonb, ${reply.confidence}::real, ${json(reply.routing)}::jsonb, ${reply.status},
      ${json(reply.error ?? null)}::jsonb, ${at})
    returning conversation_id
  )
  update conversations set
    agent_id = ${reply.agentId}::uuid,
    routed = case when ${ticketId}::uuid is null then routed else true end,
    ticket_id = coalesce(${ticketId}::uuid, ticket_id),
    open_answer_at = ${facts.openAnswerAt}, last_turn_greeting = ${facts.lastTurnGreeting},
    message_count = message_count + 1, updated_at = ${at}
  where org_id = ${conversation.orgId} and id in (select conversation_id from inserted)`);
}

/** The latest `limit` messages of a conversation, oldest first. */
export async function recentMessages(
  deps: Pick<Deps, "db">,
  conversation: Pick<Conversation, "orgId" | "id">,
  limit = HISTORY_TURNS,
): Promise<ConversationMessage[]> {
  const rows = await deps.db
    .select()
    .from(conversationMessages)
    .where(and(eq(conversationMessages.orgId, conversation.orgId), eq(conversationMessages.conversationId, conversation.id)))
    .orderBy(desc(conversationMessages.createdAt), desc(conversationMessages.id))
    .limit(limit);
  return rows.reverse();
}
