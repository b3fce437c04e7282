// Knowledge gaps (README "Knowledge gaps"): the customers' questions the agent did not answer well,
// grouped when they share their rarest words (rarity as the org's documents have it: a word no
// document uses is the rarest), with counts by reason, the conversations behind them and a link
// that opens a new article titled with the question. An answer is a gap for any of these reasons
// (docs/decisions.md "Knowledge gaps: what counts as one"):
//   * low_confidence: its confidence is below the offer threshold (escalated ones included);
//   * not_helpful: the customer answered "No" to the widget's "Did that help?" on it
//     (src/conversations/feedback.ts keeps that on the reply);
//   * handed_off: the conversation's next reply is a hand-off: the customer asked for a person
//     (live help, an accepted offer, a routing rule) or the agent opened a ticket;
//   * boilerplate: a word of the question stands only in text repeated across the org's pages
//     (a footer's "contact support"), which the index leaves out: the knowledge base says it only
//     in page furniture, so the answer had nothing to draw on. Read from the org's index when the
//     gaps are read (src/knowledge/lexical.ts `onlyInBoilerplate`), for the answers the reasons
//     above make gaps — such an answer is refused (the word counts as one no page uses).
// Each answer counts in its conversation's language (`conversations.language`; "unknown" when not
// known): per group and over the period, and a filter keeps one language's.
import { type SQL, sql } from "drizzle-orm";
import { queryRows } from "../db/client.ts";
import type { Deps } from "../deps.ts";
import { terms } from "../kit/words.ts";
import { orgIndex } from "./org-index.ts";

export const GAPS = {
  /** Gap answers read, newest first (each of the two scans below reads at most this many too). */
  scan: 2000,
  /** Rarest words that stand for a question. */
  rare: 3,
  /** At most this many when rarer words tie. */
  tied: 8,
  /** Example questions shown per group. */
  examples: 5,
  /** Conversations linked per group, newest first. */
  conversations: 10,
  /** Below this confidence a reply is a gap (the chat's offer threshold, src/agents/pipeline/confidence.ts). */
  below: 0.5,
} as const;

/** Why an answer is a gap; an answer may have several reasons. */
export const GAP_REASONS = ["low_confidence", "not_helpful", "handed_off", "boilerplate"] as const;
export type GapReason = (typeof GAP_REASONS)[number];

/** A reply `m` that hands the conversation to a person: routed (not a person already holding it), or opening a ticket. */
const handOff = (m: SQL) =>
  sql`((${m}.routing is not null and ${m}.routing->>'action' <> 'person_owns') or ${m}.actions @> '[{"type":"ticket_created"}]'::jsonb)`;

export interface GapConversation {
  id: string;
  /** The dashboard's page of the conversation. */
  url: string;
  /** When the gap answer of it (the latest, when several) was given. */
  asked_at: string;
  reasons: GapReason[];
}

export interface GapGroup {
  terms: string[];
  /** Gap answers in the group. */
  count: number;
  /** Of them, how many for each reason (an answer with two reasons counts in both). */
  by_reason: Record<GapReason, number>;
  questions: string[];
  conversations: GapConversation[];
  last_asked_at: string;
  write_article_url: string;
  /** Of the group's answers, how many in each conversation language (UNKNOWN_LANGUAGE: not known). */
  by_language: Record<string, number>;
}

/** How a gap answer whose conversation's language is not known is counted. */
export const UNKNOWN_LANGUAGE = "unknown";

interface Row {
  id: string;
  conversation_id: string;
  text: string;
  asked_at: Date | string;
  low_confidence: boolean;
  not_helpful: boolean;
  handed_off: boolean;
  language: string | null;
}

/**
 * The org's gap answers of [since, until), newest first, with the customer's question each
 * answered. Bounded: the candidates are the union of two scans of at most GAPS.scan rows each (the
 * answers low or marked not helpful; the hand-offs, each looking back to the answer before it
 * through the conversation index), and each candidate looks one message back (its question) and
 * one forward (a hand-off) through that same index.
 */
async function gapAnswers(deps: Pick<Deps, "db">, orgId: string, since: Date, until: Date | null): Promise<Row[]> {
  const within = (m: SQL) =>
    sql`${m}.created_at >= ${since.toISOString()}::timestamptz${until ? sql` and ${m}.created_at < ${until.toISOString()}::timestamptz` : sql``}`;
  const a = sql.raw("a");
  const h = sql.raw("h");
  const b = sql.raw("b");
  return queryRows<Row>(
    deps.db,
    sql`with candidate as (
          (select a.id from conversation_messages a
           where a.org_id = ${orgId} and a.role = 'agent' and a.routing is null and a.status = 'complete' and ${within(a)}
             and (a.confidence < ${GAPS.below} or a.helpful is false)
           order by a.created_at desc, a.id desc
           limit ${GAPS.scan})
          union
          (select p.id from conversation_messages h
           join lateral (
             select b.id, b.routing, b.status, b.created_at from conversation_messages b
             where b.conversation_id = h.conversation_id and b.role = 'agent' and (b.created_at, b.id) < (h.created_at, h.id)
             order by b.created_at desc, b.id desc limit 1
           ) p on p.routing is null and p.status = 'complete' and ${within(sql.raw("p"))}
           where h.org_id = ${orgId} and h.role = 'agent' and ${within(h)} and ${handOff(h)}
           order by h.created_at desc, h.id desc
           limit ${GAPS.scan})
        )
        select a.id, a.conversation_id, q.text, a.created_at as asked_at,
          coalesce(a.confidence < ${GAPS.below}, false) as low_confidence,
          coalesce(a.helpful is false, false) as not_helpful,
          coalesce(n.handed_off, false) as handed_off,
          (select cv.language from conversations cv where cv.id = a.conversation_id and cv.org_id = ${orgId}) as language
        from candidate x
        join conversation_messages a on a.id = x.id and a.org_id = ${orgId}
        join lateral (
          select c.text from conversation_messages c
          where c.conversation_id = a.conversation_id and c.role = 'customer' and (c.created_at, c.id) < (a.created_at, a.id)
          order by c.created_at desc, c.id desc limit 1
        ) q on true
        left join lateral (
          select ${handOff(b)} as handed_off from conversation_messages b
          where b.conversation_id = a.conversation_id and b.role = 'agent' and (b.created_at, b.id) > (a.created_at, a.id)
          order by b.created_at, b.id limit 1
        ) n on true
        order by a.created_at desc, a.id desc
        limit ${GAPS.scan}`,
  );
}

