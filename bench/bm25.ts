// The quality benchmark's baseline (bench/scenarios/quality.ts): plain Okapi BM25 (k1 1.2, b 0.75)
// over whole pages — lower-cased letter and digit runs (or, given `tokens`, the words of Unicode
// segmentation: src/kit/analyzer.ts `segmentWords`), no stemming, no stop list, nothing else — so
// the service's ranking is read against the textbook method on the same pages in the same run.
const K1 = 1.2;
const B = 0.75;

const letterRuns = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

export class Bm25 {
  private readonly pages: { id: string; tf: Map<string, number>; length: number }[];
  private readonly df = new Map<string, number>();
  private readonly avg: number;

  constructor(
    pages: { id: string; text: string }[],
    private readonly tokens: (text: string) => string[] = letterRuns,
  ) {
    this.pages = pages.map((p) => {
      const tf = new Map<string, number>();
      const words = this.tokens(p.text);
      for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const w of tf.keys()) this.df.set(w, (this.df.get(w) ?? 0) + 1);
      return { id: p.id, tf, length: words.length };
    });
    this.avg = this.pages.reduce((n, p) => n + p.length, 0) / Math.max(1, this.pages.length);
  }

  /** The ids of the best `k` pages for `query`. */
  rank(query: string, k: number): string[] {
    const n = this.pages.length;
    const words = this.tokens(query);
    const scored = this.pages.map((p) => {
      let score = 0;
      for (const w of words) {
        const f = p.tf.get(w);
        if (!f) continue;
        const df = this.df.get(w)!;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * f * (K1 + 1)) / (f + K1 * (1 - B + (B * p.length) / this.avg));
      }
      return { id: p.id, score };
    });
    return scored
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, k)
      .map((s) => s.id);
  }
}
