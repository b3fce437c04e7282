// The facts a report judges a conversation by (docs/decisions.md "Reports: what each figure
// counts"), kept on its row as each message is written, so a report over 100,000 conversations
// reads 100,000 rows rather than judging every message when asked (docs/decisions.md "Reports:
// speed at 100,000 conversations").
//
// The judgement, over the conversation's customer and AI messages in order: an AI answer is
// substantive when it completed, routed nothing, has text and does not answer a greeting; a
// customer's greeting or thanks is no new message. The conversation is assumed resolved by the
// first substantive answer A after which no customer message came within 24 h (inclusive), once the
// clock is 24 h past A, unless a customer message within 7 days of A (inclusive) takes it back.
// Incrementally: `open_answer_at` is the first substantive answer since the latest customer
// message; a customer message more than 24 h after it, while no quiet answer is kept yet, makes it
// `quiet_answer_at` and itself `quiet_ended_at`. An earlier answer followed within 24 h can never be
// quiet, and a later one is never the first: both columns, once set, stay. The migration that added
// them fills existing rows with BACKFILL_SQL, the same judgement over the stored messages.
import { type Placeholder, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { GREETINGS } from "../kit/greetings.ts";
import type { conversationMessages } from "../db/schema/index.ts";

/** A customer message that is only a greeting, a thanks or an ok (a POSIX pattern, case-insensitive). */
export const GREETING = `^[[:space:]]*(${GREETINGS}|thanks?( you)?( so much| a lot)?|thx|ty|cheers|ok|okay|great|cool|bye|goodbye)[[:space:][:punct:]]*$`;
/** No customer message within this long after a substantive answer: assumed resolved (inclusive). */
export const QUIET_MS = 24 * 3600 * 1000;
/** A customer message within this long after the quiet answer takes the resolution back (inclusive). */
export const REOPEN_MS = 7 * 24 * 3600 * 1000;

type Message = Pick<typeof conversationMessages.$inferInsert, "role" | "text" | "status" | "routing">;

/**
 * The SET entries of the conversations row for one appended message written at `at`, to go into
 * the same UPDATE that counts the message (every expression reads the row as it was before).
 */
export function reportFactsOf(message: Message, at: Date): Partial<Record<"quietAnswerAt" | "quietEndedAt" | "openAnswerAt" | "lastTurnGreeting", SQL>> {
  const t = sql`${at.toISOString()}::timestamptz`;
  if (message.role === "customer") {
    const greeting = sql`(${message.text} ~* ${GREETING})`;
    const ends = sql`not ${greeting} and quiet_answer_at is null and open_answer_at is not null and ${t} > open_answer_at + interval '24 hours'`;
    return {
      quietAnswerAt: sql`case when ${ends} then open_answer_at else quiet_answer_at end`,
      quietEndedAt: sql`case when ${ends} then ${t} else quiet_ended_at end`,
      openAnswerAt: sql`case when ${greeting} then open_answer_at end`,
      lastTurnGreeting: greeting,
    };
  }
  if (message.role !== "agent") return {};
  return replyFacts(sql`${isSubstantive(message)}`, t);
}

/** An AI answer that completed, routed nothing and has text (whether it answers a greeting is the row's to say). */
export function isSubstantive(message: Pick<Message, "text" | "status" | "routing">): boolean {
  return (message.status ?? "complete") === "complete" && !message.routing && message.text !== "";
}

/**
 * An AI answer's SET entries, its substantiveness (`isSubstantive`) and time given as SQL values:
 * parameters, or placeholders in a statement prepared once (transcript.ts `storeReply`).
 */
export function replyFacts(substantive: SQL | Placeholder, at: SQL | Placeholder): Record<"openAnswerAt" | "lastTurnGreeting", SQL> {
  return {
    openAnswerAt: sql`case when ${substantive}::boolean and open_answer_at is null and not last_turn_greeting then ${at}::timestamptz else open_answer_at end`,
    lastTurnGreeting: sql`false`,
  };
}

/**
 * Every conversation's facts from its stored messages (the migration adding the columns runs the
 * same statement; test/reports/report-facts.test.ts holds the two to each other and to the writes).
 */
export const BACKFILL_SQL = `with msgs as (
  select m.conversation_id, m.role, m.created_at, m.id, m.text, m.helpful, m.helpful_at,
    (m.role = 'agent' and m.status = 'complete' and m.routing is null and m.text <> ''
      and not coalesce(lag(m.role) over w = 'customer' and lag(m.text) over w ~* '${GREETING}', false)) as substantive,
    min(case when m.role = 'customer' and m.text !~* '${GREETING}' then m.created_at end)
      over (w rows between 1 following and unbounded following) as next_customer
  from conversation_messages m
  where m.role in ('customer', 'agent')
  window w as (partition by m.conversation_id order by m.created_at, m.id)
), facts as (
  select conversation_id,
    (array_agg(created_at order by created_at, id) filter (where substantive and next_customer > created_at + interval '24 hours'))[1] as quiet_answer_at,
    (array_agg(next_customer order by created_at, id) filter (where substantive and next_customer > created_at + interval '24 hours'))[1] as quiet_ended_at,
    min(created_at) filter (where substantive and next_customer is null) as open_answer_at,
    (array_agg(role = 'customer' and text ~* '${GREETING}' order by created_at desc, id desc))[1] as last_turn_greeting,
    (array_agg(helpful order by helpful_at desc nulls last, created_at desc) filter (where helpful is not null))[1] as helpful
  from msgs group by conversation_id
)
update conversations c set quiet_answer_at = f.quiet_answer_at, quiet_ended_at = f.quiet_ended_at, open_answer_at = f.open_answer_at,
  last_turn_greeting = f.last_turn_greeting, helpful = f.helpful
from facts f where f.conversation_id = c.id`;

/** Recomputes the facts of every conversation from its messages (rows written other than through the transcript: the benchmark's generated ones). */
export async function backfillReportFacts(db: Db): Promise<void> {
  await db.execute(sql.raw(BACKFILL_SQL));
}
