// The lexical index's scoring (src/knowledge/lexical.ts, src/knowledge/scores.ts) against the plain
// reference of test/support/reference-ranking.ts on random help centres: the same pages in the same
// order, the same scores (to float rounding), the same best passages and coverage; and the scratch
// parts one by one — Accumulator, BestTwo, lengthNorms, topPages — against plain loops.
import { describe, expect, test } from "bun:test";
import type { RankedPage } from "../../src/knowledge/index-types.ts";
import { LexicalIndex, RANKING } from "../../src/knowledge/lexical.ts";
import { Accumulator, BestTwo, lengthNorms, topPages } from "../../src/knowledge/scores.ts";
import { randomDocs, randomQuery } from "../support/random-corpus.ts";
import { type RefRankedPage, referenceSearch } from "../support/reference-ranking.ts";
import { forSeeds, type Rng } from "../support/seeded.ts";

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

function expectClose(got: number, want: number, what: string) {
  if (!close(got, want)) throw new Error(`${what}: got ${got}, want ${want}`);
}

/**
 * `got` (the index's first `limit` pages) is the reference's ranking: at each place a page the
 * reference scores the same there (pages of equal score may trade places only with each other,
 * and the index puts them in the order they were indexed), with its best passages and coverage.
 */
export function expectSameRanking(got: RankedPage[], want: RefRankedPage[], limit: number, passagesPerPage: number, order: (id: string) => number) {
  expect(got.length).toBe(Math.min(limit, want.length));
  expect(new Set(got.map((p) => p.docId)).size).toBe(got.length);
  got.forEach((page, i) => {
    expectClose(page.score, want[i]!.score, `score at place ${i + 1}`);
    const ref = want.find((w) => w.docId === page.docId);
    if (!ref) throw new Error(`${page.docId} at place ${i + 1} does not match in the reference`);
    expectClose(page.score, ref.score, `${page.docId}'s score`);
    if (i > 0 && page.score === got[i - 1]!.score) expect(order(page.docId)).toBeGreaterThan(order(got[i - 1]!.docId));
    expect(page.passages.length).toBe(Math.min(passagesPerPage, ref.passages.length >= 2 ? 2 : 1));
    page.passages.forEach((passage, j) => {
      expectClose(passage.score, ref.passages[j]!.score, `${page.docId}'s passage ${j + 1}`);
      // Passages of equal score may be either: the one given is one of them.
      const same = ref.passages.filter((p) => close(p.score, passage.score) && p.text === passage.text);
      if (same.length === 0) throw new Error(`${page.docId}'s passage ${j + 1} is none of the reference's of its score`);
      if (j === 0) {
        expect(same.some((p) => close(p.coverage, page.coverage))).toBe(true);
        if (page.currentCoverage !== undefined) expect(same.some((p) => close(p.currentCoverage!, page.currentCoverage!))).toBe(true);
      }
    });
  });
}

describe("the index ranks as the reference scorer does", () => {
  test("random help centres and questions: same pages, order, scores, passages and coverage", () => {
    let answered = 0;
    let ties = 0;
    forSeeds(60, (rng) => {
      const docs = randomDocs(rng, rng.int(1, 25));
      const index = new LexicalIndex();
      for (const doc of docs) index.put(doc);
      const order = (id: string) => docs.findIndex((d) => d.id === id);
      for (let q = 0; q < 6; q++) {
        const query = randomQuery(rng);
        const current = rng.chance(0.5) ? randomQuery(rng) : undefined;
        const coverageOf = rng.chance(0.5) ? query : randomQuery(rng);
        const limit = rng.int(1, 8);
        const passagesPerPage = rng.int(1, 2);
        const got = index.search(query, limit, passagesPerPage, coverageOf, current);
        const want = referenceSearch(docs, query, RANKING, coverageOf, current);
        expectSameRanking(got, want, limit, passagesPerPage, order);
        if (got.length > 0) answered++;
        for (let i = 1; i < got.length; i++) if (got[i]!.score === got[i - 1]!.score) ties++;
      }
    });
    // The corpora are such that questions match, and pages tie (copies), so the comparison says something.
    expect(answered).toBeGreaterThan(200);
    expect(ties).toBeGreaterThan(20);
  }, 60_000);

  test("an empty query or an empty index finds nothing", () => {
    const index = new LexicalIndex();
    expect(index.search(new Map([["refund", 1]]), 5)).toEqual([]);
    index.put({ id: "a", title: "Refunds", url: null, body: "Refunds take five days.", updatedAt: new Date(0) });
    expect(index.search(new Map(), 5)).toEqual([]);
    expect(index.search(new Map([["refund", 1]]), 0)).toEqual([]);
  });
});

