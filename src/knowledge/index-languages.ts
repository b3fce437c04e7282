// The languages of a lexical index's pages (src/knowledge/lexical.ts): how many pages each language
// has, and each page's, by page number, so a query knows which analyzer to read the question with
// (docs/decisions.md "Text analysis per language").
import { type Analyzer, analyzerFor } from "../kit/analyzer.ts";
import type { Postings } from "./postings.ts";
import { bm25Idf } from "./scores.ts";

export class PageLanguages {
  private readonly counts = new Map<string, number>();
  /** Passages per language. */
  private readonly passageCounts = new Map<string, number>();
  /** By page number: its language's code while it is indexed. */
  private readonly byPage: (string | undefined)[] = [];

  get size(): number {
    return this.counts.size;
  }

  add(page: number, language: string, passages: number): void {
    this.byPage[page] = language;
    this.counts.set(language, (this.counts.get(language) ?? 0) + 1);
    this.passageCounts.set(language, (this.passageCounts.get(language) ?? 0) + passages);
  }

  remove(page: number, language: string, passages: number): void {
    this.byPage[page] = undefined;
    const left = (this.counts.get(language) ?? 0) - 1;
    if (left > 0) this.counts.set(language, left);
    else this.counts.delete(language);
    const passagesLeft = (this.passageCounts.get(language) ?? 0) - passages;
    if (passagesLeft > 0) this.passageCounts.set(language, passagesLeft);
    else this.passageCounts.delete(language);
  }

  /** Pages and passages in a language. */
  pagesIn(language: string): number {
    return this.counts.get(language) ?? 0;
  }

  passagesIn(language: string): number {
    return this.passageCounts.get(language) ?? 0;
  }

  /** BM25's idf of a term (its page postings) among the pages in `language`. */
  pageIdf(pages: Postings, language: string): number {
    return bm25Idf(
      this.pagesIn(language),
      frequencyIn(pages, language, (d) => this.of(d)),
    );
  }

  /** BM25's idf of a term (its passage postings) among the passages of pages in `language`; `pageOf` a live passage's page. */
  passageIdf(passages: Postings, language: string, pageOf: (passage: number) => number | undefined): number {
    return bm25Idf(
      this.passagesIn(language),
      frequencyIn(passages, language, (p) => {
        const page = pageOf(p);
        return page === undefined ? undefined : this.of(page);
      }),
    );
  }

  of(page: number): string | undefined {
    return this.byPage[page];
  }

  /** The languages of the pages, most pages first (ties in code order). */
  list(): string[] {
    return [...this.counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([l]) => l);
  }

  /**
   * The analyzer a question is read with: its language's when some page is in it; else that of
   * the language most pages are in (a question in a language no page speaks cannot match them by
   * its words anyway, and its names and numbers are read as those pages read theirs); English for no pages.
   */
  analyzerFor(language?: string | null): Analyzer {
    const code = language ? analyzerFor(language).language : undefined;
    return analyzerFor(code !== undefined && this.counts.has(code) ? code : (this.list()[0] ?? "en"));
  }
}

/**
 * A term's document frequency among the items (pages, or passages by their page) in `language`:
 * in an index of several languages, how rare a word is is measured among the pages of the
 * question's language, as in a help centre of that language alone — a word every Chinese page
 * uses is common, however few the pages in other languages that use it. Items removed (no
 * language any more) are not counted.
 */
export function frequencyIn(list: Postings, language: string, languageOf: (item: number) => string | undefined): number {
  let n = 0;
  for (const item of list.items) if (languageOf(item) === language) n++;
  return n;
}
