// A chat turn's round trips (docs/performance.md "Round trips of a chat turn"; docs/decisions.md
// "Two round trips per chat turn"): everything a turn needs from the database before it answers,
// and the customer's message, in ONE statement — and the reply in one more (transcript.ts
// `storeReply`). In a known session the message is stored before anything is generated (a
// database lost mid-answer keeps the question), yet costs no round trip of its own: it rides on
// the turn's one read. A new session's first turn on the common path is first-turn.ts instead.
//
//   * a new session: the session, any reported turns and the message inserted, the org's
//     knowledge state (documents' version and synonyms, src/knowledge/synonyms.ts) returned with it;
//   * a session we know, presented by its owner, without a context to merge: the message inserted
//     and the session's counters and report facts updated (data-modifying CTEs, atomic like a
//     transaction), returning the session as updated, the history before this message and the
//     knowledge state. Anything else (an unknown id, someone else's session, an anonymous session
//     taken over, a context to merge) answers `null`, and the turn takes the general path
//     (sessions.ts), which costs more round trips.
import { getTableColumns, sql } from "drizzle-orm";
import type { Column } from "drizzle-orm";
import { sha256Hex } from "../crypto/tokens.ts";
import { queryRows } from "../db/client.ts";
import { conversationMessages, conversations } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import type { KnowledgeState } from "../knowledge/synonyms.ts";
import { reportFactsOf } from "./report-facts.ts";
import type { ChatParty, Conversation } from "./sessions.ts";

export type { KnowledgeState };
import { type ConversationMessage, type CustomerMessage, HISTORY_TURNS } from "./transcript.ts";

/** The org's knowledge state as SQL columns `docs_version` and `synonyms`, text both (one shape on either engine). */
export const knowledgeStateColumns = (orgId: string) => sql`
  coalesce((select docs_version::text from knowledge_settings where org_id = ${orgId}), '0') as docs_version,
  coalesce((select synonyms::text from knowledge_settings where org_id = ${orgId}), '[]') as synonyms`;

export function knowledgeStateOf(row: { docs_version: string; synonyms: string }): KnowledgeState {
  return { docsVersion: Number(row.docs_version), synonyms: row.synonyms };
}

/** A row as `row_to_json` gives it (column names, JSON values) → as drizzle selects it. */
function fromJson<T>(columns: Record<string, Column>, json: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(columns)) {
    const value = json[column.name];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return out as T;
}

const conversationColumns = getTableColumns(conversations) as Record<string, Column>;
const messageColumns = getTableColumns(conversationMessages) as Record<string, Column>;

export interface ContinuedTurn {
  conversation: Conversation;
  history: ConversationMessage[];
  knowledge: KnowledgeState;
}

/** The common path of a turn in a known session (see the top of this file); null when the general path must decide. */
export async function continueSession(
  deps: Pick<Deps, "db" | "now">,
  input: { orgId: string; sessionId: string; party: ChatParty; message: CustomerMessage; language?: string | null },
): Promise<ContinuedTurn | null> {
  const { orgId, party, message } = input;
  const now = deps.now();
  const at = sql`${now.toISOString()}::timestamptz`;
  const facts = reportFactsOf({ role: "customer", text: message.text }, now);
  // Owned: an anonymous session presented by an anonymous visitor, or a customer's by that customer.
  const owner = party.endUserId === null ? sql`anonymous` : sql`(not anonymous and end_user_id = ${party.endUserId}::uuid)`;
  const [row] = await queryRows<{ conversation: string | null; history: string; docs_version: string; synonyms: string }>(
    deps.db,
    sql`with owned as (
      select id from conversations where org_id = ${orgId} and session_hash = ${sha256Hex(input.sessionId)} and ${owner}
    ), inserted as (
      insert into conversation_messages (id, org_id, conversation_id, role, text, images, mode, created_at)
      select ${Bun.randomUUIDv7()}::uuid, ${orgId}::uuid, id, 'customer', ${message.text}, ${JSON.stringify(message.images)}::jsonb, ${message.mode}, ${at}
      from owned
      returning conversation_id
    ), updated as (
      update conversations set
        quiet_answer_at = ${facts.quietAnswerAt}, quiet_ended_at = ${facts.quietEndedAt}, open_answer_at = ${facts.openAnswerAt},
        last_turn_greeting = ${facts.lastTurnGreeting}, message_count = message_count + 1, mode = ${message.mode}, updated_at = ${at},
        language = coalesce(${input.language ?? null}::text, language)
      where org_id = ${orgId} and id in (select conversation_id from inserted)
      returning *
    )
    select
      (select row_to_json(u)::text from updated u) as conversation,
      (select coalesce(json_agg(h order by h.created_at, h.id), '[]')::text from (
        select m.* from conversation_messages m
        where m.org_id = ${orgId} and m.conversation_id = (select id from owned)
        order by m.created_at desc, m.id desc limit ${HISTORY_TURNS}
      ) h) as history,
      ${knowledgeStateColumns(orgId)}`,
  );
  if (!row?.conversation) return null;
  return {
    conversation: fromJson<Conversation>(conversationColumns, JSON.parse(row.conversation)),
    history: (JSON.parse(row.history) as Record<string, unknown>[]).map((m) => fromJson<ConversationMessage>(messageColumns, m)),
    knowledge: knowledgeStateOf(row),
  };
}
