// The lexical index of one org's published documents, in memory (docs/decisions.md "Knowledge
// retrieval"): every document cut into passages along its headings, each passage carrying the page
// title and its heading path, scored with BM25 (passages with the title and headings as weighted
// fields, and the whole page beside them); pages ranked by their best passage plus a share of the
// whole page's score. Built and kept exact by src/knowledge/org-index.ts; queries are made by
// src/knowledge/query.ts. Pure: no I/O.
import { isContent, stem, words } from "../kit/words.ts";
import { chunkDoc } from "./passages.ts";

export const RANKING = {
  k1: 1.6,
  b: 0.9,
  /** A title word counts as this many body words of a passage; a heading word of its path likewise. */
  titleWeight: 2,
  headingWeight: 3,
  /** Share of the whole page's BM25 score added to its best passage's. */
  pageShare: 0.25,
  /** Share of the second-best passage's score added (a page answering in two places). */
  secondShare: 0.3,
};

/** Distinct words whose stems an index remembers. */
const STEMS_MAX = 200_000;

export interface IndexDoc {
  id: string;
  title: string;
  url: string | null;
  body: string;
  updatedAt: Date;
}

export interface IndexPassage {
  docId: string;
  text: string;
  headings: string[];
  /** Weighted term frequency (body + heading and title words counted by their weights). */
  tf: Map<string, number>;
  length: number;
}

interface Entry {
  doc: Omit<IndexDoc, "body">;
  passages: number[];
  /** Whole-page weighted term frequency. */
  tf: Map<string, number>;
  length: number;
  surfaces: Map<string, number>;
  chars: number;
}

/** A query term and how much it counts (1 for the current message's words, less for expansions and earlier turns). */
export type WeightedTerms = Map<string, number>;

export interface RankedPassage {
  text: string;
  headings: string[];
  score: number;
}

export interface RankedPage {
  docId: string;
  title: string;
  url: string | null;
  score: number;
  passages: RankedPassage[];
  /** Share (0–1) of `coverageOf`'s weighted idf mass present in the page's best passage (title and headings included). */
  coverage: number;
}

/** Adjacent content words as one term ("learner permit"): a question using the same two words together matches them together. */
export function pairsOf(stems: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < stems.length; i++) if (stems[i - 1] !== stems[i]) out.push(`${stems[i - 1]} ${stems[i]}`);
  return out;
}

/** Stems of a text's content words, their adjacent pairs, with hyphenated pairs also joined ("non-citizen" → non, citizen, noncitizen). */
export function indexTerms(text: string, stemOf: (word: string) => string = stem): string[] {
  const stems = words(text).filter(isContent).map(stemOf);
  const out = [...stems, ...pairsOf(stems)];
  for (const m of text.toLowerCase().matchAll(/([\p{L}]{2,})-([\p{L}]{2,})/gu)) out.push(stemOf(m[1]! + m[2]!));
  return out;
}

const count = (into: Map<string, number>, terms: readonly string[], weight: number) => {
  for (const t of terms) into.set(t, (into.get(t) ?? 0) + weight);
};

