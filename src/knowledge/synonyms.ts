// The org's synonyms for knowledge search (docs/decisions.md "Knowledge retrieval"): groups of
// words, or two-word phrases, that its customers use for the same thing ("refund, money back").
// A question using one of a group also looks for the others, weighing less than its own words
// (src/knowledge/query.ts). Read with the documents' version (one row by its key,
// `knowledgeState`) and cached with it (state-cache.ts), so an edit counts at once on every
// instance. GET/PUT /api/knowledge/synonyms and the dashboard's synonyms page.
import { eq, sql } from "drizzle-orm";
import type { Db, Tx } from "../db/client.ts";
import { prepared } from "../db/prepared.ts";
import { knowledgeSettings } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorDetail } from "../errors.ts";
import { isContent, stem, words } from "../kit/words.ts";
import type { KnowledgeState, KnowledgeStates } from "../ports/caches.ts";
import { knowledgeChanged } from "./state-cache.ts";

export const SYNONYM_LIMITS = { groups: 300, perGroup: 20, chars: 64 } as const;

export interface Synonyms {
  groups: string[][];
  updatedAt: Date | null;
}

export async function getSynonyms(deps: Pick<Deps, "db">, orgId: string): Promise<Synonyms> {
  const [row] = await deps.db
    .select({ groups: knowledgeSettings.synonyms, updatedAt: knowledgeSettings.synonymsUpdatedAt })
    .from(knowledgeSettings)
    .where(eq(knowledgeSettings.orgId, orgId));
  return row ? { groups: row.groups, updatedAt: row.updatedAt } : { groups: [], updatedAt: null };
}

/**
 * What a question needs of the org's knowledge state (src/ports/caches.ts): its documents' version
 * and its synonyms as stored (JSON text: the index keeps the map it made from the same text, so a
 * question stems nothing of them unless they changed — src/knowledge/org-index.ts). Read by a
 * prepared statement (src/db/prepared.ts) when the per-process cache (state-cache.ts) does not hold it.
 */
export type { KnowledgeState };

const stateQuery = (db: Db) =>
  db
    .select({ docsVersion: sql<string>`${knowledgeSettings.docsVersion}::text`, synonyms: sql<string>`${knowledgeSettings.synonyms}::text` })
    .from(knowledgeSettings)
    .where(eq(knowledgeSettings.orgId, sql.placeholder("orgId")))
    .prepare("knowledge_state");

/** The state as the database holds it now. */
export async function knowledgeState(deps: Pick<Deps, "db" | "statements">, orgId: string): Promise<KnowledgeState> {
  const [row] = await prepared(deps, "knowledge_state", stateQuery).execute({ orgId });
  return row ? { docsVersion: Number(row.docsVersion), synonyms: row.synonyms } : { docsVersion: 0, synonyms: "[]" };
}

/** The state a question uses: this process's cached copy, exact after any change (state-cache.ts). */
export function currentKnowledgeState(deps: Pick<Deps, "db" | "knowledge" | "statements">, orgId: string): Promise<KnowledgeState> {
  return deps.knowledge.states.get(orgId, () => knowledgeState(deps, orgId));
}

/** Counts a change to the org's documents, in the transaction that makes it (src/knowledge/docs.ts); the cached states learn of it at its commit. */
export async function bumpDocsVersion(states: KnowledgeStates, db: Db | Tx, orgId: string): Promise<void> {
  await db
    .insert(knowledgeSettings)
    .values({ orgId, docsVersion: 1 })
    .onConflictDoUpdate({ target: knowledgeSettings.orgId, set: { docsVersion: sql`${knowledgeSettings.docsVersion} + 1` } });
  await knowledgeChanged(states, db, orgId);
}

/** The content stems of an entry: one word or two (a longer phrase cannot be matched). */
const entryStems = (entry: string) => words(entry).filter(isContent).map(stem);

/** Problems with groups as given (trimmed, blank entries dropped first), as error details. */
export function checkGroups(groups: string[][]): { clean: string[][]; details: ErrorDetail[] } {
  const details: ErrorDetail[] = [];
  const clean: string[][] = [];
  if (groups.length > SYNONYM_LIMITS.groups) details.push({ path: "/synonyms", message: `at most ${SYNONYM_LIMITS.groups} groups` });
  groups.slice(0, SYNONYM_LIMITS.groups).forEach((group, i) => {
    const entries = [...new Set(group.map((e) => e.trim().replace(/\s+/g, " ").toLowerCase()).filter((e) => e !== ""))];
    if (entries.length < 2) details.push({ path: `/synonyms/${i}`, message: "a group needs at least two different entries" });
    if (entries.length > SYNONYM_LIMITS.perGroup) details.push({ path: `/synonyms/${i}`, message: `at most ${SYNONYM_LIMITS.perGroup} entries` });
    entries.forEach((entry, j) => {
      const n = entryStems(entry).length;
      if (entry.length > SYNONYM_LIMITS.chars) details.push({ path: `/synonyms/${i}/${j}`, message: `at most ${SYNONYM_LIMITS.chars} characters` });
      else if (n === 0 || n > 2) details.push({ path: `/synonyms/${i}/${j}`, message: "one or two words that are not stop words" });
    });
    clean.push(entries);
  });
  return { clean, details };
}

export async function putSynonyms(deps: Pick<Deps, "db" | "knowledge" | "now">, orgId: string, groups: string[][]): Promise<Synonyms> {
  const { clean, details } = checkGroups(groups);
  if (details.length > 0) throw AppError.badRequest("The synonyms are invalid.", details);
  const now = deps.now();
  await deps.db.transaction(async (tx) => {
    await tx
      .insert(knowledgeSettings)
      .values({ orgId, synonyms: clean, synonymsUpdatedAt: now })
      .onConflictDoUpdate({ target: knowledgeSettings.orgId, set: { synonyms: clean, synonymsUpdatedAt: now } });
    await knowledgeChanged(deps.knowledge.states, tx, orgId);
  });
  return { groups: clean, updatedAt: now };
}

/**
 * Synonym groups as the query reads them: an entry's term (its stem, or its two stems as the
 * pair term src/knowledge/lexical.ts indexes) → the terms of the other entries of its groups
 * (each word, and the pair for a two-word entry).
 */
export function synonymMap(groups: readonly string[][]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const group of groups) {
    const entries = group.map(entryStems).filter((s) => s.length === 1 || s.length === 2);
    for (const entry of entries) {
      const key = entry.join(" ");
      const others = entries.filter((e) => e.join(" ") !== key).flatMap((e) => (e.length === 2 ? [...e, e.join(" ")] : e));
      out.set(key, [...new Set([...(out.get(key) ?? []), ...others])]);
    }
  }
  return out;
}
