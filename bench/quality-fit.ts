// The fit behind CONFIDENCE's "held" curve (src/agents/pipeline/confidence.ts `heldOf`), made
// again from the development data so anyone can check the numbers in use: each corpus's pages in an
// index of their own (src/knowledge/lexical.ts, queries as chat builds them), asked the corpus's own
// questions (the knowledge base holds an answer) and the other corpus's (it does not). A logistic
// regression of "asked of its own corpus" on the first page's coverage and the count of unknown
// words, each set weighted alike so the larger one does not decide, by Newton's method. Run by
// `npm run bench -- quality`; nothing here is asserted by the tests.
import { CONFIDENCE, evidenceOf, heldOf } from "../src/agents/pipeline/confidence.ts";
import { coverageTerms, unknownWords } from "../src/agents/pipeline/knowledge.ts";
import { LexicalIndex } from "../src/knowledge/lexical.ts";
import { buildQuery } from "../src/knowledge/query.ts";

export interface Corpus {
  name: string;
  docs: { id: string; title: string; body: string }[];
  questions: { doc_id: string; text: string }[];
  /** Later messages with the conversation before them: asked of their own corpus only. */
  followups: { doc_id: string; text: string; history: { speaker: string; text: string }[] }[];
}

/** One question against one index: the features the curves read, and whether it was asked of its own corpus. */
export interface Observation {
  set: string;
  held: boolean;
  /** The first page is the labelled one. */
  right: boolean;
  coverage: number;
  /** The better of the whole question's coverage and the message's own (src/agents/pipeline/knowledge.ts `heldCoverage`). */
  heldCoverage: number;
  unknown: number;
  first: number;
  second: number;
}

export function indexOf(corpus: Corpus): LexicalIndex {
  const index = new LexicalIndex();
  for (const d of corpus.docs) index.put({ id: d.id, title: d.title, url: null, body: d.body, updatedAt: new Date(0) });
  return index;
}

function observe(
  set: string,
  index: LexicalIndex,
  questions: (Corpus["questions"][number] & { history?: Corpus["followups"][number]["history"] })[],
  own: boolean,
): Observation[] {
  return questions.map((q) => {
    const earlier = (q.history ?? []).filter((h) => h.speaker === "user").map((h) => h.text);
    const query = buildQuery(index, q.text, earlier);
    const pages = query.terms.size === 0 ? [] : index.search(query.terms, 2, 1, coverageTerms(index, query.terms), coverageTerms(index, query.current));
    const top = pages[0];
    return {
      set,
      held: own,
      right: own && top?.docId === q.doc_id,
      coverage: top?.coverage ?? 0,
      heldCoverage: Math.max(top?.coverage ?? 0, top?.currentCoverage ?? 0),
      unknown: unknownWords(index, query.current),
      first: top?.score ?? 0,
      second: pages[1]?.score ?? 0,
    };
  });
}

/** Every corpus's questions (and follow-ups) asked of its own pages, and its first questions of every other corpus's pages. */
export function observations(corpora: Corpus[]): Observation[] {
  const indexes = corpora.map(indexOf);
  const out: Observation[] = [];
  corpora.forEach((asked, i) => {
    out.push(...observe(asked.name, indexes[i]!, asked.questions, true));
    if (asked.followups.length > 0) out.push(...observe(`${asked.name} follow-ups`, indexes[i]!, asked.followups, true));
    corpora.forEach((holder, j) => {
      if (i !== j) out.push(...observe(`${asked.name} → ${holder.name}`, indexes[j]!, asked.questions, false));
    });
  });
  return out;
}

const features = (o: Observation) => [1, o.heldCoverage, Math.min(o.unknown, CONFIDENCE.unknownMax)];

/** Logistic regression by Newton's method (a small ridge keeps it defined), each set weighted alike. */
export function fitHeld(rows: Observation[]): number[] {
  const sizes = new Map<string, number>();
  for (const r of rows) sizes.set(r.set, (sizes.get(r.set) ?? 0) + 1);
  const weight = rows.map((r) => rows.length / sizes.size / sizes.get(r.set)!);
  let beta = [0, 0, 0];
  for (let iteration = 0; iteration < 50; iteration++) {
    const h = [0, 1, 2].map((i) => [0, 1, 2].map((j) => (i === j ? 1e-3 : 0)));
    const g = [0, 0, 0];
    rows.forEach((r, n) => {
      const x = features(r);
      const p = 1 / (1 + Math.exp(-x.reduce((s, v, i) => s + v * beta[i]!, 0)));
      const w = weight[n]!;
      for (let i = 0; i < 3; i++) {
        g[i]! += w * ((r.held ? 1 : 0) - p) * x[i]!;
        for (let j = 0; j < 3; j++) h[i]![j]! += w * p * (1 - p) * x[i]! * x[j]!;
      }
    });
    beta = beta.map((b, i) => b + solve3(h, g)[i]!);
  }
  return beta;
}

/** Solves the 3×3 system h·x = g (Cramer's rule). */
function solve3(h: number[][], g: number[]): number[] {
  const det = (m: number[][]) =>
    m[0]![0]! * (m[1]![1]! * m[2]![2]! - m[1]![2]! * m[2]![1]!) -
    m[0]![1]! * (m[1]![0]! * m[2]![2]! - m[1]![2]! * m[2]![0]!) +
    m[0]![2]! * (m[1]![0]! * m[2]![1]! - m[1]![1]! * m[2]![0]!);
  const d = det(h);
  return [0, 1, 2].map((c) => det(h.map((row, i) => row.map((v, j) => (j === c ? g[i]! : v)))) / d);
}

/** Per set: the share answered (evidence ≥ threshold, as in use) and the share answered from another page. */
export function shares(rows: Observation[]): { set: string; n: number; answered: number; wrong: number; held: number }[] {
  const sets = [...new Set(rows.map((r) => r.set))];
  return sets.map((set) => {
    const inSet = rows.filter((r) => r.set === set);
    const answered = inSet.filter((r) => r.first > 0 && evidenceOf(r) >= CONFIDENCE.offerBelow);
    return {
      set,
      n: inSet.length,
      answered: answered.length / inSet.length,
      wrong: answered.filter((r) => !r.right).length / inSet.length,
      held: inSet.filter((r) => heldOf({ coverage: r.heldCoverage, unknown: r.unknown }) >= 0.5).length / inSet.length,
    };
  });
}
