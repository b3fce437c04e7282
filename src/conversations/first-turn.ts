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
import type { Db } from "../db/client.ts";
import { prepared, rawStatement } from "../db/prepared.ts";
import type { Deps } from "../deps.ts";
import { assertFreeForm } from "../http/free-form.ts";
import { GREETING, isSubstantive } from "./report-facts.ts";
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

const P = (name: string) => sql.placeholder(name);
const MESSAGE_COLUMNS = sql`(id, org_id, conversation_id, role, text, images, mode, agent_id, actions, sources, confidence, routing, status, error,
  created_at)`;
const customerRow = sql`(${P("m_id")}::uuid, ${P("org_id")}::uuid, ${P("c_id")}::uuid, 'customer', ${P("m_text")}, ${P("m_images")}::jsonb, ${P("m_mode")},
  null::uuid, '[]'::jsonb, '[]'::jsonb, null::real, null::jsonb, 'complete', null::jsonb, ${P("m_at")}::timestamptz)`;
const replyRow = sql`(${P("r_id")}::uuid, ${P("org_id")}::uuid, ${P("c_id")}::uuid, 'agent', ${P("r_text")}, '[]'::jsonb, null,
  ${P("r_agent_id")}::uuid, ${P("r_actions")}::jsonb, ${P("r_sources")}::jsonb, ${P("r_confidence")}::real, ${P("r_routing")}::jsonb, ${P("r_status")},
  ${P("r_error")}::jsonb, ${P("at")}::timestamptz)`;
// The report facts (report-facts.ts) of a first message and its reply, as storeCustomerMessage
// and storeReply would keep them on a fresh row: a greeting leaves the reply not substantive.
const greeting = sql`(${P("m_text")} ~* ${GREETING})`;
const openAnswerAt = sql`case when ${P("substantive")}::boolean and not ${greeting} then ${P("at")}::timestamptz end`;

/**
 * The statement: the messages in a data-modifying CTE, which PostgreSQL runs to completion (their
 * foreign key is checked at the statement's end), and the session. Two shapes, with the reply and
 * without, each built and prepared once per database handle (src/db/prepared.ts): every new
 * session pays for it, and building it per call was about a third of a chat turn's garbage.
 */
const insertStatement = (withReply: boolean) => (db: Db) =>
  rawStatement(
    db,
    withReply ? "session_planned_with_reply" : "session_planned",
    sql`with messages as (
    insert into conversation_messages ${MESSAGE_COLUMNS}
    values ${withReply ? sql`${customerRow}, ${replyRow}` : customerRow}
    returning id
  )
  insert into conversations (id, org_id, session_hash, end_user_id, anonymous, agent_id, mode, language, context, routed, ticket_id, message_count,
    open_answer_at, last_turn_greeting, created_at, updated_at)
  values (${P("c_id")}::uuid, ${P("org_id")}::uuid, ${P("c_session_hash")}, ${P("c_end_user_id")}::uuid, ${P("c_anonymous")}::boolean,
    ${P("c_agent_id")}::uuid, ${P("c_mode")}, ${P("c_language")}, ${P("c_context")}::jsonb, ${P("c_routed")}::boolean, ${P("c_ticket_id")}::uuid,
    ${P("c_message_count")}::int, ${withReply ? openAnswerAt : sql`null::timestamptz`},
    ${withReply ? sql`false` : greeting}, ${P("c_created_at")}::timestamptz, ${P("c_updated_at")}::timestamptz)`,
  );
const withReplyStatement = insertStatement(true);
const aloneStatement = insertStatement(false);

/** Writes the planned session and its first message, and `withReply` when given, in one statement. */
export async function insertPlanned(deps: Pick<Deps, "db" | "now" | "statements">, plan: PlannedSession, withReply: Reply | null): Promise<void> {
  const at = deps.now();
  const c = withReply ? withReplyApplied(plan.conversation, withReply, at) : plan.conversation;
  const m = plan.message;
  const r = withReply;
  const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
  const values: Record<string, unknown> = {
    org_id: c.orgId,
    c_id: c.id,
    c_session_hash: c.sessionHash,
    c_end_user_id: c.endUserId,
    c_anonymous: c.anonymous,
    c_agent_id: c.agentId,
    c_mode: c.mode,
    c_language: c.language,
    c_context: JSON.stringify(c.context),
    c_routed: c.routed,
    c_ticket_id: c.ticketId,
    c_message_count: c.messageCount,
    c_created_at: c.createdAt.toISOString(),
    c_updated_at: c.updatedAt.toISOString(),
    m_id: m.id,
    m_text: m.text,
    m_images: JSON.stringify(m.images),
    m_mode: m.mode,
    m_at: m.createdAt.toISOString(),
  };
  if (r) {
    Object.assign(values, {
      at: at.toISOString(),
      substantive: isSubstantive(r),
      r_id: Bun.randomUUIDv7(),
      r_text: r.text,
      r_agent_id: r.agentId,
      r_actions: json(r.actions),
      r_sources: json(r.sources),
      r_confidence: r.confidence,
      r_routing: json(r.routing),
      r_status: r.status,
      r_error: json(r.error ?? null),
    });
    await prepared(deps, "session_planned_with_reply", withReplyStatement).execute(values);
  } else await prepared(deps, "session_planned", aloneStatement).execute(values);
}
