// The knowledge base: documents per org, indexed with PostgreSQL full-text search.
import { and, desc, eq, sql } from "drizzle-orm";
import { docs, type DocStatus } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import type { Db } from "../db/client.ts";
import { prepared } from "../db/prepared.ts";
import { isUuid } from "../kit/ids.ts";
import type { StageTimer } from "../kit/stage-timer.ts";
import { passagesOf, queryStems, snippetOf } from "./passages.ts";
import { bumpDocsVersion } from "./synonyms.ts";

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

const columns = {
  id: docs.id,
  orgId: docs.orgId,
  title: docs.title,
  body: docs.body,
  url: docs.url,
  tags: docs.tags,
  status: docs.status,
  createdAt: docs.createdAt,
  updatedAt: docs.updatedAt,
};

export async function createDoc(deps: Deps, orgId: string, input: DocInput): Promise<Doc> {
  checkUrl(input.url);
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const [doc] = await tx
      .insert(docs)
      .values({
        orgId,
        title: input.title,
        body: input.body,
        url: input.url ?? null,
        tags: input.tags ?? [],
        status: input.status ?? "published",
        createdAt: now,
        updatedAt: now,
      })
      .returning(columns);
    await bumpDocsVersion(tx, orgId);
    return doc as Doc;
  });
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
  return deps.db.transaction(async (tx) => {
    const [doc] = await tx
      .update(docs)
      // Each version has its own updated_at, to the millisecond: passages are cached per
      // (id, updated_at) (src/knowledge/passages.ts), so two edits in one millisecond must not share it.
      .set({
        ...patch,
        updatedAt: sql`greatest(${deps.now().toISOString()}::timestamptz, date_trunc('milliseconds', ${docs.updatedAt}) + interval '1 millisecond')`,
      })
      .where(and(eq(docs.orgId, orgId), eq(docs.id, id)))
      .returning(columns);
    // Every change tells the chat's indexes they are behind (src/knowledge/org-index.ts).
    await bumpDocsVersion(tx, orgId);
    return doc as Doc;
  });
}

export async function deleteDoc(deps: Deps, orgId: string, id: string): Promise<void> {
  if (!isUuid(id)) throw AppError.notFound("No such document.");
  const deleted = await deps.db.transaction(async (tx) => {
    const rows = await tx
      .delete(docs)
      .where(and(eq(docs.orgId, orgId), eq(docs.id, id)))
      .returning({ id: docs.id });
    if (rows.length > 0) await bumpDocsVersion(tx, orgId);
    return rows;
  });
  if (deleted.length === 0) throw AppError.notFound("No such document.");
}

/**
 * The ranking query. The question's lexemes are OR-ed in an uncorrelated scalar subquery, so
 * PostgreSQL computes it once per statement (an InitPlan), not once per candidate row. Ranked by
 * ts_rank (term frequency, weighted: title A, body B), not ts_rank_cd: cover density costs about
 * half again as much PostgreSQL CPU per call (its per-cover bookkeeping was a quarter of the
 * database's time under load, docs/decisions.md "Performance") and, with the words OR-ed, orders the
 * same way in practice (test/knowledge/docs.test.ts). Built once
 * per process and prepared (src/db/prepared.ts): PostgreSQL parses and plans it once per
 * connection rather than on every call (about 40 % of its cost), and the query builder does not
 * rebuild it either.
 */
function searchStatement(db: Db) {
  const question = sql`(select coalesce(string_agg(quote_literal(lexeme), ' | '), '')::tsquery from unnest(to_tsvector('english', ${sql.placeholder("query")})))`;
  const score = sql<number>`ts_rank(${docs.search}, ${question}, 1)`;
  return db
    .select({ id: docs.id, title: docs.title, url: docs.url, updatedAt: docs.updatedAt, score: score.as("score") })
    .from(docs)
    .where(and(eq(docs.orgId, sql.placeholder("orgId")), eq(docs.status, "published"), sql`${docs.search} @@ ${question}`))
    .orderBy(desc(sql`score`), desc(docs.updatedAt))
    .limit(sql.placeholder("limit"))
    .prepare("search_docs");
}

export interface SearchHit {
  id: string;
  title: string;
  url?: string;
  /** Empty when the caller asked for none. */
  snippet: string;
  score: number;
  updatedAt: Date;
}

/**
 * Ranked search over published documents. The question's words are OR-ed (not AND-ed, which
 * makes a natural-language question find nothing as soon as one word is missing), so documents
 * containing more of them rank higher; the title weighs more than the body. The lexemes come
 * from to_tsvector already stemmed, so they are cast to tsquery as they are, not stemmed again. Snippets come from the
 * documents' cached passages (src/knowledge/passages.ts), not from ts_headline, which re-parsed
 * every returned body on every call; `snippets: false` skips them (chat quotes passages itself).
 */
export async function searchDocs(
  deps: Deps,
  orgId: string,
  query: string,
  limit: number,
  options: { snippets?: boolean; timer?: StageTimer } = {},
): Promise<SearchHit[]> {
  const rows = await prepared(deps, "search_docs", searchStatement).execute({ orgId, query, limit });
  const hits: SearchHit[] = rows.map((r) => ({
    id: r.id,
    title: r.title,
    ...(r.url ? { url: r.url } : {}),
    snippet: "",
    // Four significant digits, not four decimals: ts_rank divides an OR query's score by its
    // number of words, so a long question's scores are small, and chat ranks hits by their ratio.
    score: Number(Number(r.score).toPrecision(4)),
    updatedAt: r.updatedAt,
  }));
  options.timer?.mark("search");
  if (options.snippets === false || hits.length === 0) return hits;
  const passages = await passagesOf(deps, orgId, hits);
  const wanted = queryStems(query);
  for (const hit of hits) hit.snippet = snippetOf(passages.get(hit.id) ?? [], wanted);
  options.timer?.mark("snippets");
  return hits;
}
