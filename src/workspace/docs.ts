// The knowledge base: documents per org, indexed with PostgreSQL full-text search.
import { and, desc, eq, sql } from "drizzle-orm";
import { queryRows } from "../db/client.ts";
import { docs, type DocStatus } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";

export const DOC_LIMITS = { title: 300, body: 200_000, url: 2048, tags: 50, tag: 64 };

export interface DocInput {
  title: string;
  body: string;
  url?: string | null;
  tags?: string[];
  status?: DocStatus;
}

export type Doc = typeof docs.$inferSelect;

export function docView(doc: Doc) {
  return {
    id: doc.id,
    title: doc.title,
    body: doc.body,
    ...(doc.url ? { url: doc.url } : {}),
    tags: doc.tags,
    status: doc.status,
    created_at: doc.createdAt.toISOString(),
    updated_at: doc.updatedAt.toISOString(),
  };
}

function checkUrl(url: string | null | undefined) {
  if (url === undefined || url === null) return;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {}
  if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:"))
    throw AppError.badRequest("The document is invalid.", [{ path: "/url", message: "must be an absolute http(s) URL" }]);
}

const columns = { id: docs.id, orgId: docs.orgId, title: docs.title, body: docs.body, url: docs.url, tags: docs.tags, status: docs.status, createdAt: docs.createdAt, updatedAt: docs.updatedAt };

export async function createDoc(deps: Deps, orgId: string, input: DocInput): Promise<Doc> {
  checkUrl(input.url);
  const now = deps.now();
  const [doc] = await deps.db
    .insert(docs)
    .values({ orgId, title: input.title, body: input.body, url: input.url ?? null, tags: input.tags ?? [], status: input.status ?? "published", createdAt: now, updatedAt: now })
    .returning(columns);
  return doc as Doc;
}

export async function getDoc(deps: Deps, orgId: string, id: string, options: { publishedOnly?: boolean } = {}): Promise<Doc | null> {
  if (!isUuid(id)) return null;
  const [doc] = await deps.db
    .select(columns)
    .from(docs)
    .where(and(eq(docs.orgId, orgId), eq(docs.id, id), options.publishedOnly ? eq(docs.status, "published") : undefined));
  return (doc as Doc) ?? null;
}

export async function listDocs(deps: Deps, orgId: string, options: { status?: DocStatus; limit: number; offset: number }): Promise<Doc[]> {
  return (await deps.db
    .select(columns)
    .from(docs)
    .where(and(eq(docs.orgId, orgId), options.status ? eq(docs.status, options.status) : undefined))
    .orderBy(desc(docs.updatedAt))
    .limit(options.limit)
    .offset(options.offset)) as Doc[];
}

export async function updateDoc(deps: Deps, orgId: string, id: string, patch: Partial<DocInput>): Promise<Doc> {
  checkUrl(patch.url);
  if (!(await getDoc(deps, orgId, id))) throw AppError.notFound("No such document.");
  const [doc] = await deps.db
    .update(docs)
    .set({ ...patch, updatedAt: deps.now() })
    .where(and(eq(docs.orgId, orgId), eq(docs.id, id)))
    .returning(columns);
  return doc as Doc;
}

export async function deleteDoc(deps: Deps, orgId: string, id: string): Promise<void> {
  if (!isUuid(id)) throw AppError.notFound("No such document.");
  const deleted = await deps.db.delete(docs).where(and(eq(docs.orgId, orgId), eq(docs.id, id))).returning({ id: docs.id });
  if (deleted.length === 0) throw AppError.notFound("No such document.");
}

export interface SearchHit {
  id: string;
  title: string;
  url?: string;
  snippet: string;
  score: number;
}

/**
 * Ranked search over published documents. The question's words are OR-ed (not AND-ed, which
 * makes a natural-language question find nothing as soon as one word is missing), so documents
 * containing more of them rank higher; the title weighs more than the body. The lexemes come
 * from to_tsvector already stemmed, so they are cast to tsquery as they are, not stemmed again.
 */
export async function searchDocs(deps: Deps, orgId: string, query: string, limit: number): Promise<SearchHit[]> {
  const rows = await queryRows<{ id: string; title: string; url: string | null; snippet: string; score: number }>(
    deps.db,
    sql`with q as (
          select coalesce(string_agg(quote_literal(lexeme), ' | '), '')::tsquery as query
          from unnest(to_tsvector('english', ${query}))
        )
        -- Rank every match, but build snippets (ts_headline re-reads the whole body) only for the page returned.
        select top.id, top.title, top.url, top.score,
               ts_headline('english', top.body, top.query, ${HEADLINE_OPTIONS}) as snippet
        from (
          select d.id, d.title, d.url, d.body, d.updated_at, q.query, ts_rank_cd(d.search, q.query, 1) as score
          from docs d, q
          where d.org_id = ${orgId} and d.status = 'published' and d.search @@ q.query
          order by score desc, d.updated_at desc
          limit ${limit}
        ) top
        order by top.score desc, top.updated_at desc`,
  );
  return rows.map((r) => ({ id: r.id, title: r.title, ...(r.url ? { url: r.url } : {}), snippet: snippetText(r.snippet), score: Math.round(Number(r.score) * 10_000) / 10_000 }));
}

// ts_headline marks matches with private-use characters that cannot be confused with the body's
// own markdown; the snippet then drops the body's emphasis markers and turns the marks into `**`.
// Marking with `**` directly put markers inside the body's emphasis ("****Reset**", issue #10).
const MARK_START = "\uE000";
const MARK_STOP = "\uE001";
const HEADLINE_OPTIONS = `MaxWords=35, MinWords=15, MaxFragments=1, StartSel=${MARK_START}, StopSel=${MARK_STOP}`;
/**
 * A run of `*` or `_` that opens or closes emphasis: touching a non-space on one side only.
 * Intraword runs (snake_case) and free-standing ones ("2 * 3", "* item") are left alone; the
 * match marks are transparent to that judgement.
 */
const EMPHASIS = /(?<=(?:^|[\s\p{P}])[\uE000\uE001]*)[*_]+(?=[\uE000\uE001]*[^\s*_\uE000\uE001])|(?<=[^\s*_\uE000\uE001][\uE000\uE001]*)[*_]+(?=[\uE000\uE001]*(?:$|[\s\p{P}]))/gu;

/** The snippet as plain text with the matched words in `**…**`, never nested in the body's own emphasis. */
export function snippetText(headline: string): string {
  return headline.replace(EMPHASIS, "").replaceAll(MARK_START, "**").replaceAll(MARK_STOP, "**");
}
