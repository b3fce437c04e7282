// The lexical index stays exact (src/knowledge/lexical.ts, kept by src/knowledge/org-index.ts):
// after any sequence of puts (new pages, changed pages, pages put again unchanged) and removes
// (of pages held or not), it answers every question as an index built afresh from the pages that
// survive, put in the same order — the same ranking to the bit, the same vocabulary, the same
// document frequencies — and the queries built against it are the same.
import { describe, expect, test } from "bun:test";
import type { IndexDoc, RankedPage } from "../../src/knowledge/index-types.ts";
import { LexicalIndex } from "../../src/knowledge/lexical.ts";
import { buildQuery } from "../../src/knowledge/query.ts";
import { stem } from "../../src/kit/words.ts";
import { randomDocs, randomQuery, VOCABULARY } from "../support/random-corpus.ts";
import { forSeeds, type Rng } from "../support/seeded.ts";

const IDS = Array.from({ length: 12 }, (_, i) => `page-${i}`);

/** A message of vocabulary words, some misspelt by one letter, between stop words. */
function message(rng: Rng): string {
  const out: string[] = [];
  for (let i = rng.int(1, 5); i > 0; i--) {
    let word = rng.pick(VOCABULARY);
    if (rng.chance(0.4)) {
      const at = rng.int(0, word.length - 1);
      word = word.slice(0, at) + rng.pick([..."aeiouxyz"]) + word.slice(at + 1);
    }
    out.push(rng.chance(0.3) ? `how ${word}` : word);
  }
  return out.join(" ");
}

function fresh(docs: Iterable<IndexDoc>): LexicalIndex {
  const index = new LexicalIndex();
  for (const doc of docs) index.put(doc);
  return index;
}

const canonical = (pages: RankedPage[]) => [...pages].sort((a, b) => b.score - a.score || (a.docId < b.docId ? -1 : a.docId > b.docId ? 1 : 0));

function expectSameIndex(edited: LexicalIndex, rebuilt: LexicalIndex, rng: Rng) {
  expect(edited.size).toBe(rebuilt.size);
  expect(edited.ids().sort()).toEqual(rebuilt.ids().sort()); // a page indexed again comes last
  expect(edited.chars).toBe(rebuilt.chars);
  expect([...edited.surfaces].sort()).toEqual([...rebuilt.surfaces].sort());
  for (const id of IDS) {
    expect(edited.pageOf(id)).toEqual(rebuilt.pageOf(id));
    expect(edited.versionOf(id)).toBe(rebuilt.versionOf(id));
  }
  for (const word of [...VOCABULARY, "e-mail", "zeppelin"]) {
    const term = stem(word);
    expect(edited.has(term)).toBe(rebuilt.has(term));
    expect(edited.pageFrequency(term)).toBe(rebuilt.pageFrequency(term));
    expect(edited.idf(term)).toBe(rebuilt.idf(term));
  }
  for (let q = 0; q < 8; q++) {
    const query = randomQuery(rng);
    const current = rng.chance(0.5) ? randomQuery(rng) : undefined;
    // Every page, pages of equal score by id: a page indexed again because a line of it became
    // boilerplate (or ceased to be) comes after the pages it ties with, as if it were new.
    expect(canonical(edited.search(query, 1000, 2, query, current))).toEqual(canonical(rebuilt.search(query, 1000, 2, query, current)));
    const text = message(rng);
    expect(buildQuery(edited, text)).toEqual(buildQuery(rebuilt, text));
  }
}

