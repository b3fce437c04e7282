// Reciprocal rank fusion of the lexical and semantic page rankings (src/knowledge/embed-search.ts
// `fuse`; Cormack, Clarke and Büttcher, SIGIR 2009) against a reference that adds the reciprocal
// ranks as exact fractions, on random rankings: the same pages in the same order, ties to the
// lexical order and then the semantic one, pages the lexical index no longer holds left out, and
// each page carried as its ranking gave it.
import { describe, expect, test } from "bun:test";
import { fuse, HYBRID, type SemanticPage } from "../../src/knowledge/embed-search.ts";
import type { RankedPage } from "../../src/knowledge/index-types.ts";
import { forSeeds, type Rng } from "../support/seeded.ts";

const POOL = Array.from({ length: 30 }, (_, i) => `d${i}`);

function ranking(rng: Rng): string[] {
  const ids = [...POOL];
  for (let i = ids.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  return ids.slice(0, rng.int(0, HYBRID.depth));
}

const lexicalPage = (id: string, i: number): RankedPage => ({
  docId: id,
  title: `Lexical ${id}`,
  url: null,
  score: 10 - i / 3,
  coverage: i / 20,
  passages: [{ text: `words of ${id}`, headings: [], score: 5 - i / 7 }],
});
const semanticPage = (id: string, i: number): SemanticPage => ({
  docId: id,
  similarity: 0.9 - i / 50,
  passage: { text: `meaning of ${id}`, headings: ["H"], score: 0.9 - i / 50 },
});

/** The fused order by exact fractions: Σ 1 / (k + rank), rank from 1; ties by lexical, then semantic rank. */
function referenceOrder(lexical: string[], semantic: string[], known: Set<string>): string[] {
  const k = BigInt(HYBRID.k);
  const score = new Map<string, { num: bigint; den: bigint }>();
  const plus = (id: string, rank: number) => {
    const s = score.get(id) ?? { num: 0n, den: 1n };
    const d = k + BigInt(rank + 1);
    score.set(id, { num: s.num * d + s.den, den: s.den * d });
  };
  lexical.forEach(plus);
  semantic.forEach(plus);
  const rank = (list: string[], id: string) => (list.includes(id) ? list.indexOf(id) : Infinity);
  return [...score.keys()]
    .filter((id) => lexical.includes(id) || known.has(id))
    .sort((a, b) => {
      const x = score.get(a)!;
      const y = score.get(b)!;
      const diff = y.num * x.den - x.num * y.den;
      if (diff !== 0n) return diff > 0n ? 1 : -1;
      return rank(lexical, a) - rank(lexical, b) || rank(semantic, a) - rank(semantic, b);
    });
}

describe("fuse", () => {
  test("random rankings: the reference's order, each page as its ranking gave it", () => {
    let ties = 0;
    forSeeds(500, (rng) => {
      const lexIds = ranking(rng);
      const semIds = ranking(rng);
      const known = new Set([...lexIds, ...POOL.filter(() => rng.chance(0.8))]);
      const lexical = lexIds.map(lexicalPage);
      const semantic = semIds.map(semanticPage);
      const fused = fuse(lexical, semantic, (id) => (known.has(id) ? { title: `Title ${id}`, url: `https://help.example/${id}` } : undefined));
      expect(fused.map((p) => p.docId)).toEqual(referenceOrder(lexIds, semIds, known));
      for (const page of fused) {
        const lex = lexical.find((p) => p.docId === page.docId);
        const sem = semantic.find((p) => p.docId === page.docId);
        if (lex) expect(page).toEqual({ ...lex, lexical: true, semantic: sem !== undefined });
        else
          expect(page).toEqual({
            docId: page.docId,
            title: `Title ${page.docId}`,
            url: `https://help.example/${page.docId}`,
            score: 0,
            coverage: 0,
            passages: [sem!.passage],
            lexical: false,
            semantic: true,
          });
      }
      // Pages at the same rank of one ranking each tie: the comparison reaches the tie rule.
      for (let i = 0; i < Math.min(lexIds.length, semIds.length); i++) if (!semIds.includes(lexIds[i]!) && !lexIds.includes(semIds[i]!)) ties++;
    });
    expect(ties).toBeGreaterThan(200);
  }, 30_000);

  test("a page first by words and one first by meaning tie: the lexical one leads", () => {
    const fused = fuse([lexicalPage("a", 0)], [semanticPage("b", 0)], (id) => ({ title: id, url: null }));
    expect(fused.map((p) => [p.docId, p.lexical, p.semantic])).toEqual([
      ["a", true, false],
      ["b", false, true],
    ]);
  });

  test("a page both rankings find outranks the first of either alone", () => {
    const fused = fuse([lexicalPage("a", 0), lexicalPage("b", 1)], [semanticPage("c", 0), semanticPage("b", 1)], (id) => ({ title: id, url: null }));
    expect(fused.map((p) => p.docId)).toEqual(["b", "a", "c"]);
  });
});
