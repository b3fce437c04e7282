// Why a question is answered from the page it is (the "Try a question" preview of "Test your agent",
// README "Measuring answers"): the lexical ranking src/agents/pipeline/knowledge.ts `retrieve` reads,
// taken again through the same index and query (src/knowledge/org-index.ts, query.ts) and laid out
// for a person — which of the question's words the first page's best passage holds, which other
// pages hold, and which no page uses; the words the query added (corrected spellings, joined or
// split words, the org's synonyms); how far the first page leads the next (the margin confidence
// reads: src/agents/pipeline/confidence.ts `evidenceOf`); and the pages ranked next. With an
// embeddings server the answer's pages are the fused ranking; these reasons stay the lexical ones
// (confidence is lexical evidence either way). Reads only; nothing is stored.
import type { Deps } from "../../deps.ts";
import { orgIndex } from "../../knowledge/org-index.ts";
import { buildQuery } from "../../knowledge/query.ts";
import { queryLanguage } from "../../knowledge/query-language.ts";
import { indexTerms } from "../../knowledge/terms.ts";
import { KNOWLEDGE } from "./knowledge.ts";

/** Where a word of the question was found: the first page's best passage, other pages only, or nowhere. */
export type TermPlace = "passage" | "pages" | "none";

export interface RankedReason {
  doc_id: string;
  title: string;
  /** The page's score in the lexical ranking (BM25 of its best passages and of the whole page). */
  score: number;
}

export interface RetrievalExplanation {
  terms: { word: string; found: TermPlace }[];
  /** Terms the query looked for that are none of the question's own words (stems). */
  added: string[];
  first: RankedReason | null;
  /** 1 − next/first score: 1 when no other page matches at all, 0 when the next page scores as high. */
  lead: number | null;
  next: RankedReason[];
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export async function explainRetrieval(deps: Pick<Deps, "db" | "knowledge" | "statements">, orgId: string, question: string): Promise<RetrievalExplanation> {
  const { index, synonyms } = await orgIndex(deps, orgId);
  const query = buildQuery(index, question, [], synonyms, await queryLanguage(deps, orgId, index, question));
  const analyzer = index.languages.analyzerFor(query.language);
  const pages = query.terms.size === 0 ? [] : index.search(query.terms, KNOWLEDGE.pages + 1, 1, query.terms, undefined, query.language);
  const best = pages[0]?.passages[0];
  const inPassage = new Set(best ? indexTerms(`${pages[0]!.title}\n${best.headings.join("\n")}\n${best.text}`, analyzer) : []);
  const own = [...new Set(analyzer.words(question).filter(analyzer.isContent))];
  const ownStems = new Set(own.map(analyzer.stem));
  const terms = own.map((word) => {
    const s = analyzer.stem(word);
    return { word, found: (inPassage.has(s) ? "passage" : index.has(s) ? "pages" : "none") as TermPlace };
  });
  const added = [...query.current.keys()].filter((t) => !t.includes(" ") && !ownStems.has(t));
  const reason = (p: (typeof pages)[number]): RankedReason => ({ doc_id: p.docId, title: p.title, score: round(p.score) });
  const first = pages[0] ? reason(pages[0]) : null;
  const lead = pages[0] && pages[0].score > 0 ? round(1 - (pages[1]?.score ?? 0) / pages[0].score) : null;
  return { terms, added, first, lead, next: pages.slice(1).map(reason) };
}
