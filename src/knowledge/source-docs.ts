// Docs a knowledge source keeps in sync (README "Knowledge sources"). The source (src/sources/)
// writes docs only through these functions, which go through createDoc/updateDoc (so passages
// follow, src/knowledge/passages.ts) and remember two things on the doc: which source owns it and
// the SHA-256 of the title and body the source last wrote. A doc whose text no longer matches that
// hash was edited by a person in the dashboard or the API: the source keeps it and reports a
// conflict instead of overwriting it (docs/decisions.md "Knowledge sources").
import { createHash } from "node:crypto";
import { and, count, eq, sql } from "drizzle-orm";
import { docs } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { bumpDocsVersion } from "./synonyms.ts";
import { createDoc, type Doc, type DocInput, updateDoc } from "./docs.ts";
import { importedGroup } from "./translations.ts";

export function sourceHash(title: string, body: string): string {
  return createHash("sha256").update(title).update("\n").update(body).digest("hex");
}

export interface SourceDocState {
  id: string;
  sourceId: string | null;
  /** The text differs from what the source last wrote. */
  editedLocally: boolean;
}

export async function sourceDocState(deps: Pick<Deps, "db">, orgId: string, id: string): Promise<SourceDocState | null> {
  const [row] = await deps.db
    .select({ id: docs.id, sourceId: docs.sourceId, sourceHash: docs.sourceHash, title: docs.title, body: docs.body })
    .from(docs)
    .where(and(eq(docs.orgId, orgId), eq(docs.id, id)));
  if (!row) return null;
  return { id: row.id, sourceId: row.sourceId, editedLocally: row.sourceHash !== null && row.sourceHash !== sourceHash(row.title, row.body) };
}

export type SourceWrite = { outcome: "created" | "updated"; doc: Doc } | { outcome: "kept"; id: string };

/**
 * Writes a source's page as a doc: a new doc when `docId` is null or gone, else an update —
 * unless the doc was edited locally, when it is kept as it is ("kept").
 */
export async function writeSourceDoc(
  deps: Pick<Deps, "db" | "knowledge" | "now">,
  orgId: string,
  sourceId: string,
  docId: string | null,
  input: Required<Pick<DocInput, "title" | "body">> &
    Pick<DocInput, "url" | "tags" | "language"> & {
      /** What the versions of one article in several languages share on this source (an article id, an hreflang cluster). */
      translationKey?: string;
    },
): Promise<SourceWrite> {
  const hash = sourceHash(input.title, input.body);
  // What the source says of the page's language (hreflang, a help centre's locale, `<html lang>`) and
  // versions; without a language, the text's is detected (src/knowledge/docs.ts `docLanguage`).
  const languages = {
    ...(input.language ? { language: input.language } : {}),
    ...(input.translationKey ? { translationGroup: importedGroup(sourceId, input.translationKey) } : {}),
  };
  const state = docId ? await sourceDocState(deps, orgId, docId) : null;
  if (state && state.sourceId === sourceId) {
    if (state.editedLocally) return { outcome: "kept", id: state.id };
    const doc = await deps.db.transaction(async (tx) => {
      const inner = { ...deps, db: tx };
      const updated = await updateDoc(inner, orgId, state.id, {
        title: input.title,
        body: input.body,
        url: input.url ?? null,
        ...(input.tags ? { tags: input.tags } : {}),
        language: null, // none said: detected again from the new text
        ...languages,
      });
      await tx.update(docs).set({ sourceHash: hash }).where(eq(docs.id, state.id));
      return updated;
    });
    return { outcome: "updated", doc };
  }
  const doc = await deps.db.transaction(async (tx) => {
    const created = await createDoc({ ...deps, db: tx }, orgId, {
      title: input.title,
      body: input.body,
      url: input.url ?? null,
      tags: input.tags ?? [],
      ...languages,
    });
    await tx.update(docs).set({ sourceId, sourceHash: hash }).where(eq(docs.id, created.id));
    return created;
  });
  return { outcome: "created", doc };
}

/** Removes a source's doc, unless it was edited locally (then it stays, and "kept" says so). */
export async function removeSourceDoc(
  deps: Pick<Deps, "db" | "knowledge">,
  orgId: string,
  sourceId: string,
  docId: string,
): Promise<"removed" | "kept" | "gone"> {
  const state = await sourceDocState(deps, orgId, docId);
  if (!state || state.sourceId !== sourceId) return "gone";
  if (state.editedLocally) return "kept";
  await deps.db.transaction(async (tx) => {
    const removed = await tx
      .delete(docs)
      .where(and(eq(docs.orgId, orgId), eq(docs.id, docId), eq(docs.sourceId, sourceId)))
      .returning({ id: docs.id });
    // Counted like any removal, so every instance's index drops it (src/knowledge/org-index.ts).
    if (removed.length > 0) await bumpDocsVersion(deps.knowledge.states, tx, orgId);
  });
  return "removed";
}

/** How many docs the org holds, whoever wrote them. */
export async function countOrgDocs(deps: Pick<Deps, "db">, orgId: string): Promise<number> {
  const [row] = await deps.db.select({ n: count() }).from(docs).where(eq(docs.orgId, orgId));
  return Number(row?.n ?? 0);
}

/** The UTF-8 bytes of the org's document bodies, whoever wrote them; with `docId`, of that doc's body only. */
export async function orgDocBytes(deps: Pick<Deps, "db">, orgId: string, docId?: string): Promise<number> {
  const [row] = await deps.db
    .select({ n: sql<string>`coalesce(sum(octet_length(${docs.body})), 0)` })
    .from(docs)
    .where(and(eq(docs.orgId, orgId), docId ? eq(docs.id, docId) : undefined));
  return Number(row?.n ?? 0);
}
