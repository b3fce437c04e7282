// The lexical index of one org's published documents, in memory (docs/decisions.md "Knowledge
// retrieval"): every document cut into passages along its headings, each passage carrying the page
// title and its heading path, scored with BM25 (passages with the title and headings as weighted
// fields, and the whole page beside them); pages ranked by their best passage plus a share of the
// whole page's score. Built and kept exact by src/knowledge/org-index.ts; queries are made by
// src/knowledge/query.ts. Lines repeated across many pages (footers, related-article lists) are left
// out of every page that holds them (src/knowledge/boilerplate.ts). Each page is analysed in its own
// language (src/kit/analyzer.ts, docs/decisions.md "Text analysis per language"). Pure: no I/O.
import { analyzerFor } from "../kit/analyzer.ts";
import { PageLanguages } from "./index-languages.ts";
import { FurnitureTerms, keptBody, RepeatedLines } from "./boilerplate.ts";
import { addCounts, type Postings, post, sum, unpost } from "./postings.ts";
import { Accumulator, BestTwo, bm25Idf, coverageShare, lengthNorms, type Norms, topPages } from "./scores.ts";
import { indexTerms, pageTerms } from "./terms.ts";
import type { IndexDoc, IndexPassage, WeightedTerms, RankedPage } from "./index-types.ts";

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
  /** In an index of several languages, a page in the query's language counts this many times its score. */
  sameLanguage: 2,
};

interface Entry {
  num: number;
  doc: Omit<IndexDoc, "body" | "language">;
  /** The language the page was analysed in. */
  language: string;
  /** The body as given, as indexed (without its boilerplate lines), and its lines' keys (src/knowledge/boilerplate.ts). */
  body: string;
  kept: string;
  keys: Set<string>;
  /** Single-word terms of its boilerplate lines. */
  furniture: Set<string>;
  passages: number[];
  /** Whole-page weighted term frequency. */
  tf: Map<string, number>;
  length: number;
  surfaces: Map<string, number>;
  chars: number;
}

export class LexicalIndex {
  private readonly entries = new Map<string, Entry>();
  /** By passage number (never reused); undefined once removed. */
  private readonly passages: (IndexPassage | undefined)[] = [];
  /** By page number (never reused): its id while it is indexed. */
  private readonly pages: (string | undefined)[] = [];
  private readonly pageLengths: number[] = [];
  private readonly postings = new Map<string, Postings>();
  private readonly pagePostings = new Map<string, Postings>();
  private passageCount = 0;
  private passageLength = 0;
  private pageLength = 0;
  private norms: Norms | undefined;
  private readonly passageScores = new Accumulator();
  private readonly pageScores = new Accumulator();
  private readonly best = new BestTwo();
  private readonly lines = new RepeatedLines();
  private readonly furniture = new FurnitureTerms();
  /** Lower-cased content words of every document, with their counts: the vocabulary typos are matched against. */
  readonly surfaces = new Map<string, number>();
  /** Characters held, for the cache's bound. */
  chars = 0;
  readonly languages = new PageLanguages(); // of the pages: src/knowledge/index-languages.ts

  get size() {
    return this.entries.size;
  } // prettier-ignore

  versionOf(id: string): number | undefined {
    return this.entries.get(id)?.doc.updatedAt.getTime();
  }

  /** A page's body as indexed (its boilerplate lines left out), and a key naming that text, while it is indexed. */
  textOf(id: string): { key: string; text: string } | undefined {
    const entry = this.entries.get(id);
    return entry ? { key: `${id}:${entry.doc.updatedAt.getTime()}:${entry.num}`, text: entry.kept } : undefined;
  }

  ids(): string[] {
    return [...this.entries.keys()];
  } // prettier-ignore

  /** A page's title and URL while it is indexed (for a page another ranking found: src/knowledge/embed-search.ts). */
  pageOf(id: string): { title: string; url: string | null } | undefined {
    const entry = this.entries.get(id);
    return entry ? { title: entry.doc.title, url: entry.doc.url } : undefined;
  }

  /** Whether any page holds the term, in its title, headings or text (for the query's expansions). */
  has(term: string): boolean {
    // Headings are counted in their passages only (not in the whole page's terms), so both are asked.
    return this.pagePostings.has(term) || this.postings.has(term);
  }

