// Knowledge, the pipeline's second stage: passages of the org's published docs for the customer's
// message, best page first, with the evidence confidence reads. docs/decisions.md "Knowledge retrieval".
//
//   1. The question — the current message, and the conversation's earlier customer turns weighted
//      below it (src/knowledge/query.ts: typos, joined and split words, the org's synonyms) — is
//      looked up in the org's lexical index (src/knowledge/lexical.ts, exact after any edit:
//      src/knowledge/org-index.ts), which ranks pages by their best passages.
//   2. The best passage of each of the first KNOWLEDGE.pages pages is kept, in page order.
//   3. The evidence that the first page answers (src/agents/pipeline/confidence.ts `evidenceOf`):
//      how far it leads the next page, and how much of the question's weighted rare terms
//      its best passage holds. A message without content words, in a conversation without any, looks nothing up.
import type { ConversationMessage } from "../../conversations/transcript.ts";
import type { Deps } from "../../deps.ts";
import { COVERAGE_THRESHOLD } from "../llm/builtin.ts";
import type { Passage, ProviderKind } from "../llm/types.ts";
import { orgIndex } from "../../knowledge/org-index.ts";
import { buildQuery } from "../../knowledge/query.ts";
import { evidenceOf } from "./confidence.ts";

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

/** The customer's earlier messages in this conversation (the server's, or the ones the client reported), oldest first. */
export function earlierCustomerTurns(history: readonly ConversationMessage[]): string[] {
  return history.filter((m) => m.role === "customer" || (m.role === "reported" && m.reportedSpeaker !== "agent")).map((m) => m.text);
}

/** The best passages of the org's published docs for `question`, best page first. */
export async function retrieve(deps: Deps, orgId: string, question: string, earlier: readonly string[] = []): Promise<ScoredPassage[]> {
  const { index, synonyms } = await orgIndex(deps, orgId);
  const query = buildQuery(index, question, earlier, synonyms);
  if (query.terms.size === 0) return [];
  const pages = index.search(query.terms, KNOWLEDGE.pages + 1, 1);
  if (pages.length === 0) return [];
  const evidence = evidenceOf({ first: pages[0]!.score, second: pages[1]?.score ?? 0, coverage: pages[0]!.coverage });
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
  }));
}

const round = (n: number) => Math.round(n * 1000) / 1000;

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
