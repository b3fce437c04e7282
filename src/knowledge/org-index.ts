// Each org's lexical index (src/knowledge/lexical.ts), in this process's memory, exact after any
// document change on every instance (docs/decisions.md "Knowledge retrieval"): every change to an
// org's documents increments its documents' version in the same transaction (src/knowledge/docs.ts),
// and before every question that version (with the synonyms) is compared with the index's — as
// this process holds it (state-cache.ts: dropped by every change at its commit, on every
// instance) or read again by its key; on a difference the documents' ids and versions are read,
// and only the documents that changed are read again and re-indexed. Indexes are kept for the most
// recently asked orgs, bounded by the characters they hold (the per-org cache: src/kit/org-cache.ts).
import { and, eq, inArray } from "drizzle-orm";
import { docs } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { detectLanguage } from "../kit/language.ts";
import type { OrgCacheKind } from "../kit/org-cache.ts";
import { LexicalIndex } from "./lexical.ts";
import { currentKnowledgeState, type KnowledgeState, knowledgeState, synonymMap } from "./synonyms.ts";

export const ORG_INDEX = {
  /** Document characters indexed across all orgs before the least recently asked org's index is dropped. */
  chars: 60_000_000,
  /** Documents read per statement when (re)building. */
  batch: 500,
} as const;

interface Held {
  index: LexicalIndex;
  /** The org's synonyms as last read (JSON text) and the map made from them: remade only when the text differs. */
  synonyms?: { text: string; map: Map<string, string[]> };
}

/** The lexical indexes in `deps.knowledge.orgs`. */
const LEXICAL: OrgCacheKind<Held> = {
  name: "lexical index",
  budget: ORG_INDEX.chars,
  empty: () => ({ index: new LexicalIndex() }),
  weight: (held) => held.index.chars,
};

async function versionOf(deps: Pick<Deps, "db" | "statements">, orgId: string): Promise<number> {
  return (await knowledgeState(deps, orgId)).docsVersion;
}

async function refresh(deps: Pick<Deps, "db">, orgId: string, index: LexicalIndex): Promise<void> {
  const current = await deps.db
    .select({ id: docs.id, updatedAt: docs.updatedAt })
    .from(docs)
    .where(and(eq(docs.orgId, orgId), eq(docs.status, "published")));
  const wanted = new Map(current.map((d) => [d.id, d.updatedAt.getTime()]));
  for (const id of index.ids()) if (!wanted.has(id)) index.remove(id);
  const stale = current.filter((d) => index.versionOf(d.id) !== d.updatedAt.getTime()).map((d) => d.id);
  for (let i = 0; i < stale.length; i += ORG_INDEX.batch) {
    const rows = await deps.db
      .select({ id: docs.id, title: docs.title, url: docs.url, body: docs.body, updatedAt: docs.updatedAt, language: docs.language })
      .from(docs)
      .where(and(eq(docs.orgId, orgId), eq(docs.status, "published"), inArray(docs.id, stale.slice(i, i + ORG_INDEX.batch))));
    for (const row of rows) {
      // A document written before languages were recorded: detected here (English when it cannot be told).
      const language = row.language ?? (await detectLanguage(`${row.title}\n${row.body}`));
      index.put({ ...row, language, title: row.title.replace(/\x1e/g, "") });
    }
  }
}

/**
 * The org's index as of this call — every published document committed before it is in, as it is
 * now — and its synonyms (src/knowledge/synonyms.ts), read in the same lookup.
 */
export async function orgIndex(
  deps: Pick<Deps, "db" | "knowledge" | "statements">,
  orgId: string,
  /** The state as the caller read it already in this request (a chat turn reads it with its session: src/conversations/turn-store.ts). */
  known?: KnowledgeState,
): Promise<{ index: LexicalIndex; synonyms: Map<string, string[]> }> {
  const state = known ?? (await currentKnowledgeState(deps, orgId));
  const held = await deps.knowledge.orgs.of(LEXICAL).get(orgId, state.docsVersion, async ({ index }) => {
    // The version read before the documents: a change committed during the refresh makes the
    // next question's version differ, so it is read then.
    const before = await versionOf(deps, orgId);
    await refresh(deps, orgId, index);
    return before;
  });
  if (held.synonyms?.text !== state.synonyms) held.synonyms = { text: state.synonyms, map: synonymMap(JSON.parse(state.synonyms) as string[][]) };
  return { index: held.index, synonyms: held.synonyms.map };
}
