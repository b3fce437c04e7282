// The knowledge base: documents per org. Search is the in-memory index of each org
// (src/knowledge/org-index.ts), rebuilt from these rows; every change here moves its version.
import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { docs, type DocStatus } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import { detectLanguage, normalizeLanguage } from "../kit/language.ts";
import { bumpDocsVersion } from "./synonyms.ts";

export const DOC_LIMITS = { title: 300, body: 200_000, url: 2048, tags: 50, tag: 64 };

export interface DocInput {
  title: string;
  body: string;
  url?: string | null;
  tags?: string[];
  status?: DocStatus;
  /** BCP 47 tag of the document's language; absent or null: detected from its text. */
  language?: string | null;
  /** The key the doc's other-language versions share (src/knowledge/translations.ts); null: none. */
  translationGroup?: string | null;
}

/** How a list names documents whose language is not known (`?language=unknown`). */
export const UNKNOWN_LANGUAGE = "unknown";

export type Doc = typeof docs.$inferSelect;

export function docView(doc: Doc) {
  return {
    id: doc.id,
    title: doc.title,
    body: doc.body,
    ...(doc.url ? { url: doc.url } : {}),
    tags: doc.tags,
    status: doc.status,
    ...(doc.language ? { language: doc.language } : {}),
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
  language: docs.language,
  translationGroup: docs.translationGroup,
  tags: docs.tags,
  status: docs.status,
  createdAt: docs.createdAt,
  updatedAt: docs.updatedAt,
};

/**
 * The language a document is indexed in (docs/decisions.md "Text analysis per language"): the one
 * its writer or import gave, as ISO 639-1 (400 for a tag that is not one), else detected from its
 * title and body (null when detection cannot tell: it is indexed as English).
 */
export async function docLanguage(given: string | null | undefined, title: string, body: string): Promise<string | null> {
  if (given !== undefined && given !== null) {
    const language = normalizeLanguage(given);
    if (!language) throw AppError.badRequest("The document is invalid.", [{ path: "/language", message: "must be a BCP 47 language tag such as es or pt-BR" }]);
    return language;
  }
  return detectLanguage(`${title}\n${body}`);
}

export async function createDoc(deps: Pick<Deps, "db" | "knowledge" | "now">, orgId: string, input: DocInput): Promise<Doc> {
  checkUrl(input.url);
  const language = await docLanguage(input.language, input.title, input.body);
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
        language,
        translationGroup: input.translationGroup ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning(columns);
    await bumpDocsVersion(deps.knowledge.states, tx, orgId);
    return doc as Doc;
  });
}

export async function getDoc(deps: Pick<Deps, "db">, orgId: string, id: string, options: { publishedOnly?: boolean } = {}): Promise<Doc | null> {
  if (!isUuid(id)) return null;
  const [doc] = await deps.db
    .select(columns)
    .from(docs)
    .where(and(eq(docs.orgId, orgId), eq(docs.id, id), options.publishedOnly ? eq(docs.status, "published") : undefined));
  return (doc as Doc) ?? null;
}

/** `language`: an ISO 639-1 code, or UNKNOWN_LANGUAGE for the documents whose language is not known. */
export async function listDocs(
  deps: Pick<Deps, "db">,
  orgId: string,
  options: { status?: DocStatus; language?: string; limit: number; offset: number },
): Promise<Doc[]> {
  const language =
    options.language === undefined ? undefined : options.language === UNKNOWN_LANGUAGE ? isNull(docs.language) : eq(docs.language, options.language);
  return (await deps.db
    .select(columns)
    .from(docs)
    .where(and(eq(docs.orgId, orgId), options.status ? eq(docs.status, options.status) : undefined, language))
    .orderBy(desc(docs.updatedAt))
    .limit(options.limit)
    .offset(options.offset)) as Doc[];
}

/** The languages the org's documents are in, with how many each (null: not known), most first; at most 100. */
export async function docLanguages(deps: Pick<Deps, "db">, orgId: string): Promise<{ language: string | null; count: number }[]> {
  const rows = await deps.db
    .select({ language: docs.language, count: sql<number>`count(*)::int` })
    .from(docs)
    .where(eq(docs.orgId, orgId))
    .groupBy(docs.language)
    .orderBy(sql`count(*) desc`, docs.language)
    .limit(100);
  return rows.map((r) => ({ language: r.language, count: Number(r.count) }));
}

export async function updateDoc(deps: Pick<Deps, "db" | "knowledge" | "now">, orgId: string, id: string, patch: Partial<DocInput>): Promise<Doc> {
  checkUrl(patch.url);
  const before = await getDoc(deps, orgId, id);
  if (!before) throw AppError.notFound("No such document.");
  // A language given is kept; `null` asks for detection again, as does a text whose language was never known.
  if (patch.language !== undefined || (before.language === null && (patch.title !== undefined || patch.body !== undefined)))
    patch = { ...patch, language: await docLanguage(patch.language, patch.title ?? before.title, patch.body ?? before.body) };
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
    await bumpDocsVersion(deps.knowledge.states, tx, orgId);
    return doc as Doc;
  });
}

export async function deleteDoc(deps: Pick<Deps, "db" | "knowledge">, orgId: string, id: string): Promise<void> {
  if (!isUuid(id)) throw AppError.notFound("No such document.");
  const deleted = await deps.db.transaction(async (tx) => {
    const rows = await tx
      .delete(docs)
      .where(and(eq(docs.orgId, orgId), eq(docs.id, id)))
      .returning({ id: docs.id });
    if (rows.length > 0) await bumpDocsVersion(deps.knowledge.states, tx, orgId);
    return rows;
  });
  if (deleted.length === 0) throw AppError.notFound("No such document.");
}
