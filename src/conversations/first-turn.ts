// A new session's first turn in ONE statement (docs/performance.md "Round trips of a chat turn";
// docs/decisions.md "A new session's first turn"). On the common path the session is planned in
// memory when the turn starts — its ids minted, its row as the database would return it — and
// written once, with the customer's message and the reply, when the answer is done: one commit
// instead of two, and no write before the answer's first byte. When the answer needs the session
// in the database before it is done (a ticket or a tool names it), it is written then without the
// reply (`withReply` null), and the reply follows as for any session (transcript.ts `storeReply`).
//
// The row written holds what storeCustomerMessage and storeReply (transcript.ts) would leave on a
// fresh session: the same counters and report facts (report-facts.ts), so the reports cannot
// tell the two apart (test/conversations/first-turn.test.ts).
import { sql } from "drizzle-orm";
import { mintToken, sha256Hex } from "../crypto/tokens.ts";
import type { Deps } from "../deps.ts";
import { assertFreeForm } from "../http/free-form.ts";
import { GREETING } from "./report-facts.ts";
import { type Conversation, type NewSession, SESSION_PREFIX } from "./sessions.ts";
import type { CustomerMessage, Reply } from "./transcript.ts";

/** A new session not written yet, and its first message. */
export interface PlannedSession {
  conversation: Conversation;
  /** The id handed to the client (the only time it exists in clear). */
  sessionId: string;
  message: CustomerMessage & { id: string; createdAt: Date };
}

/** The session `input` starts, in memory: as createSession would store it, before any reply. */
export function planSession(deps: Pick<Deps, "now">, input: NewSession & { firstMessage: CustomerMessage }): PlannedSession {
  const context = input.context ?? {};
  assertFreeForm(context, "/context");
  const sessionId = mintToken(SESSION_PREFIX);
  const now = deps.now();
  const conversation: Conversation = {
    id: crypto.randomUUID(),
    orgId: input.orgId,
    sessionHash: sha256Hex(sessionId),
    endUserId: input.party.endUserId,
    anonymous: input.party.endUserId === null,
    agentId: input.agentId,
    mode: input.mode,
    language: input.language ?? null,
    context,
    routed: false,
    ticketId: null,
    messageCount: 1,
    quietAnswerAt: null,
    quietEndedAt: null,
    openAnswerAt: null,
    lastTurnGreeting: false,
    helpful: null,
    createdAt: now,
    updatedAt: now,
  };
  return { conversation, sessionId, message: { ...input.firstMessage, id: Bun.randomUUIDv7(), createdAt: now } };
}

/** The planned session's row with its first reply applied, as storeReply's update would leave it (report facts apart: see insertPlanned). */
function withReplyApplied(conversation: Conversation, reply: Reply, at: Date): Conversation {
  return {
    ...conversation,
    agentId: reply.agentId,
    routed: reply.ticketId ? true : conversation.routed,
    ticketId: reply.ticketId ?? conversation.ticketId,
    messageCount: conversation.messageCount + 1,
    updatedAt: at,
  };
}

/**
 * Writes the planned session and its first message, and `withReply` when given, in one statement
 * (written as SQL: every new session pays for it). The messages go in a data-modifying CTE, which
 * PostgreSQL runs to completion; their foreign key is checked at the statement's end.
 */
export async function insertPlanned(deps: Pick<Deps, "db" | "now">, plan: PlannedSession, withReply: Reply | null): Promise<void> {
  const at = deps.now();
  const c = withReply ? withReplyApplied(plan.conversation, withReply, at) : plan.conversation;
  const m = plan.message;
  const r = withReply;
  const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
  const time = (value: Date | null) => (value ? value.toISOString() : null);
  const customer = sql`(${m.id}::uuid, ${c.orgId}::uuid, ${c.id}::uuid, 'customer', ${m.text}, ${JSON.stringify(m.images)}::jsonb, ${m.mode},
      null::uuid, '[]'::jsonb, '[]'::jsonb, null::real, null::jsonb, 'complete', null::jsonb, ${time(m.createdAt)}::timestamptz)`;
  const messages = r
    ? sql`${customer}, (${Bun.randomUUIDv7()}::uuid, ${c.orgId}::uuid, ${c.id}::uuid, 'agent', ${r.text}, '[]'::jsonb, null,
      ${r.agentId}::uuid, ${json(r.actions)}::jsonb, ${json(r.sources)}::jsonb, ${r.confidence}::real, ${json(r.routing)}::jsonb, ${r.status},
      ${json(r.error ?? null)}::jsonb, ${time(at)}::timestamptz)`
    : customer;
  // The report facts (report-facts.ts) of a first message and its reply, as storeCustomerMessage
  // and storeReply would keep them on a fresh row: a greeting leaves the reply not substantive.
  const greeting = sql`(${m.text} ~* ${GREETING})`;
  const substantive = r !== null && r.status === "complete" && !r.routing && r.text !== "";
  const openAnswerAt = substantive ? sql`case when ${greeting} then null else ${time(at)}::timestamptz end` : sql`null::timestamptz`;
  const lastTurnGreeting = r ? sql`false` : greeting;
  await deps.db.execute(sql`with messages as (
    insert into conversation_messages
      (id, org_id, conversation_id, role, text, images, mode, agent_id, actions, sources, confidence, routing, status, error, created_at)
    values ${messages}
    returning id
  )
  insert into conversations (id, org_id, session_hash, end_user_id, anonymous, agent_id, mode, language, context, routed, ticket_id, message_count,
    open_answer_at, last_turn_greeting, created_at, updated_at)
  values (${c.id}::uuid, ${c.orgId}::uuid, ${c.sessionHash}, ${c.endUserId}::uuid, ${c.anonymous}, ${c.agentId}::uuid, ${c.mode}, ${c.language},
    ${JSON.stringify(c.context)}::jsonb, ${c.routed}, ${c.ticketId}::uuid, ${c.messageCount}, ${openAnswerAt}, ${lastTurnGreeting},
    ${time(c.createdAt)}::timestamptz, ${time(c.updatedAt)}::timestamptz)`);
}