describe("the index after puts and removes is the index of the pages left", () => {
  test("random sequences of edits, checked along the way and at the end", () => {
    let checked = 0;
    forSeeds(40, (rng) => {
      const edited = new LexicalIndex();
      // The pages held, in the order of their last put (the order a rebuild puts them in).
      const held = new Map<string, IndexDoc>();
      let version = 0;
      const steps = rng.int(20, 150);
      for (let step = 1; step <= steps; step++) {
        const id = rng.pick(IDS);
        const r = rng.next();
        if (r < 0.5 || held.size === 0) {
          // A new or changed page; now and then a copy of another page's text (equal scores).
          const other = held.size > 0 && rng.chance(0.15) ? rng.pick([...held.values()]) : undefined;
          const doc = { ...(other ?? randomDocs(rng, 1)[0]!), id, updatedAt: new Date(++version * 1000) };
          edited.put(doc);
          held.delete(id);
          held.set(id, doc);
        } else if (r < 0.6 && held.has(id)) {
          // The same page put again, unchanged.
          const doc = held.get(id)!;
          edited.put(doc);
          held.delete(id);
          held.set(id, doc);
        } else {
          edited.remove(id);
          held.delete(id);
        }
        if (step % 25 === 0 || step === steps) {
          expectSameIndex(edited, fresh(held.values()), rng);
          checked++;
        }
      }
      // And once every page is gone, nothing is left.
      for (const id of IDS) edited.remove(id);
      expectSameIndex(edited, new LexicalIndex(), rng);
      expect(edited.surfaces.size).toBe(0);
      expect(edited.chars).toBe(0);
    });
    expect(checked).toBeGreaterThan(100);
  }, 60_000);

  test("a term's postings compacted after many replacements still rank as a rebuild does", () => {
    // One word on every page, each page replaced many times: its postings grow past the live ones
    // by far and are compacted (src/knowledge/postings.ts `unpost`).
    forSeeds(5, (rng) => {
      const edited = new LexicalIndex();
      const held = new Map<string, IndexDoc>();
      for (let round = 0; round < 60; round++) {
        const id = rng.pick(IDS.slice(0, 4));
        const doc = { id, title: `Refund ${round}`, url: null, body: `refund ${"parcel ".repeat(rng.int(1, 5))}`, updatedAt: new Date(round) };
        edited.put(doc);
        held.delete(id);
        held.set(id, doc);
        // After every round: a compaction leaves pages that stay, and those are ranked too.
        const rebuilt = fresh(held.values());
        const query = new Map([
          ["refund", 1],
          ["parcel", 0.5],
        ]);
        expect(canonical(edited.search(query, 1000))).toEqual(canonical(rebuilt.search(query, 1000)));
        expect(edited.pageFrequency("refund")).toBe(held.size);
      }
    });
  });

  test("a misspelt word equally close to two words equally used is corrected the same whatever the edits before", () => {
    // "pazcel" is one letter from both "parcel" and "pancel", each used once: the choice may not
    // depend on which page was put first in the index's history.
    const doc = (id: string, body: string): IndexDoc => ({ id, title: id, url: null, body, updatedAt: new Date(0) });
    const edited = new LexicalIndex();
    edited.put(doc("one", "parcel"));
    edited.put(doc("two", "pancel"));
    edited.put(doc("three", "parcel"));
    edited.remove("one");
    const rebuilt = fresh([doc("two", "pancel"), doc("three", "parcel")]);
    expect(buildQuery(edited, "pazcel").current).toEqual(buildQuery(rebuilt, "pazcel").current);
  });
});

describe("coverage in scripts written without spaces", () => {
  test("a Chinese word the segmenter cut otherwise in the page counts as covered when the passage holds its characters", () => {
    const index = new LexicalIndex();
    const page = { id: "a", title: "胡格诺派", url: null, body: "他在日内瓦担任教职员多年，支持改革。", updatedAt: new Date(0), language: "zh" };
    index.put(page);
    index.put({ ...page, id: "b", title: "其他", body: "石油危机发生在一九七三年。" });
    // "教职" is never a word of the page (the segmenter reads "教职员"), but its characters are there.
    expect(index.has("教职")).toBe(false);
    const both = new Map([
      ["改革", 1],
      ["教职", 1],
    ]);
    const [top] = index.search(both, 1, 1, both);
    expect(top?.docId).toBe("a");
    expect(top!.coverage).toBe(1);
  });

  test("a word of a spaced script is covered only as a word", () => {
    const index = new LexicalIndex();
    index.put({ id: "a", title: "Refunds", url: null, body: "Refundable orders are paid back.", updatedAt: new Date(0), language: "en" });
    const terms = new Map([
      [stem("order"), 1],
      ["fund", 1],
    ]);
    const [top] = index.search(terms, 1, 1, terms);
    expect(top!.coverage).toBeLessThan(1);
  });
});
