// Knowledge, the pipeline's second stage: passages of the org's published docs for the customer's
// message, best page first, with the evidence confidence reads. docs/decisions.md "Knowledge retrieval".
//
//   1. The question — the current message, and the conversation's earlier customer turns weighted
//      below it (src/knowledge/query.ts: typos, joined and split words, the org's synonyms) — is
//      looked up in the org's lexical index (src/knowledge/lexical.ts, exact after any edit:
//      src/knowledge/org-index.ts), which ranks pages by their best passages.
//   2. The best passage of each of the first KNOWLEDGE.pages pages is kept, in page order.
//   3. The evidence that the first page answers (src/agents/pipeline/confidence.ts `evidenceOf`):
//      whether the knowledge base holds an answer at all (`heldOf`: how much of the question's
//      weighted rare terms the first page's best passage holds, and how many of the message's
//      words no page uses — passed on as every passage's `held`, below which the builtin quotes
//      nothing), times whether this page is the one (how far it leads the next page, and the same
//      coverage). A message without content words, in a conversation without any, looks nothing up.
//   4. With an embeddings server (EMBEDDINGS_*), the lexical ranking is fused with a ranking by
//      meaning (src/knowledge/embed-search.ts, reciprocal rank fusion). Confidence stays lexical
//      evidence: that of the fused first page against the best other page by words, so when both
//      rankings agree it is what it would be without embeddings, and a page found by meaning
//      alone is offered as a lead (it counts as covering at COVERAGE_THRESHOLD), with low
//      confidence and a person offered (docs/decisions.md "Knowledge retrieval").
import type { ConversationMessage } from "../../conversations/transcript.ts";
import type { Deps } from "../../deps.ts";
import { COVERAGE_THRESHOLD, HELD_BELOW } from "../llm/builtin.ts";
import type { Passage, ProviderKind } from "../llm/types.ts";
import { orgIndex } from "../../knowledge/org-index.ts";
import type { LexicalIndex } from "../../knowledge/lexical.ts";
import { buildQuery, type Query } from "../../knowledge/query.ts";
import { type LanguageHints, queryLanguage } from "../../knowledge/query-language.ts";
import { type FusedPage, fuse, HYBRID, questionVector, semanticPages } from "../../knowledge/embed-search.ts";
import { CONFIDENCE, evidenceOf, heldOf } from "./confidence.ts";

export const KNOWLEDGE = {
  pages: 3,
  /** Most evidence for a message without content words of its own (the neutral value: neither an answer to be sure of nor a reason to hand over). */
  contentless: 0.5,
} as const;

/**
 * A retrieved passage: `coverage` is the share of the question's weighted rare terms (the current
 * message's, and the earlier turns' at their lower weights) its page's best passage holds (0–1); `score` the evidence that its page is the one that answers
 * (0–1, calibrated: src/agents/pipeline/confidence.ts).
 */
export type ScoredPassage = Passage & { coverage: number };

/**
 * The coverage the "held" curve reads: the better of the whole question's (with the earlier turns)
 * and the message's own — a customer who changes the subject is judged on the new one, a follow-up
 * that leans on the conversation on the conversation.
 */
const heldCoverage = (page: { coverage: number; currentCoverage?: number }) => Math.max(page.coverage, page.currentCoverage ?? 0);

/**
 * How many of the current message's words no page of the index uses — `query.current` keeps them
 * after typo correction and synonyms (src/knowledge/query.ts). Every such word counts here once;
 * the short ones (under CONFIDENCE.unknownMinLength letters) are left out of the coverage
 * (`coverageTerms`), the longer ones weigh there too.
 */
export function unknownWords(index: { has(term: string): boolean }, current: ReadonlyMap<string, number>): number {
  let n = 0;
  for (const term of current.keys()) if (!term.includes(" ") && !index.has(term)) n++;
  return n;
}

/**
 * The terms whose share of a passage is its coverage: the query's, less the single words shorter
 * than CONFIDENCE.unknownMinLength that no page uses. Such a word ("how *long* does it *take*" of a
 * shop's five pages) is as often an everyday word a small help centre happens not to write as the
 * subject: in the coverage it weighed the most of all (no page uses it, so its idf is the highest)
 * and could never be covered, so a plain question of a small centre fell under 0.5 whatever its
 * other words. It counts as an unknown word instead (`unknownWords`), once. A longer word no page
 * uses weighs in both, as the curve was fitted: that is the plainest sign of another subject.
 */
export function coverageTerms(index: { has(term: string): boolean }, terms: ReadonlyMap<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [term, weight] of terms) if (term.includes(" ") || termLength(term) >= CONFIDENCE.unknownMinLength || index.has(term)) out.set(term, weight);
  return out;
}

/**
 * A word's length in letters of an alphabet: a Han, katakana or Hangul character writes a
 * syllable or a morpheme, about what three letters of an alphabet write, so "首都" (capital) or
 * "モンゴル" (Mongolia) is a long word, not a short everyday one. Hiragana counts as letters: a short
 * hiragana word is the everyday kind ("どう", how; "いい", good) the rule leaves out.
 */
export function termLength(term: string): number {
  let n = 0;
  for (const ch of term) n += /[\p{Script=Han}\p{Script=Katakana}\p{Script=Hangul}]/u.test(ch) ? 3 : 1;
  return n;
}

/** The customer's earlier messages in this conversation (the server's, or the ones the client reported), oldest first. */
export function earlierCustomerTurns(history: readonly ConversationMessage[]): string[] {
  return history.filter((m) => m.role === "customer" || (m.role === "reported" && m.reportedSpeaker !== "agent")).map((m) => m.text);
}