  /** Whether the term stands only in boilerplate lines: pages hold it in text the index leaves out, and nowhere else. */
  onlyInBoilerplate(term: string): boolean {
    return this.furniture.has(term) && !this.has(term);
  }

  pageFrequency(term: string): number {
    return this.pagePostings.get(term)?.live ?? 0;
  }

  private addPassage(entry: Entry, passage: IndexPassage) {
    const id = this.passages.length;
    this.passages.push(passage);
    for (const [t, f] of passage.tf) post(this.postings, t, id, f);
    this.passageLength += passage.length;
    this.passageCount++;
    entry.passages.push(id);
  }

  put(doc: IndexDoc): void {
    const before = this.entries.get(doc.id);
    if (before) this.unindex(before);
    const entry = this.index(doc);
    this.settle(before ? [...before.keys, ...entry.keys] : entry.keys);
  }

  remove(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.unindex(entry);
    this.settle(entry.keys);
  }

  /** After a change: the pages holding a line that became boilerplate, or ceased to be, indexed again. */
  private settle(keys: Iterable<string>): void {
    for (const num of this.lines.settle(this.entries.size, keys)) {
      const entry = this.entries.get(this.pages[num]!)!;
      this.unindex(entry);
      this.index({ ...entry.doc, body: entry.body, language: entry.language });
    }
  }

  private index(doc: IndexDoc): Entry {
    const num = this.pages.length;
    this.pages.push(doc.id);
    const { keys, kept, left } = keptBody(doc.body, (key) => this.lines.dropped(key));
    this.lines.add(num, keys);
    const analyzer = analyzerFor(doc.language);
    const furniture = new Set(left === "" ? [] : indexTerms(left, analyzer).filter((t) => !t.includes(" ")));
    this.furniture.add(furniture);
    const { tf, surfaces, passages } = pageTerms(doc.title, doc.body, kept, analyzer, RANKING);
    const entry: Entry = {
      num,
      doc: { id: doc.id, title: doc.title, url: doc.url, updatedAt: doc.updatedAt },
      language: analyzer.language,
      body: doc.body,
      kept,
      keys,
      furniture,
      passages: [],
      tf,
      surfaces,
      length: 0,
      chars: doc.title.length + doc.body.length + (kept === doc.body ? 0 : kept.length),
    };
    for (const p of passages) this.addPassage(entry, { docId: doc.id, page: num, ...p });
    entry.length = sum(entry.tf);
    this.pageLengths[num] = entry.length;
    for (const [t, f] of entry.tf) post(this.pagePostings, t, num, f);
    addCounts(this.surfaces, entry.surfaces, 1);
    this.pageLength += entry.length;
    this.chars += entry.chars;
    this.languages.add(num, entry.language, entry.passages.length);
    this.entries.set(doc.id, entry);
    this.changed();
    return entry;
  }

  private unindex(entry: Entry): void {
    const id = entry.doc.id;
    this.lines.remove(entry.num, entry.keys);
    this.furniture.remove(entry.furniture);
    this.entries.delete(id);
    this.pages[entry.num] = undefined;
    this.languages.remove(entry.num, entry.language, entry.passages.length);
    for (const p of entry.passages) {
      const passage = this.passages[p]!;
      this.passages[p] = undefined;
      for (const t of passage.tf.keys()) unpost(this.postings, t, (item) => this.passages[item] !== undefined);
      this.passageLength -= passage.length;
      this.passageCount--;
    }
    for (const t of entry.tf.keys()) unpost(this.pagePostings, t, (item) => this.pages[item] !== undefined);
    addCounts(this.surfaces, entry.surfaces, -1);
    this.pageLength -= entry.length;
    this.chars -= entry.chars;
    this.changed();
  }

  /** Inverse document frequency among pages (BM25's, never negative). */
  idf(term: string): number {
    return bm25Idf(this.entries.size, this.pageFrequency(term));
  }

  /** Invalidates the precomputed length norms (any change to the passages or pages). */
  private changed() {
    this.norms = undefined;
  }

