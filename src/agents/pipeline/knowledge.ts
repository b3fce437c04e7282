// Knowledge, the pipeline's second stage (issue #12 "The pipeline" 2): passages of the org's
// published docs for the customer's message, with scores. docs/decisions.md "Chat knowledge".
//
//   1. The existing full-text search (src/workspace/docs.ts `searchDocs`, read-only use) finds the
//      best KNOWLEDGE.docs documents.
//   2. Each document is cut into passages of at most KNOWLEDGE.passageChars characters along its
//      structure (headings, then paragraphs, then sentences), each passage carrying the heading it
//      sits under, so a passage — not a whole doc — is quoted.
//   3. Every passage is scored: 0.7 × term coverage of the question (the builtin provider's
//      measure, src/agents/llm/builtin.ts) + 0.3 × the document's search rank relative to the
//      best document. Passages covering none of the question's terms are dropped; the best
//      KNOWLEDGE.passages are kept, at most KNOWLEDGE.perDoc per document.
// Passages are cached per document version (id + updated_at) in deps.chat, so a popular article is cut once.
import { and, eq, inArray } from "drizzle-orm";
import { docs } from "../../db/schema/index.ts";
import type { CachedPassage } from "../../conversations/state.ts";
import type { Deps } from "../../deps.ts";
import { stem, terms } from "../llm/builtin.ts";
import type { Passage } from "../llm/types.ts";
import { searchDocs } from "../../workspace/docs.ts";

export const KNOWLEDGE = { docs: 5, passages: 4, perDoc: 2, passageChars: 1200, cacheEntries: 500 } as const;

/** Splits text into pieces of at most `max` characters at the weakest boundary that works. */
function pack(units: string[], max: number, joiner: string): string[] {
  const out: string[] = [];
  let current = "";
  for (const unit of units) {
    if (current === "") current = unit;
    else if (current.length + joiner.length + unit.length <= max) current += joiner + unit;
    else {
      out.push(current);
      current = unit;
    }
  }
  if (current !== "") out.push(current);
  return out;
}

function splitLong(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const sentences = text.match(/[^.!?\n]+(?:[.!?]+["')\]]*|\n|$)\s*/g)?.map((s) => s.trim()).filter(Boolean) ?? [text];
  return pack(sentences.flatMap((s) => (s.length <= max ? [s] : (s.match(new RegExp(`[\\s\\S]{1,${max}}`, "g")) ?? []))), max, " ");
}

/**
 * A document body cut into passages: sections start at markdown headings; a section longer than
 * `max` is packed from its paragraphs (then sentences). Every passage after the first of a
 * section repeats the section's heading, so it still says what it is about.
 */
export function chunkDoc(body: string, max: number = KNOWLEDGE.passageChars): string[] {
  const clean = body.replace(/\x1e/g, "").replace(/\r\n?/g, "\n").trim();
  if (clean === "") return [];
  if (clean.length <= max) return [clean];
  const sections: { heading: string | null; text: string }[] = [];
  for (const block of clean.split(/\n(?=#{1,6}\s)/)) {
    const match = /^(#{1,6}\s[^\n]*)\n?([\s\S]*)$/.exec(block);
    sections.push(match ? { heading: match[1]!.trim(), text: match[2]!.trim() } : { heading: null, text: block.trim() });
  }
  const passages: string[] = [];
  for (const { heading, text } of sections) {
    const whole = heading ? `${heading}\n${text}`.trim() : text;
    if (whole.length <= max) {
      if (whole !== "") passages.push(whole);
      continue;
    }
    const room = heading ? max - heading.length - 1 : max;
    const paragraphs = text.split(/\n{2,}/).map((p) => p.trim()).filter(Boolean).flatMap((p) => splitLong(p, room));
    for (const piece of pack(paragraphs, room, "\n\n")) passages.push(heading ? `${heading}\n${piece}` : piece);
  }
  return passages;
}

function cachedPassages(cache: Map<string, CachedPassage[]>, key: string, title: string, body: () => string): CachedPassage[] {
  const hit = cache.get(key);
  if (hit) {
    // Least recently used goes first: re-insert on use.
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const passages = chunkDoc(body()).map((text) => ({ text, stems: stemsOf(`${title}\n${text}`) }));
  cache.set(key, passages);
  if (cache.size > KNOWLEDGE.cacheEntries) cache.delete(cache.keys().next().value!);
  return passages;
}

/** The stemmed words of a text, as the builtin provider's `coverage` compares them. */
function stemsOf(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(stem));
}

/** A retrieved passage and its coverage of the question (the share of its content terms it holds). */
export type ScoredPassage = Passage & { coverage: number };

/** The best passages of the org's published docs for `question`, best first. */
export async function retrieve(deps: Deps, orgId: string, question: string): Promise<ScoredPassage[]> {
  // A message without content terms (a greeting, thanks) has nothing to look up.
  const wanted = terms(question);
  if (wanted.length === 0) return [];
  const hits = await searchDocs(deps, orgId, question.slice(0, 2000), KNOWLEDGE.docs);
  if (hits.length === 0) return [];
  const cache = deps.chat.passages;
  const rows = await deps.db
    .select({ id: docs.id, title: docs.title, url: docs.url, updatedAt: docs.updatedAt })
    .from(docs)
    .where(and(eq(docs.orgId, orgId), eq(docs.status, "published"), inArray(docs.id, hits.map((h) => h.id))));
  const keyOf = (r: (typeof rows)[number]) => `${r.id}:${r.updatedAt.getTime()}`;
  // Bodies are read only for document versions not cut yet.
  const missing = rows.filter((r) => !cache.has(keyOf(r))).map((r) => r.id);
  const bodies = new Map<string, string>();
  if (missing.length > 0)
    for (const r of await deps.db.select({ id: docs.id, body: docs.body }).from(docs).where(and(eq(docs.orgId, orgId), inArray(docs.id, missing)))) bodies.set(r.id, r.body);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const best = Math.max(...hits.map((h) => h.score), Number.EPSILON);
  const scored: ScoredPassage[] = [];
  for (const hit of hits) {
    const doc = byId.get(hit.id);
    if (!doc) continue;
    const rank = hit.score / best;
    const title = doc.title.replace(/\x1e/g, "");
    const passages = cachedPassages(cache, keyOf(doc), title, () => bodies.get(doc.id) ?? "")
      .map((p) => ({ text: p.text, covered: wanted.filter((t) => p.stems.has(t)).length / wanted.length }))
      .filter((p) => p.covered > 0)
      .map((p) => ({ docId: doc.id, title, url: doc.url, text: p.text, coverage: p.covered, score: round(0.7 * p.covered + 0.3 * rank) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, KNOWLEDGE.perDoc);
    scored.push(...passages);
  }
  return scored.sort((a, b) => b.score - a.score).slice(0, KNOWLEDGE.passages);
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** The knowledge coverage of an answer: the best passage's share of the question's terms (0–1). */
export function knowledgeCoverage(passages: readonly ScoredPassage[]): number {
  return passages.reduce((best, p) => Math.max(best, p.coverage), 0);
}
