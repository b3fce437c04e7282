// Knowledge, the pipeline's second stage: passages of the org's
// published docs for the customer's message, with scores. docs/decisions.md "Chat knowledge".
//
//   1. The existing full-text search (src/knowledge/docs.ts `searchDocs`, read-only use) finds the
//      best KNOWLEDGE.docs documents.
//   2. Each document's passages (src/knowledge/passages.ts: at most PASSAGES.chars characters,
//      cut along headings, then paragraphs, then sentences, each carrying the heading it sits
//      under, cached per document version in deps.passages) are the candidates, so a passage —
//      not a whole doc — is quoted.
//   3. Every passage is scored: 0.7 × term coverage of the question (the builtin provider's
//      measure, src/agents/llm/builtin.ts) + 0.3 × the document's search rank relative to the
//      best document. Passages covering none of the question's terms are dropped; the best
//      KNOWLEDGE.passages are kept, at most KNOWLEDGE.perDoc per document.
import type { Deps } from "../../deps.ts";
import { terms } from "../../kit/words.ts";
import type { Passage } from "../llm/types.ts";
import { searchDocs } from "../../knowledge/docs.ts";
import { passagesOf } from "../../knowledge/passages.ts";

export const KNOWLEDGE = { docs: 5, passages: 4, perDoc: 2 } as const;

/** A retrieved passage and its coverage of the question (the share of its content terms it holds). */
export type ScoredPassage = Passage & { coverage: number };

/** The best passages of the org's published docs for `question`, best first. */
export async function retrieve(deps: Deps, orgId: string, question: string): Promise<ScoredPassage[]> {
  // A message without content terms (a greeting, thanks) has nothing to look up.
  const wanted = terms(question);
  if (wanted.length === 0) return [];
  const hits = await searchDocs(deps, orgId, question.slice(0, 2000), KNOWLEDGE.docs, { snippets: false });
  if (hits.length === 0) return [];
  const cut = await passagesOf(deps, orgId, hits);
  const best = Math.max(...hits.map((h) => h.score), Number.EPSILON);
  const scored: ScoredPassage[] = [];
  for (const hit of hits) {
    const rank = hit.score / best;
    const title = hit.title.replace(/\x1e/g, "");
    const passages = (cut.get(hit.id) ?? [])
      .map((p) => ({ text: p.text, stems: p.stems, covered: wanted.filter((t) => p.stems.has(t)).length / wanted.length }))
      .filter((p) => p.covered > 0)
      .map((p) => ({ docId: hit.id, title, url: hit.url ?? null, text: p.text, stems: p.stems, coverage: p.covered, score: round(0.7 * p.covered + 0.3 * rank) }))
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
