// Knowledge gaps (README "Knowledge gaps"): the customers' questions the agent could not answer
// with confidence — replies below the offer threshold, the ones it escalated included — grouped
// when they share their rarest words (rarity as the org's documents have it: a word no document
// uses is the rarest), with counts and a link that opens a new article titled with the question.
import { sql } from "drizzle-orm";
import { queryRows } from "../db/client.ts";
import type { Deps } from "../deps.ts";
import { terms } from "../kit/words.ts";
import { orgIndex } from "./org-index.ts";

export const GAPS = {
  /** Low-confidence replies read, newest first. */
  scan: 2000,
  /** Rarest words that stand for a question. */
  rare: 3,
  /** At most this many when rarer words tie. */
  tied: 8,
  /** Example questions shown per group. */
  examples: 5,
  /** Below this confidence a reply is a gap (the chat's offer threshold, src/agents/pipeline/confidence.ts). */
  below: 0.5,
} as const;

export interface GapGroup {
  terms: string[];
  count: number;
  questions: string[];
  last_asked_at: string;
  write_article_url: string;
}

/** The groups of the `days` before `until` (default now; a report's period passes its own end). */
export async function knowledgeGaps(deps: Deps, orgId: string, options: { days: number; limit: number; until?: Date }): Promise<GapGroup[]> {
  const until = options.until ?? null;
  const since = new Date((until ?? deps.now()).getTime() - options.days * 86_400_000);
  const rows = await queryRows<{ text: string; asked_at: Date | string }>(
    deps.db,
    sql`select q.text, a.created_at as asked_at
        from conversation_messages a
        join lateral (
          select c.text from conversation_messages c
          where c.conversation_id = a.conversation_id and c.role = 'customer' and (c.created_at, c.id) < (a.created_at, a.id)
          order by c.created_at desc, c.id desc limit 1
        ) q on true
        where a.org_id = ${orgId} and a.role = 'agent' and a.routing is null and a.confidence < ${GAPS.below} and a.created_at >= ${since.toISOString()}::timestamptz${until ? sql` and a.created_at < ${until.toISOString()}::timestamptz` : sql``}
        order by a.created_at desc, a.id desc
        limit ${GAPS.scan}`,
  );
  const { index } = await orgIndex(deps, orgId);
  const groups: { terms: Set<string>; count: number; questions: string[]; last: Date }[] = [];
  for (const row of rows) {
    const question = row.text.trim().slice(0, 500);
    const ranked = terms(question)
      .map((t) => ({ t, idf: index.idf(t) }))
      .sort((a, b) => b.idf - a.idf || (a.t < b.t ? -1 : 1));
    // The rarest GAPS.rare words, and any as rare as the last of them (words no document uses tie).
    const cut = ranked[Math.min(GAPS.rare, ranked.length) - 1]?.idf ?? 0;
    const rare = ranked
      .filter((x, i) => i < GAPS.rare || x.idf >= cut)
      .slice(0, GAPS.tied)
      .map((x) => x.t);
    if (rare.length === 0) continue; // "yes", "hello": nothing to write about
    const askedAt = new Date(row.asked_at);
    const group = groups.find((g) => rare.filter((t) => g.terms.has(t)).length >= Math.min(2, rare.length, g.terms.size));
    if (group) {
      group.count++;
      if (group.questions.length < GAPS.examples && !group.questions.includes(question)) group.questions.push(question);
      if (askedAt > group.last) group.last = askedAt;
    } else groups.push({ terms: new Set(rare), count: 1, questions: [question], last: askedAt });
  }
  return groups
    .sort((a, b) => b.count - a.count || b.last.getTime() - a.last.getTime())
    .slice(0, options.limit)
    .map((g) => ({
      terms: [...g.terms],
      count: g.count,
      questions: g.questions,
      last_asked_at: g.last.toISOString(),
      write_article_url: `/dashboard/knowledge/new?title=${encodeURIComponent(g.questions[0]!.slice(0, 300))}`,
    }));
}
