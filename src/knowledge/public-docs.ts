// The documents the public help centre may show (src/helpcentre/): published, carrying one of the
// help centre's public tags, and never tagged `internal` — whatever else they carry
// (docs/decisions.md "Help centre: what is public"). Every read here is scoped to the org and
// applies that rule in SQL, so a draft or an internal document cannot reach a page, a search, the
// sitemap or the widget through any of them.
import { and, arrayContains, arrayOverlaps, asc, eq, gte, inArray, lte, not, type SQL, sql } from "drizzle-orm";
import { docs } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { TRANSLATIONS_LISTED } from "./translations.ts";

/** The tag that keeps a document off the help centre even when it carries a public tag. */
export const INTERNAL_TAG = "internal";

/** At most this many public documents are listed (a sitemap file holds 50,000 URLs; sitemaps.org). */
export const PUBLIC_DOCS_LIMIT = 5000;

export interface PublicDocHead {
  id: string;
  title: string;
  tags: string[];
  /** ISO 639-1 (src/kit/language.ts), or null when not known: the help centre then takes the org's default. */
  language: string | null;
  /** The key its other-language versions share (src/knowledge/translations.ts), or null: none. */
  translationGroup: string | null;
  updatedAt: Date;
}

const HEAD = { id: docs.id, title: docs.title, tags: docs.tags, language: docs.language, translationGroup: docs.translationGroup, updatedAt: docs.updatedAt };

export interface PublicDoc extends PublicDocHead {
  body: string;
}

function isPublic(orgId: string, publicTags: readonly string[]): SQL | undefined {
  return and(eq(docs.orgId, orgId), eq(docs.status, "published"), arrayOverlaps(docs.tags, [...publicTags]), not(arrayContains(docs.tags, [INTERNAL_TAG])));
}

/** The org's public documents (no bodies), by title. Nothing when no tag is public. */
export async function publicDocHeads(deps: Pick<Deps, "db">, orgId: string, publicTags: readonly string[]): Promise<PublicDocHead[]> {
  if (publicTags.length === 0) return [];
  return deps.db.select(HEAD).from(docs).where(isPublic(orgId, publicTags)).orderBy(asc(docs.title), asc(docs.id)).limit(PUBLIC_DOCS_LIMIT);
}

const HEX12 = /^[0-9a-f]{12}$/;

/**
 * The public document whose id starts with `prefix` (12 lower-case hex digits: the first 48 bits
 * of its uuid, which is how article URLs name it). Read as a range of the primary key, so it costs
 * one index probe; two documents of one org sharing 48 random bits resolve to the lower id.
 */
export async function publicDocByPrefix(deps: Pick<Deps, "db">, orgId: string, publicTags: readonly string[], prefix: string): Promise<PublicDoc | null> {
  if (publicTags.length === 0 || !HEX12.test(prefix)) return null;
  const low = `${prefix.slice(0, 8)}-${prefix.slice(8, 12)}-0000-0000-000000000000`;
  const high = `${prefix.slice(0, 8)}-${prefix.slice(8, 12)}-ffff-ffff-ffffffffffff`;
  const [doc] = await deps.db
    .select({ ...HEAD, body: docs.body })
    .from(docs)
    .where(and(isPublic(orgId, publicTags), gte(docs.id, low), lte(docs.id, high)))
    .orderBy(asc(docs.id))
    .limit(1);
  return doc ?? null;
}

/** Which of `ids` are public documents of the org now (a search's hits are filtered through this). */
export async function publicDocsAmong(deps: Pick<Deps, "db">, orgId: string, publicTags: readonly string[], ids: readonly string[]): Promise<PublicDocHead[]> {
  if (publicTags.length === 0 || ids.length === 0) return [];
  return deps.db
    .select(HEAD)
    .from(docs)
    .where(and(isPublic(orgId, publicTags), inArray(docs.id, [...ids])));
}

/**
 * The public versions of one article in other languages: the org's public documents sharing its
 * `translation_group` (a draft or internal version is never among them), by language, bounded as
 * the knowledge base lists them (TRANSLATIONS_LISTED).
 */
export async function publicTranslations(deps: Pick<Deps, "db">, orgId: string, publicTags: readonly string[], group: string | null): Promise<PublicDocHead[]> {
  if (publicTags.length === 0 || group === null) return [];
  return deps.db
    .select(HEAD)
    .from(docs)
    .where(and(isPublic(orgId, publicTags), eq(docs.translationGroup, group)))
    .orderBy(sql`${docs.language} asc nulls last`, asc(docs.id))
    .limit(TRANSLATIONS_LISTED);
}
