// Transcripts: the customer's message is stored before generation starts (a new session's first
// one with its reply, or within 200 ms: first-turn.ts); the reply — text, actions, sources,
// confidence, agent, routing — when the answer is complete (after a stream: once the body is
// closed, docs/interface.md 4.5 "stored asynchronously"), so a crash mid-answer loses at most the
// unfinished reply. A failed or abandoned answer is stored too,
// with what was produced and why it stopped. When each is written is the turn's (src/agents/turn.ts).
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { conversationMessages, conversations, type MessageRouting, type MessageSource, type MessageStatus } from "../db/schema/index.ts";
import type { Db } from "../db/client.ts";
import { prepared, rawStatement } from "../db/prepared.ts";
import type { Deps } from "../deps.ts";
import { isSubstantive, replyFacts, reportFactsOf } from "./report-facts.ts";
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
 * docs/performance.md "Round trips of a chat turn"), written as SQL and prepared once per database
 * handle (src/db/prepared.ts): every chat turn pays for it, and building it per call through the
 * query builder cost more CPU than the rest of storing it.
 */
const replyStatement = (db: Db) => {
  const P = (name: string) => sql.placeholder(name);
  const facts = replyFacts(P("substantive"), P("at"));
  return rawStatement(
    db,
    "conversation_reply",
    sql`with inserted as (
    insert into conversation_messages (id, org_id, conversation_id, role, text, agent_id, actions, sources, confidence, routing, status, error, created_at)
    values (${P("id")}::uuid, ${P("org_id")}::uuid, ${P("conversation_id")}::uuid, 'agent', ${P("text")}, ${P("agent_id")}::uuid,
      ${P("actions")}::jsonb, ${P("sources")}::jsonb, ${P("confidence")}::real, ${P("routing")}::jsonb, ${P("status")},
      ${P("error")}::jsonb, ${P("at")}::timestamptz)
    returning conversation_id
  )
  update conversations set
    agent_id = ${P("agent_id")}::uuid,
    routed = case when ${P("ticket_id")}::uuid is null then routed else true end,
    ticket_id = coalesce(${P("ticket_id")}::uuid, ticket_id),
    open_answer_at = ${facts.openAnswerAt}, last_turn_greeting = ${facts.lastTurnGreeting},
    message_count = message_count + 1, updated_at = ${P("at")}::timestamptz
  where org_id = ${P("org_id")}::uuid and id in (select conversation_id from inserted)`,
  );
};

export async function storeReply(deps: Pick<Deps, "db" | "now" | "statements">, conversation: Conversation, reply: Reply): Promise<void> {
  const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
  await prepared(deps, "conversation_reply", replyStatement).execute({
    id: Bun.randomUUIDv7(),
    org_id: conversation.orgId,
    conversation_id: conversation.id,
    text: reply.text,
    agent_id: reply.agentId,
    actions: json(reply.actions),
    sources: json(reply.sources),
    confidence: reply.confidence,
    routing: json(reply.routing),
    status: reply.status,
    error: json(reply.error ?? null),
    at: deps.now().toISOString(),
    substantive: isSubstantive(reply),
    ticket_id: reply.ticketId ?? null,
  });
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