interface Group {
  terms: Set<string>;
  count: number;
  byReason: Record<GapReason, number>;
  questions: string[];
  conversations: Map<string, GapConversation>;
  last: Date;
  byLanguage: Record<string, number>;
}

export interface GapOptions {
  days: number;
  limit: number;
  until?: Date;
  /** Only the answers in conversations of this language (ISO 639-1), or UNKNOWN_LANGUAGE. */
  language?: string;
}

/** The groups of the `days` before `until` (default now; a report's period passes its own end). */
export async function knowledgeGaps(deps: Pick<Deps, "db" | "knowledge" | "now" | "statements">, orgId: string, options: GapOptions): Promise<GapGroup[]> {
  return (await knowledgeGapsByLanguage(deps, orgId, options)).gaps;
}

/** The groups, and the period's gap answers counted by their conversation's language (all of them, whatever `language` keeps), most first. */
export async function knowledgeGapsByLanguage(
  deps: Pick<Deps, "db" | "knowledge" | "now" | "statements">,
  orgId: string,
  options: GapOptions,
): Promise<{ gaps: GapGroup[]; by_language: { language: string; count: number }[] }> {
  const until = options.until ?? null;
  const since = new Date((until ?? deps.now()).getTime() - options.days * 86_400_000);
  const rows = await gapAnswers(deps, orgId, since, until);
  const languages = new Map<string, number>();
  for (const row of rows) languages.set(row.language ?? UNKNOWN_LANGUAGE, (languages.get(row.language ?? UNKNOWN_LANGUAGE) ?? 0) + 1);
  const { index } = await orgIndex(deps, orgId);
  const groups: Group[] = [];
  for (const row of rows) {
    const language = row.language ?? UNKNOWN_LANGUAGE;
    if (options.language !== undefined && language !== options.language) continue;
    const question = row.text.trim().slice(0, 500);
    const words = terms(question);
    const ranked = words.map((t) => ({ t, idf: index.idf(t) })).sort((a, b) => b.idf - a.idf || (a.t < b.t ? -1 : 1));
    // The rarest GAPS.rare words, and any as rare as the last of them (words no document uses tie).
    const cut = ranked[Math.min(GAPS.rare, ranked.length) - 1]?.idf ?? 0;
    const rare = ranked
      .filter((x, i) => i < GAPS.rare || x.idf >= cut)
      .slice(0, GAPS.tied)
      .map((x) => x.t);
    if (rare.length === 0) continue; // "yes", "hello": nothing to write about
    const askedAt = new Date(row.asked_at);
    const boilerplate = words.some((t) => index.onlyInBoilerplate(t));
    const reasons = GAP_REASONS.filter((r) => (r === "boilerplate" ? boilerplate : row[r]));
    let group = groups.find((g) => rare.filter((t) => g.terms.has(t)).length >= Math.min(2, rare.length, g.terms.size));
    if (!group) {
      group = {
        terms: new Set(rare),
        count: 0,
        byReason: { low_confidence: 0, not_helpful: 0, handed_off: 0, boilerplate: 0 },
        questions: [],
        conversations: new Map(),
        last: askedAt,
        byLanguage: {},
      };
      groups.push(group);
    }
    group.count++;
    group.byLanguage[language] = (group.byLanguage[language] ?? 0) + 1;
    for (const r of reasons) group.byReason[r]++;
    if (group.questions.length < GAPS.examples && !group.questions.includes(question)) group.questions.push(question);
    if (askedAt > group.last) group.last = askedAt;
    // Rows come newest first: a conversation's first row is its latest gap answer; later ones add their reasons.
    const seen = group.conversations.get(row.conversation_id);
    if (seen) seen.reasons = GAP_REASONS.filter((r) => seen.reasons.includes(r) || reasons.includes(r));
    else if (group.conversations.size < GAPS.conversations)
      group.conversations.set(row.conversation_id, {
        id: row.conversation_id,
        url: `/dashboard/conversations/${row.conversation_id}`,
        asked_at: askedAt.toISOString(),
        reasons,
      });
  }
  const gaps = groups
    .sort((a, b) => b.count - a.count || b.last.getTime() - a.last.getTime())
    .slice(0, options.limit)
    .map((g) => ({
      terms: [...g.terms],
      count: g.count,
      by_reason: g.byReason,
      questions: g.questions,
      conversations: [...g.conversations.values()],
      last_asked_at: g.last.toISOString(),
      write_article_url: `/dashboard/knowledge/new?title=${encodeURIComponent(g.questions[0]!.slice(0, 300))}`,
      by_language: g.byLanguage,
    }));
  const byLanguage = [...languages].map(([language, count]) => ({ language, count })).sort((a, b) => b.count - a.count || (a.language < b.language ? -1 : 1));
  return { gaps, by_language: byLanguage };
}