/**
 * The best passages of the org's published docs for `question`, best page first; the question read
 * in the customer's language (src/knowledge/query-language.ts), pages in it preferred.
 */
export async function retrieve(
  deps: Pick<Deps, "config" | "db" | "knowledge" | "log" | "statements">,
  orgId: string,
  question: string,
  earlier: readonly string[] = [],
  hints: LanguageHints = {},
  known?: Parameters<typeof orgIndex>[2],
): Promise<ScoredPassage[]> {
  const { index, synonyms } = await orgIndex(deps, orgId, known);
  const query = buildQuery(index, question, earlier, synonyms, await queryLanguage(deps, orgId, index, question, hints));
  if (query.terms.size === 0) return [];
  if (deps.config.embeddings) return hybrid(deps, orgId, question, index, query);
  return lexicalPassages(index, query);
}

/** Steps 1–3 on an index in hand (no embeddings): the first pages' best passages, the first with the evidence that it answers. */
export function lexicalPassages(index: LexicalIndex, query: Query): ScoredPassage[] {
  if (query.terms.size === 0) return [];
  const pages = index.search(query.terms, KNOWLEDGE.pages + 1, 1, coverageTerms(index, query.terms), coverageTerms(index, query.current), query.language);
  if (pages.length === 0) return [];
  const unknown = unknownWords(index, query.current);
  const held = heldOf({ coverage: heldCoverage(pages[0]!), unknown });
  const evidence = evidenceOf({
    first: pages[0]!.score,
    second: pages[1]?.score ?? 0,
    coverage: pages[0]!.coverage,
    unknown,
    heldCoverage: heldCoverage(pages[0]!),
  });
  // A message without content words of its own ("and then?", "yes") is never answered with more
  // than neutral confidence, even when the conversation before it points at a page.
  const capped = query.current.size === 0 ? Math.min(evidence, KNOWLEDGE.contentless) : evidence;
  return pages.slice(0, KNOWLEDGE.pages).map((page, i) => ({
    docId: page.docId,
    title: page.title,
    url: page.url,
    text: page.passages[0]!.text,
    coverage: round(page.coverage),
    score: i === 0 ? capped : round((capped * page.score) / pages[0]!.score),
    held: round(held),
  }));
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** Step 4: the lexical ranking fused with the ranking by meaning; lexical only when the question's vector is not to be had. */
async function hybrid(
  deps: Pick<Deps, "config" | "db" | "knowledge" | "log" | "statements">,
  orgId: string,
  question: string,
  index: Awaited<ReturnType<typeof orgIndex>>["index"],
  query: ReturnType<typeof buildQuery>,
): Promise<ScoredPassage[]> {
  const asking = questionVector(deps, question);
  const lexical = index.search(query.terms, HYBRID.depth, 1, coverageTerms(index, query.terms), coverageTerms(index, query.current), query.language);
  const vector = await asking;
  let pages: FusedPage[] = lexical.map((p) => ({ ...p, lexical: true, semantic: false }));
  if (vector) {
    try {
      pages = fuse(lexical, await semanticPages(deps, orgId, index, vector), (id) => index.pageOf(id));
    } catch (error) {
      deps.log.warn("reading passage vectors failed; answering lexically", { error: error instanceof Error ? error.message : String(error) });
    }
  }
  if (pages.length === 0) return [];
  const first = pages[0]!;
  const second = Math.max(0, ...lexical.filter((p) => p.docId !== first.docId).map((p) => p.score));
  const unknown = unknownWords(index, query.current);
  const held = heldOf({ coverage: heldCoverage(first), unknown });
  const evidence = evidenceOf({ first: first.score, second, coverage: first.coverage, unknown, heldCoverage: heldCoverage(first) });
  const capped = query.current.size === 0 ? Math.min(evidence, KNOWLEDGE.contentless) : evidence;
  return pages.slice(0, KNOWLEDGE.pages).map((page, i) => ({
    docId: page.docId,
    title: page.title,
    url: page.url,
    text: page.passages[0]!.text,
    // A page found by meaning covers the question as far as the builtin needs to quote it.
    coverage: round(page.semantic ? Math.max(page.coverage, COVERAGE_THRESHOLD) : page.coverage),
    score: i === 0 ? capped : first.score > 0 ? round(Math.min(capped, (capped * page.score) / first.score)) : capped,
    // Words cannot tell whether a page found by meaning answers: it is quoted as a lead, never held back.
    held: round(first.semantic ? Math.max(held, HELD_BELOW) : held),
  }));
}

/** The evidence that the answer's first page is the right one (0–1); 0 without passages. */
export function knowledgeCoverage(passages: readonly ScoredPassage[]): number {
  return passages[0]?.score ?? 0;
}

/**
 * The passages an answer used, for its `sources`: those covering the question (the builtin quotes
 * the first of them); for a model, those whose page title (or its number in the prompt, "[2]") its
 * reply names — it is told to cite them (src/agents/llm/prompt.ts) — or, when it names none, the
 * covering ones still.
 */
export function usedPassages(passages: readonly ScoredPassage[], reply: string, provider: ProviderKind): ScoredPassage[] {
  const covering = passages.filter((p) => p.coverage >= COVERAGE_THRESHOLD);
  if (provider === "builtin") return covering;
  const text = reply.toLowerCase();
  const named = passages.filter((p, i) => text.includes(p.title.toLowerCase()) || text.includes(`[${i + 1}]`));
  return named.length > 0 ? named : covering;
}