/** A body's sections along its markdown headings, each with the path of headings above it. */
export function sectionsOf(body: string): { headings: string[]; text: string }[] {
  const clean = body.replace(/\x1e/g, "").replace(/\r\n?/g, "\n");
  const out: { headings: string[]; text: string }[] = [];
  const stack: { level: number; text: string }[] = [];
  for (const block of clean.split(/\n(?=#{1,6}\s)/)) {
    const match = /^(#{1,6})\s+([^\n]*)/.exec(block);
    if (match) {
      const level = match[1]!.length;
      while (stack.length > 0 && stack.at(-1)!.level >= level) stack.pop();
      stack.push({ level, text: match[2]!.trim() });
    }
    if (block.trim() !== "") out.push({ headings: stack.map((h) => h.text), text: block.trim() });
  }
  return out;
}

export class LexicalIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly passages = new Map<number, IndexPassage>();
  private nextPassage = 0;
  /** term → passage number → weighted tf. */
  private readonly postings = new Map<string, Map<number, number>>();
  /** term → doc id → weighted tf. */
  private readonly pagePostings = new Map<string, Map<string, number>>();
  private passageLength = 0;
  private pageLength = 0;
  /** Lower-cased content words of every document, with their counts: the vocabulary typos are matched against. */
  readonly surfaces = new Map<string, number>();
  /** Characters held, for the cache's bound. */
  chars = 0;
  /** Stems of the words seen, so each distinct word is stemmed once per index (bounded by its vocabulary). */
  private readonly stems = new Map<string, string>();
  readonly stemOf = (word: string): string => {
    let s = this.stems.get(word);
    if (s === undefined) {
      s = stem(word);
      if (this.stems.size < STEMS_MAX) this.stems.set(word, s);
    }
    return s;
  };

  get size() {
    return this.entries.size;
  }

  versionOf(id: string): number | undefined {
    return this.entries.get(id)?.doc.updatedAt.getTime();
  }

  ids(): string[] {
    return [...this.entries.keys()];
  }

  /** Documents holding the stem (for the query's expansions). */
  has(term: string): boolean {
    return this.pagePostings.has(term);
  }

  pageFrequency(term: string): number {
    return this.pagePostings.get(term)?.size ?? 0;
  }

  put(doc: IndexDoc): void {
    this.remove(doc.id);
    const titleTerms = indexTerms(doc.title, this.stemOf);
    const entry: Entry = { doc: { id: doc.id, title: doc.title, url: doc.url, updatedAt: doc.updatedAt }, passages: [], tf: new Map(), length: 0, surfaces: new Map(), chars: doc.title.length + doc.body.length };
    count(entry.tf, titleTerms, RANKING.titleWeight);
    for (const w of words(`${doc.title}\n${doc.body}`)) if (isContent(w) && w.length >= 3) entry.surfaces.set(w, (entry.surfaces.get(w) ?? 0) + 1);
    for (const section of sectionsOf(doc.body)) {
      for (const chunk of chunkDoc(section.text)) {
        const bodyText = section.headings.length > 0 ? chunk.replace(/^#{1,6}\s[^\n]*\n?/, "") : chunk;
        const bodyTerms = indexTerms(bodyText, this.stemOf);
        const tf = new Map<string, number>();
        count(tf, bodyTerms, 1);
        count(tf, indexTerms(section.headings.join("\n"), this.stemOf), RANKING.headingWeight);
        count(tf, titleTerms, RANKING.titleWeight);
        count(entry.tf, bodyTerms, 1);
        const length = [...tf.values()].reduce((n, v) => n + v, 0);
        const id = this.nextPassage++;
        this.passages.set(id, { docId: doc.id, text: chunk, headings: section.headings, tf, length });
        for (const [t, f] of tf) (this.postings.get(t) ?? this.postings.set(t, new Map()).get(t)!).set(id, f);
        this.passageLength += length;
        entry.passages.push(id);
      }
    }
    if (entry.passages.length === 0) {
      // A page with a title only still has one (title) passage.
      const tf = new Map<string, number>();
      count(tf, titleTerms, RANKING.titleWeight);
      const id = this.nextPassage++;
      const length = [...tf.values()].reduce((n, v) => n + v, 0);
      this.passages.set(id, { docId: doc.id, text: doc.title, headings: [], tf, length });
      for (const [t, f] of tf) (this.postings.get(t) ?? this.postings.set(t, new Map()).get(t)!).set(id, f);
      this.passageLength += length;
      entry.passages.push(id);
    }
    entry.length = [...entry.tf.values()].reduce((n, v) => n + v, 0);
    for (const [t, f] of entry.tf) (this.pagePostings.get(t) ?? this.pagePostings.set(t, new Map()).get(t)!).set(doc.id, f);
    for (const [w, n] of entry.surfaces) this.surfaces.set(w, (this.surfaces.get(w) ?? 0) + n);
    this.pageLength += entry.length;
    this.chars += entry.chars;
    this.entries.set(doc.id, entry);
  }

  remove(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    for (const p of entry.passages) {
      const passage = this.passages.get(p)!;
      for (const t of passage.tf.keys()) {
        const list = this.postings.get(t)!;
        list.delete(p);
        if (list.size === 0) this.postings.delete(t);
      }
      this.passageLength -= passage.length;
      this.passages.delete(p);
    }
    for (const t of entry.tf.keys()) {
      const list = this.pagePostings.get(t)!;
      list.delete(id);
      if (list.size === 0) this.pagePostings.delete(t);
    }
    for (const [w, n] of entry.surfaces) {
      const left = (this.surfaces.get(w) ?? 0) - n;
      if (left > 0) this.surfaces.set(w, left);
      else this.surfaces.delete(w);
    }
    this.pageLength -= entry.length;
    this.chars -= entry.chars;
    this.entries.delete(id);
  }

  /** Inverse document frequency among pages (BM25's, never negative). */
  idf(term: string): number {
    const n = this.entries.size;
    const df = this.pageFrequency(term);
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** The best `limit` pages for the query, each with its best passages, best first. */
  search(query: WeightedTerms, limit: number, passagesPerPage = 2, coverageOf: WeightedTerms = query): RankedPage[] {
    if (query.size === 0 || this.entries.size === 0) return [];
    const { k1, b } = RANKING;
    const passageCount = Math.max(1, this.passages.size);
    const avgPassage = this.passageLength / passageCount || 1;
    const avgPage = this.pageLength / this.entries.size || 1;
    const passageScores = new Map<number, number>();
    const pageScores = new Map<string, number>();
    for (const [term, weight] of query) {
      const list = this.postings.get(term);
      if (list) {
        const idf = Math.log(1 + (passageCount - list.size + 0.5) / (list.size + 0.5));
        for (const [p, f] of list) {
          const length = this.passages.get(p)!.length;
          passageScores.set(p, (passageScores.get(p) ?? 0) + (weight * idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * length) / avgPassage)));
        }
      }
      const pages = this.pagePostings.get(term);
      if (pages) {
        const idf = this.idf(term);
        for (const [d, f] of pages) {
          const length = this.entries.get(d)!.length;
          pageScores.set(d, (pageScores.get(d) ?? 0) + (weight * idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * length) / avgPage)));
        }
      }
    }
    const best = new Map<string, { id: number; score: number }[]>();
    for (const [p, score] of passageScores) {
      const docId = this.passages.get(p)!.docId;
      (best.get(docId) ?? best.set(docId, []).get(docId)!).push({ id: p, score });
    }
    const pages: { docId: string; score: number; top: { id: number; score: number }[] }[] = [];
    for (const [docId, list] of best) {
      list.sort((x, y) => y.score - x.score || x.id - y.id);
      const score = list[0]!.score + RANKING.secondShare * (list[1]?.score ?? 0) + RANKING.pageShare * (pageScores.get(docId) ?? 0);
      pages.push({ docId, score, top: list.slice(0, passagesPerPage) });
    }
    pages.sort((x, y) => y.score - x.score || (x.docId < y.docId ? -1 : 1));
    let mass = 0;
    // Coverage counts words, not pairs (a pair only says two covered words stand together).
    for (const [term, weight] of coverageOf) if (!term.includes(" ")) mass += weight * this.idf(term);
    return pages.slice(0, limit).map(({ docId, score, top }) => {
      const entry = this.entries.get(docId)!;
      const first = this.passages.get(top[0]!.id)!;
      let covered = 0;
      for (const [term, weight] of coverageOf) if (!term.includes(" ") && first.tf.has(term)) covered += weight * this.idf(term);
      return {
        docId,
        title: entry.doc.title,
        url: entry.doc.url,
        score,
        coverage: mass > 0 ? covered / mass : 0,
        passages: top.map((t) => {
          const p = this.passages.get(t.id)!;
          return { text: p.text, headings: p.headings, score: t.score };
        }),
      };
    });
  }
}
