// What customers do on the public help centre (src/helpcentre/), kept beside the knowledge base
// it judges: views and "Was this article helpful?" per article, and the searches that found
// nothing. The reports (src/reports/) and the knowledge gaps (src/knowledge/gaps-routes.ts) read
// them here; nothing here holds who the customer was.
import { and, desc, eq, gte, lt, sql } from "drizzle-orm";
import { docs, helpArticleStats, helpSearchMisses } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";

export const HELP_SIGNALS = {
  /** A missed search is kept as at most this many characters, whitespace folded. */
  query: 200,
  /** Missed searches (grouped by text) and articles listed by the gaps. */
  listed: 20,
} as const;

async function bump(deps: Pick<Deps, "db" | "now">, orgId: string, docId: string, column: "views" | "helpful" | "notHelpful"): Promise<void> {
  const now = deps.now();
  const target = helpArticleStats[column];
  await deps.db
    .insert(helpArticleStats)
    .values({ orgId, docId, [column]: 1, updatedAt: now })
    .onConflictDoUpdate({ target: [helpArticleStats.orgId, helpArticleStats.docId], set: { [column]: sql`${target} + 1`, updatedAt: now } });
}

/** One view of a public article (the caller has checked it is one of the org's public documents). */
export function recordArticleView(deps: Pick<Deps, "db" | "now">, orgId: string, docId: string): Promise<void> {
  return bump(deps, orgId, docId, "views");
}

/** One answer to "Was this article helpful?". */
export function recordArticleVote(deps: Pick<Deps, "db" | "now">, orgId: string, docId: string, helpful: boolean): Promise<void> {
  return bump(deps, orgId, docId, helpful ? "helpful" : "notHelpful");
}

/** A search on the help centre (its pages or the widget) that found no public article. */
export async function recordSearchMiss(deps: Pick<Deps, "db" | "now">, orgId: string, query: string): Promise<void> {
  const text = query.replace(/\s+/g, " ").trim().slice(0, HELP_SIGNALS.query);
  if (text === "") return;
  await deps.db.insert(helpSearchMisses).values({ orgId, query: text, createdAt: deps.now() });
}

export interface MissedSearch {
  query: string;
  count: number;
  last_searched_at: string;
}

/** Searches that found nothing between `since` and `until`, grouped by their text (case folded), most frequent first. */
export async function missedSearches(
  deps: Pick<Deps, "db">,
  orgId: string,
  since: Date,
  until: Date,
  limit: number = HELP_SIGNALS.listed,
): Promise<MissedSearch[]> {
  const key = sql<string>`lower(${helpSearchMisses.query})`;
  const rows = await deps.db
    .select({ query: sql<string>`min(${helpSearchMisses.query})`, count: sql<number>`count(*)::int`, last: sql<string>`max(${helpSearchMisses.createdAt})` })
    .from(helpSearchMisses)
    .where(and(eq(helpSearchMisses.orgId, orgId), gte(helpSearchMisses.createdAt, since), lt(helpSearchMisses.createdAt, until)))
    .groupBy(key)
    .orderBy(desc(sql`count(*)`), desc(sql`max(${helpSearchMisses.createdAt})`))
    .limit(limit);
  return rows.map((r) => ({ query: r.query, count: Number(r.count), last_searched_at: new Date(r.last).toISOString() }));
}

export interface ArticleSignals {
  id: string;
  title: string;
  views: number;
  helpful: number;
  not_helpful: number;
}

/** Articles customers marked not helpful, the most "No" answers first (all time: the counters are totals). */
export async function unhelpfulArticles(deps: Pick<Deps, "db">, orgId: string, limit: number = HELP_SIGNALS.listed): Promise<ArticleSignals[]> {
  return deps.db
    .select({ id: docs.id, title: docs.title, views: helpArticleStats.views, helpful: helpArticleStats.helpful, not_helpful: helpArticleStats.notHelpful })
    .from(helpArticleStats)
    .innerJoin(docs, and(eq(docs.id, helpArticleStats.docId), eq(docs.orgId, orgId)))
    .where(and(eq(helpArticleStats.orgId, orgId), sql`${helpArticleStats.notHelpful} > 0`))
    .orderBy(desc(helpArticleStats.notHelpful), desc(helpArticleStats.views))
    .limit(limit);
}

/** The help centre's totals for the reports: views and votes (all time), searches without a result in the period. */
export async function helpCentreTotals(deps: Pick<Deps, "db">, orgId: string, since: Date, until: Date) {
  const [totals] = await deps.db
    .select({
      views: sql<number>`coalesce(sum(${helpArticleStats.views}), 0)::bigint`,
      helpful: sql<number>`coalesce(sum(${helpArticleStats.helpful}), 0)::int`,
      notHelpful: sql<number>`coalesce(sum(${helpArticleStats.notHelpful}), 0)::int`,
    })
    .from(helpArticleStats)
    .where(eq(helpArticleStats.orgId, orgId));
  const [misses] = await deps.db
    .select({ n: sql<number>`count(*)::int` })
    .from(helpSearchMisses)
    .where(and(eq(helpSearchMisses.orgId, orgId), gte(helpSearchMisses.createdAt, since), lt(helpSearchMisses.createdAt, until)));
  return {
    article_views: Number(totals?.views ?? 0),
    helpful_votes: Number(totals?.helpful ?? 0),
    not_helpful_votes: Number(totals?.notHelpful ?? 0),
    searches_without_result: Number(misses?.n ?? 0),
  };
}
