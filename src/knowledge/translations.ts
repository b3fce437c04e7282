// The same article in several languages (README "Knowledge base", languages): docs that share a
// `translation_group` are versions of one another. An import sets the group (a help centre's
// article id, a page's hreflang cluster: src/knowledge/source-docs.ts); a member links or unlinks a
// doc by hand (the doc page, PATCH /api/docs/{id} `translation_of`). The group is a key, not a doc:
// deleting one version leaves the others linked.
import { createHash } from "node:crypto";
import { and, asc, eq, ne, sql } from "drizzle-orm";
import { docs } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";

/** Other-language versions listed for a doc: a group larger than this is cut (languages first, then ids). */
export const TRANSLATIONS_LISTED = 50;

export interface Translation {
  id: string;
  /** ISO 639-1; null: not known. */
  language: string | null;
  title: string;
}

/** The group key an import gives the versions of one article: bounded, and apart from every other source's. */
export function importedGroup(sourceId: string, key: string): string {
  return `source:${sourceId}:${createHash("sha256").update(key).digest("hex").slice(0, 32)}`;
}

/** The doc's other-language versions (itself left out), by language. */
export async function docTranslations(deps: Pick<Deps, "db">, orgId: string, doc: { id: string; translationGroup: string | null }): Promise<Translation[]> {
  if (!doc.translationGroup) return [];
  return deps.db
    .select({ id: docs.id, language: docs.language, title: docs.title })
    .from(docs)
    .where(and(eq(docs.orgId, orgId), eq(docs.translationGroup, doc.translationGroup), ne(docs.id, doc.id)))
    .orderBy(sql`${docs.language} asc nulls last`, asc(docs.id))
    .limit(TRANSLATIONS_LISTED);
}

/**
 * Links doc `id` and `of` as versions of the same article, or unlinks `id` from its versions (`of`
 * null; the others stay linked). Linking joins their groups: `id`'s whole group joins `of`'s, a doc
 * without one joins the other's, and two without one start a group named after `of`. 404 when
 * `id` is not the org's; 400 when `of` names no doc of the org, or `id` itself.
 */
export async function linkTranslation(deps: Pick<Deps, "db">, orgId: string, id: string, of: string | null): Promise<void> {
  if (!isUuid(id)) throw AppError.notFound("No such document.");
  await deps.db.transaction(async (tx) => {
    const [doc] = await tx
      .select({ id: docs.id, group: docs.translationGroup })
      .from(docs)
      .where(and(eq(docs.orgId, orgId), eq(docs.id, id)))
      .for("update");
    if (!doc) throw AppError.notFound("No such document.");
    let group: string | null = null;
    if (of !== null) {
      if (of === id)
        throw AppError.badRequest("A document is not a translation of itself.", [{ path: "/translation_of", message: "must be another document" }]);
      const [target] = isUuid(of)
        ? await tx
            .select({ id: docs.id, group: docs.translationGroup })
            .from(docs)
            .where(and(eq(docs.orgId, orgId), eq(docs.id, of)))
            .for("update")
        : [];
      if (!target)
        throw AppError.badRequest("translation_of names no document of this organisation.", [{ path: "/translation_of", message: "names no document" }]);
      group = target.group ?? doc.group ?? `doc:${target.id}`;
      if (!target.group)
        await tx
          .update(docs)
          .set({ translationGroup: group })
          .where(and(eq(docs.orgId, orgId), eq(docs.id, target.id)));
      // The versions already linked to `id` come along.
      if (doc.group && doc.group !== group)
        await tx
          .update(docs)
          .set({ translationGroup: group })
          .where(and(eq(docs.orgId, orgId), eq(docs.translationGroup, doc.group)));
    }
    await tx
      .update(docs)
      .set({ translationGroup: group })
      .where(and(eq(docs.orgId, orgId), eq(docs.id, id)));
  });
}
