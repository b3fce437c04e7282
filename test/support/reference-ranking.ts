// A reference for the lexical index's ranking (src/knowledge/lexical.ts), written to be obviously
// right rather than fast: no postings, no scratch arrays, no precomputed norms, no partial sort —
// plain loops over every passage and page computing BM25 (Robertson and Zaragoza, "The
// Probabilistic Relevance Framework: BM25 and Beyond", 2009, eq. 3.15 with the idf of Lucene,
// log(1 + (N − df + 0.5) / (df + 0.5))) with RANKING's k1 and b, the title and heading words
// counted by their weights, and a page's score its best passage's plus secondShare of its second
// best and pageShare of the whole page's. The passage cut is the index's own (src/knowledge/
// terms.ts `sectionsOf`, `indexTerms`; src/knowledge/passages.ts `chunkDoc`): only the scoring is
// written again. Used by test/knowledge/engine-*.test.ts.
import type { IndexDoc, WeightedTerms } from "../../src/knowledge/index-types.ts";
import { chunkDoc } from "../../src/knowledge/passages.ts";
import { indexTerms, sectionsOf } from "../../src/knowledge/terms.ts";
import { keptBody, repeatedThreshold } from "../../src/knowledge/boilerplate.ts";

export interface Ranking {
  k1: number;
  b: number;
  titleWeight: number;
  headingWeight: number;
  pageShare: number;
  secondShare: number;
}

interface Field {
  tf: Map<string, number>;
  length: number;
}

interface RefPage extends Field {
  id: string;
  passages: (Field & { text: string })[];
}

function field(parts: [terms: string[], weight: number][]): Field {
  const tf = new Map<string, number>();
  let length = 0;
  for (const [terms, weight] of parts)
    for (const term of terms) {
      tf.set(term, (tf.get(term) ?? 0) + weight);
      length += weight;
    }
  return { tf, length };
}

/**
 * The bodies as the index holds them: without the lines that stand on `repeatedThreshold` of the
 * pages or more (src/knowledge/boilerplate.ts, whose own tests check the rule and its upkeep).
 */
function withoutRepeated(docs: readonly IndexDoc[]): IndexDoc[] {
  const counts = new Map<string, number>();
  for (const doc of docs) for (const key of keptBody(doc.body, () => false).keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  const threshold = repeatedThreshold(docs.length);
  return docs.map((doc) => ({ ...doc, body: keptBody(doc.body, (key) => (counts.get(key) ?? 0) >= threshold).kept }));
}

/** Every page with its passages' weighted term counts, in the order given. */
export function referencePages(given: readonly IndexDoc[], ranking: Ranking): RefPage[] {
  const docs = withoutRepeated(given);
  return docs.map((doc) => {
    const title = indexTerms(doc.title);
    const bodies: string[][] = [];
    const passages: RefPage["passages"] = [];
    for (const section of sectionsOf(doc.body)) {
      const headings = indexTerms(section.headings.join("\n"));
      for (const chunk of chunkDoc(section.text)) {
        // A section's own heading line is counted as its heading, not again as its text.
        const body = indexTerms(section.headings.length > 0 ? chunk.replace(/^#{1,6}\s[^\n]*\n?/, "") : chunk);
        bodies.push(body);
        passages.push({
          text: chunk,
          ...field([
            [body, 1],
            [headings, ranking.headingWeight],
            [title, ranking.titleWeight],
          ]),
        });
      }
    }
    if (passages.length === 0) passages.push({ text: doc.title, ...field([[title, ranking.titleWeight]]) });
    // The whole page: its title and its passages' text (headings are counted in their passages only).
    const page = field([[title, ranking.titleWeight], ...bodies.map((b): [string[], number] => [b, 1])]);
    return { id: doc.id, passages, ...page };
  });
}

const idf = (n: number, df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));

/** BM25 of each field for the query, over the collection `fields`. */
function bm25(fields: readonly Field[], query: WeightedTerms, ranking: Ranking): number[] {
  const n = fields.length;
  let total = 0;
  for (const f of fields) total += f.length;
  const average = total / n || 1;
  const scores = fields.map(() => 0);
  for (const [term, weight] of query) {
    let df = 0;
    for (const f of fields) if (f.tf.has(term)) df++;
    fields.forEach((f, i) => {
      const tf = f.tf.get(term) ?? 0;
      if (tf === 0) return;
      scores[i]! += weight * idf(n, df) * ((tf * (ranking.k1 + 1)) / (tf + ranking.k1 * (1 - ranking.b + (ranking.b * f.length) / average)));
    });
  }
  return scores;
}

export interface RefPassage {
  text: string;
  score: number;
  coverage: number;
  currentCoverage?: number;
}

export interface RefRankedPage {
  docId: string;
  score: number;
  /** Its passages that match, best first (equal scores in document order). */
  passages: RefPassage[];
}

/**
 * Every page some passage of which matches the query, best first (equal scores in the order the
 * pages were given). Coverage: the share of `coverageOf`'s single words (weight × the page idf)
 * a passage holds; `currentCoverage` the same for `current`.
 */
export function referenceSearch(
  docs: readonly IndexDoc[],
  query: WeightedTerms,
  ranking: Ranking,
  coverageOf: WeightedTerms = query,
  current?: WeightedTerms,
): RefRankedPage[] {
  if (query.size === 0 || docs.length === 0) return [];
  const pages = referencePages(docs, ranking);
  const passageScores = bm25(
    pages.flatMap((p) => p.passages),
    query,
    ranking,
  );
  const pageScores = bm25(pages, query, ranking);
  const share = (terms: WeightedTerms, tf: Map<string, number>) => {
    let mass = 0;
    let covered = 0;
    for (const [term, weight] of terms) {
      if (term.includes(" ")) continue;
      let df = 0;
      for (const p of pages) if (p.tf.has(term)) df++;
      mass += weight * idf(pages.length, df);
      if (tf.has(term)) covered += weight * idf(pages.length, df);
    }
    return mass > 0 ? covered / mass : 0;
  };
  const out: (RefRankedPage & { order: number })[] = [];
  let at = 0;
  pages.forEach((page, order) => {
    const passages: RefPassage[] = [];
    for (const passage of page.passages) {
      const score = passageScores[at++]!;
      if (score > 0)
        passages.push({
          text: passage.text,
          score,
          coverage: share(coverageOf, passage.tf),
          ...(current ? { currentCoverage: share(current, passage.tf) } : {}),
        });
    }
    if (passages.length === 0) return;
    // A stable sort: equal scores stay in document order.
    passages.sort((x, y) => y.score - x.score);
    const score = passages[0]!.score + ranking.secondShare * (passages[1]?.score ?? 0) + ranking.pageShare * pageScores[order]!;
    out.push({ docId: page.id, score, passages, order });
  });
  return out.sort((x, y) => y.score - x.score || x.order - y.order).map(({ order: _, ...page }) => page);
}