  /** BM25's length norms of the index as it is now (src/knowledge/scores.ts `lengthNorms`), computed once per change. */
  private normsNow(): Norms {
    const { k1, b } = RANKING;
    if (this.norms && this.norms.k1 === k1 && this.norms.b === b) return this.norms;
    const avgPassage = this.passageLength / Math.max(1, this.passageCount) || 1;
    const avgPage = this.pageLength / this.entries.size || 1;
    const pageLengths = this.pages.map((id, d) => (id === undefined ? undefined : this.pageLengths[d]!));
    return (this.norms = lengthNorms(k1, b, this.passages, avgPassage, pageLengths, avgPage));
  }

  /**
   * The best `limit` pages for the query, each with its best passages, best first. `coverageOf`:
   * the terms whose share the best passage holds is `coverage` (the query's own by default);
   * `current`, when given, gets its share as `currentCoverage`. `prefer`: the customer's language —
   * when the index holds pages in more than one language, a page in it counts RANKING.sameLanguage
   * times its score (a multilingual help centre answers from the page in the customer's language).
   */
  search(query: WeightedTerms, limit: number, passagesPerPage = 2, coverageOf: WeightedTerms = query, current?: WeightedTerms, prefer?: string): RankedPage[] {
    if (query.size === 0 || this.entries.size === 0) return [];
    const { passageScores, pageScores, best } = this;
    passageScores.reserve(this.passages.length);
    pageScores.reserve(this.pages.length);
    best.reserve(this.pages.length);
    try {
      return this.ranked(query, limit, passagesPerPage, coverageOf, current, this.languages.size > 1 ? prefer : undefined);
    } finally {
      passageScores.clear();
      pageScores.clear();
      best.clear();
    }
  }

  private ranked(query: WeightedTerms, limit: number, perPage: number, coverageOf: WeightedTerms, current?: WeightedTerms, prefer?: string): RankedPage[] {
    const { k1 } = RANKING;
    const norms = this.normsNow();
    // How rare each term is: among all pages, or, with a language preferred, among its pages (src/knowledge/index-languages.ts).
    const passagePage = (p: number) => this.passages[p]?.page;
    const passageIdf = (list: Postings) => (prefer ? this.languages.passageIdf(list, prefer, passagePage) : bm25Idf(this.passageCount, list.live));
    const idfs = new Map<string, number>();
    const idf = (term: string, pages = this.pagePostings.get(term)) =>
      idfs.get(term) ?? idfs.set(term, prefer && pages ? this.languages.pageIdf(pages, prefer) : this.idf(term)).get(term)!;
    // Scores by passage and page number, and the numbers touched, in the scratch arrays (src/knowledge/scores.ts).
    for (const [term, weight] of query) {
      const list = this.postings.get(term);
      if (list) this.passageScores.add(list, weight, passageIdf(list), k1, norms.passage);
      const pages = this.pagePostings.get(term);
      if (pages) this.pageScores.add(pages, weight, idf(term), k1, norms.page);
    }
    const passageScores = this.passageScores.scores;
    const pageScores = this.pageScores.scores;
    // Per page, its two best passages.
    const { best } = this;
    for (let i = 0; i < this.passageScores.count; i++) {
      const p = this.passageScores.touched[i]!;
      best.offer(norms.passagePage[p]!, p, passageScores[p]!);
    }
    const top = topPages(
      best.count,
      (i) => best.pages[i]!,
      (page) =>
        (best.firstScore[page]! + RANKING.secondShare * best.secondScore[page]! + RANKING.pageShare * pageScores[page]!) *
        (prefer !== undefined && this.languages.of(page) === prefer ? RANKING.sameLanguage : 1),
      limit,
    );
    const share = (terms: WeightedTerms, passage: IndexPassage) => coverageShare(terms, passage.tf, idf, passage.text);
    return top.map(({ page, score }) => {
      const entry = this.entries.get(this.pages[page]!)!;
      const passages = best.second[page]! >= 0 ? [best.first[page]!, best.second[page]!] : [best.first[page]!];
      const first = this.passages[passages[0]!]!;
      return {
        docId: entry.doc.id,
        title: entry.doc.title,
        url: entry.doc.url,
        score,
        coverage: share(coverageOf, first),
        ...(current ? { currentCoverage: share(current, first) } : {}),
        passages: passages.slice(0, perPage).map((p) => {
          const passage = this.passages[p]!;
          return { text: passage.text, headings: passage.headings, score: passageScores[p]! };
        }),
      };
    });
  }
}