describe("topPages", () => {
  test("the limit best of any candidates, as a full sort by score then page number gives", () => {
    forSeeds(300, (rng) => {
      const count = rng.int(0, 30);
      const pages = shuffled(rng, [...Array(count + 5).keys()]).slice(0, count);
      // Few distinct scores, so ties are common.
      const scores = new Map(pages.map((p) => [p, rng.int(0, 6) / 2]));
      const limit = rng.int(-1, count + 2);
      const want = pages
        .map((page) => ({ page, score: scores.get(page)! }))
        .sort((x, y) => y.score - x.score || x.page - y.page)
        .slice(0, Math.max(0, limit));
      expect(
        topPages(
          count,
          (i) => pages[i]!,
          (p) => scores.get(p)!,
          limit,
        ),
      ).toEqual(want);
    });
  }, 30_000);
});

function shuffled<T>(rng: Rng, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

describe("BestTwo", () => {
  test("per page its best and second-best passage, ties to the one offered first; pages in the order first seen", () => {
    const best = new BestTwo();
    forSeeds(300, (rng) => {
      const offers = Array.from({ length: rng.int(0, 40) }, (_, p) => ({ page: rng.int(0, 9), p, score: rng.int(1, 5) }));
      best.reserve(10);
      for (const o of offers) best.offer(o.page, o.p, o.score);
      const seen = [...new Set(offers.map((o) => o.page))];
      expect([...best.pages.slice(0, best.count)]).toEqual(seen);
      for (const page of seen) {
        const mine = offers.filter((o) => o.page === page);
        // The first offered of the highest score, then the same among the rest.
        const first = mine.reduce((a, o) => (o.score > a.score ? o : a));
        const rest = mine.filter((o) => o !== first);
        const second = rest.length > 0 ? rest.reduce((a, o) => (o.score > a.score ? o : a)) : undefined;
        expect([best.first[page], best.firstScore[page], best.second[page], best.secondScore[page]]).toEqual([
          first.p,
          first.score,
          second?.p ?? -1,
          second?.score ?? 0,
        ]);
      }
      best.clear();
      expect(best.count).toBe(0);
    });
  }, 30_000);
});

describe("Accumulator", () => {
  test("each item's sum of BM25 parts over the lists holding it, removed items skipped, items in the order first touched; clear leaves zeros", () => {
    const acc = new Accumulator();
    const { k1 } = RANKING;
    forSeeds(200, (rng) => {
      const size = rng.int(1, 40);
      const norm = Float64Array.from({ length: size }, () => (rng.chance(0.15) ? -1 : 0.2 + rng.next() * 3));
      const lists = Array.from({ length: rng.int(1, 6) }, () => {
        const items = shuffled(rng, [...Array(size).keys()]).slice(0, rng.int(0, size));
        return { list: { items, tf: items.map(() => rng.int(1, 6)) }, weight: 0.1 + rng.next(), idf: 0.05 + rng.next() * 4 };
      });
      acc.reserve(size);
      for (const { list, weight, idf } of lists) acc.add(list, weight, idf, k1, norm);
      const want = new Map<number, number>();
      for (const { list, weight, idf } of lists)
        list.items.forEach((item, i) => {
          if (norm[item]! < 0) return;
          const f = list.tf[i]!;
          want.set(item, (want.get(item) ?? 0) + weight * idf * ((f * (k1 + 1)) / (f + norm[item]!)));
        });
      expect([...acc.touched.slice(0, acc.count)]).toEqual([...want.keys()]);
      for (const [item, score] of want) expectClose(acc.scores[item]!, score, `item ${item}`);
      acc.clear();
      expect(acc.count).toBe(0);
      expect(acc.scores.every((s) => s === 0)).toBe(true);
    });
  }, 30_000);
});

describe("lengthNorms", () => {
  test("k1 · (1 − b + b · length / average) for every passage and page, −1 for those removed", () => {
    forSeeds(50, (rng) => {
      const passages = Array.from({ length: rng.int(0, 20) }, () => (rng.chance(0.2) ? undefined : { length: rng.int(0, 30), page: rng.int(0, 5) }));
      const pages = Array.from({ length: rng.int(0, 6) }, () => (rng.chance(0.2) ? undefined : rng.int(1, 90)));
      const norms = lengthNorms(1.6, 0.9, passages, 7.5, pages, 40);
      passages.forEach((p, i) => {
        expectClose(norms.passage[i]!, p ? 1.6 * (1 - 0.9 + (0.9 * p.length) / 7.5) : -1, `passage ${i}`);
        expect(norms.passagePage[i]).toBe(p ? p.page : -1);
      });
      pages.forEach((length, d) => expectClose(norms.page[d]!, length === undefined ? -1 : 1.6 * (1 - 0.9 + (0.9 * length) / 40), `page ${d}`));
    });
  });
});
