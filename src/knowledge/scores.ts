// Scratch space of the lexical index's search (src/knowledge/lexical.ts), kept from one question
// to the next: a question's terms can reach most passages of a large knowledge base, and flat
// arrays allocated per question (or a map of objects per page) cost more in allocation and
// garbage collection than the scoring itself. A search runs synchronously to its end, so one set
// per index serves every question; each search clears what it touched before it returns.

export interface Norms {
  k1: number;
  b: number;
  /** By passage number: `k1 · (1 − b + b · length / average)`, BM25's length part; −1 for a removed passage. */
  passage: Float64Array;
  /** By passage number: its page's number (−1 when removed). */
  passagePage: Int32Array;
  /** By page number, as for passages. */
  page: Float64Array;
}

/**
 * The length part of BM25 for every passage and page, computed once per state of the index instead
 * of once per posting of every question; the same expression as inline, so the same scores to the bit.
 */
export function lengthNorms(
  k1: number,
  b: number,
  passages: readonly ({ length: number; page: number } | undefined)[],
  avgPassage: number,
  pageLengths: readonly (number | undefined)[],
  avgPage: number,
): Norms {
  const passage = new Float64Array(passages.length);
  const passagePage = new Int32Array(passages.length);
  passages.forEach((p, i) => {
    passage[i] = p ? k1 * (1 - b + (b * p.length) / avgPassage) : -1;
    passagePage[i] = p ? p.page : -1;
  });
  const page = new Float64Array(pageLengths.length);
  pageLengths.forEach((length, d) => (page[d] = length === undefined ? -1 : k1 * (1 - b + (b * length) / avgPage)));
  return { k1, b, passage, passagePage, page };
}

const grown = (size: number) => Math.max(64, Math.ceil(size * 1.5));

/** Scores by item number (passage or page) and the items touched, in the order first touched. */
export class Accumulator {
  scores = new Float64Array(0);
  touched = new Int32Array(0);
  count = 0;

  /** Room for item numbers below `size`. */
  reserve(size: number): void {
    if (this.scores.length >= size) return;
    this.scores = new Float64Array(grown(size));
    this.touched = new Int32Array(this.scores.length);
  }

  /** Adds one term's BM25 part to every live item of its postings: `norm` by item number (−1: removed). */
  add(list: { items: number[]; tf: number[] }, weight: number, idf: number, k1: number, norm: Float64Array): void {
    const { scores, touched } = this;
    const { items, tf } = list;
    let count = this.count;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (norm[item]! < 0) continue;
      const f = tf[i]!;
      if (scores[item] === 0) touched[count++] = item;
      scores[item]! += (weight * idf * f * (k1 + 1)) / (f + norm[item]!);
    }
    this.count = count;
  }

  clear(): void {
    const { scores, touched } = this;
    for (let i = 0; i < this.count; i++) scores[touched[i]!] = 0;
    this.count = 0;
  }
}

/** Per page, its best and second-best passage and their scores; `pages` lists the pages seen, in the order first seen. */
export class BestTwo {
  first = new Int32Array(0);
  firstScore = new Float64Array(0);
  second = new Int32Array(0);
  secondScore = new Float64Array(0);
  seen = new Uint8Array(0);
  pages = new Int32Array(0);
  count = 0;

  reserve(size: number): void {
    if (this.seen.length >= size) return;
    const n = grown(size);
    this.first = new Int32Array(n);
    this.firstScore = new Float64Array(n);
    this.second = new Int32Array(n);
    this.secondScore = new Float64Array(n);
    this.seen = new Uint8Array(n);
    this.pages = new Int32Array(n);
  }

  /** Counts passage `p` of `page` with `score`: ties keep the passage seen first. */
  offer(page: number, p: number, score: number): void {
    if (this.seen[page] === 0) {
      this.seen[page] = 1;
      this.pages[this.count++] = page;
      this.first[page] = p;
      this.firstScore[page] = score;
      this.second[page] = -1;
      this.secondScore[page] = 0;
    } else if (score > this.firstScore[page]!) {
      this.second[page] = this.first[page]!;
      this.secondScore[page] = this.firstScore[page]!;
      this.first[page] = p;
      this.firstScore[page] = score;
    } else if (score > this.secondScore[page]!) {
      this.second[page] = p;
      this.secondScore[page] = score;
    }
  }

  clear(): void {
    for (let i = 0; i < this.count; i++) this.seen[this.pages[i]!] = 0;
    this.count = 0;
  }
}

/**
 * The `limit` best of `count` candidates, best first: higher score first, then lower page number
 * (the order a full sort by the same rule gives), kept in a small sorted array instead of sorting
 * every candidate.
 */
export function topPages(count: number, pageAt: (i: number) => number, scoreOf: (page: number) => number, limit: number): { page: number; score: number }[] {
  const top: { page: number; score: number }[] = [];
  if (limit <= 0) return top;
  if (limit >= count) {
    for (let i = 0; i < count; i++) top.push({ page: pageAt(i), score: scoreOf(pageAt(i)) });
    return top.sort((x, y) => y.score - x.score || x.page - y.page);
  }
  for (let i = 0; i < count; i++) {
    const page = pageAt(i);
    const score = scoreOf(page);
    if (top.length === limit) {
      const last = top[limit - 1]!;
      if (score < last.score || (score === last.score && page > last.page)) continue;
    }
    let at = top.length;
    while (at > 0 && (top[at - 1]!.score < score || (top[at - 1]!.score === score && top[at - 1]!.page > page))) at--;
    top.splice(at, 0, { page, score });
    if (top.length > limit) top.pop();
  }
  return top;
}

/**
 * The share (0–1) of the terms' weighted idf mass a passage holds (`tf`: its terms): the coverage
 * the evidence reads. Words only: a pair says two covered words stand together, nothing more.
 */
export function coverageShare(terms: ReadonlyMap<string, number>, tf: ReadonlyMap<string, number>, idf: (term: string) => number, text?: string): number {
  let mass = 0;
  let covered = 0;
  for (const [term, weight] of terms) {
    if (term.includes(" ")) continue;
    const w = weight * idf(term);
    mass += w;
    if (tf.has(term) || (text !== undefined && UNSPACED.test(term) && text.includes(term))) covered += w;
  }
  return mass > 0 ? covered / mass : 0;
}

/**
 * Scripts written without spaces between words (Han, kana, Thai, Lao, Khmer, Myanmar): their words
 * are found by a segmenter's dictionary (src/kit/analyzer.ts), which may cut the same characters
 * otherwise in a question than in a page ("教职" asked, "教职员" written). Such a term counts as
 * covered when the passage holds its characters, as a reader finds them.
 */
const UNSPACED = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}ー]+$/u;

/** BM25's inverse document frequency of a term held by `df` of `n` items (never negative; `n` at least 1). */
export const bm25Idf = (n: number, df: number): number => Math.log(1 + (Math.max(1, n) - df + 0.5) / (df + 0.5));
