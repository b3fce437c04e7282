// Query building (src/knowledge/query.ts): `withinEdits` against a plain Levenshtein table on random
// strings; a misspelt word corrected to the most used word within reach (1 edit, 2 from eight
// letters), else kept; words joined and split as the pages write them; the org's synonyms; and
// earlier turns counted at their lower weights, the current message's terms alone in `current`.
import { describe, expect, test } from "bun:test";
import type { IndexDoc } from "../../src/knowledge/index-types.ts";
import { LexicalIndex } from "../../src/knowledge/lexical.ts";
import { buildQuery, QUERY, withinEdits } from "../../src/knowledge/query.ts";
import { isContent, stem } from "../../src/kit/words.ts";
import { VOCABULARY } from "../support/random-corpus.ts";
import { forSeeds, type Rng } from "../support/seeded.ts";

/** Levenshtein distance, the whole table. */
function levenshtein(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length]![b.length]!;
}

const randomString = (rng: Rng, alphabet: string, min: number, max: number) =>
  Array.from({ length: rng.int(min, max) }, () => alphabet[rng.int(0, alphabet.length - 1)]).join("");

/** `word` after `edits` random insertions, deletions or substitutions. */
function misspelt(rng: Rng, word: string, edits: number): string {
  let w = word;
  for (let e = 0; e < edits; e++) {
    const at = rng.int(0, w.length);
    const letter = rng.pick([..."abcdefghijklmnopqrstuvwxyz"]);
    const kind = rng.int(0, 2);
    if (kind === 0) w = w.slice(0, at) + letter + w.slice(at);
    else if (kind === 1 && w.length > 1) w = w.slice(0, Math.min(at, w.length - 1)) + w.slice(Math.min(at, w.length - 1) + 1);
    else w = w.slice(0, Math.min(at, w.length - 1)) + letter + w.slice(Math.min(at, w.length - 1) + 1);
  }
  return w;
}

const doc = (id: string, title: string, body: string): IndexDoc => ({ id, title, url: null, body, updatedAt: new Date(0) });

describe("withinEdits", () => {
  test("agrees with the Levenshtein distance on random strings", () => {
    let near = 0;
    forSeeds(3000, (rng) => {
      const a = randomString(rng, "abc", 0, 9);
      const b = rng.chance(0.5) ? misspelt(rng, a, rng.int(0, 3)) : randomString(rng, "abc", 0, 9);
      const max = rng.int(0, 3);
      const distance = levenshtein(a, b);
      if (distance <= max) near++;
      if (withinEdits(a, b, max) !== distance <= max) throw new Error(`"${a}" "${b}" max ${max}: distance ${distance}`);
    });
    expect(near).toBeGreaterThan(500);
  }, 30_000);
});

describe("typo correction", () => {
  test("a word no page uses becomes the most used page word within reach (1 edit, 2 from eight letters), else stays", () => {
    let corrected = 0;
    let kept = 0;
    forSeeds(150, (rng) => {
      // A vocabulary of made-up words, each used a different number of times.
      const vocabulary = [...new Set(Array.from({ length: 12 }, () => randomString(rng, "bdklmnprstaeiou", 5, 10)))].filter(isContent);
      const index = new LexicalIndex();
      vocabulary.forEach((word, i) => index.put(doc(`d${i}`, "Page", `${word} `.repeat(i + 1))));
      const word = misspelt(rng, rng.pick(vocabulary), rng.int(1, 3));
      const { current } = buildQuery(index, word);
      if (!isContent(word) || /[^a-z]/.test(word)) return;
      // Known as it is, or written together for two page words: not a typo (tested below).
      const known = index.has(stem(word));
      const split = [...Array(Math.max(0, word.length - 5)).keys()].some(
        (i) => index.surfaces.has(word.slice(0, i + 3)) && index.surfaces.has(word.slice(i + 3)),
      );
      if (known || split) return;
      const max = word.length >= 8 ? 2 : 1;
      const reach = word.length < 5 ? [] : vocabulary.filter((v) => levenshtein(word, v) <= max);
      const uses = (v: string) => index.surfaces.get(v)!;
      const best = reach.sort((x, y) => uses(y) - uses(x) || (x < y ? -1 : 1))[0];
      if (best) corrected++;
      else kept++;
      expect(current).toEqual(best ? new Map([[stem(best), QUERY.typo]]) : new Map([[stem(word), 1]]));
    });
    expect(corrected).toBeGreaterThan(30);
    expect(kept).toBeGreaterThan(10);
  }, 30_000);

  test("short words and words with digits are never corrected", () => {
    const index = new LexicalIndex();
    index.put(doc("a", "Parcel", "parcel label4 label"));
    expect(buildQuery(index, "parce").current).toEqual(new Map([[stem("parcel"), QUERY.typo]]));
    expect(buildQuery(index, "labl").current).toEqual(new Map([["labl", 1]]));
    expect(buildQuery(index, "label5x").current).toEqual(new Map([["label5x", 1]]));
  });

  test("a word's length is counted in letters, not in the vowel signs combining with them", () => {
    const index = new LexicalIndex();
    // "बलों" (forces) is one edit from "बालों" (hair): five code units, but two letters and three signs.
    index.put({ ...doc("a", "बल", "न्यूटन के बलों का नियम। बलों का योग।"), language: "hi" });
    expect(buildQuery(index, "बालों", [], new Map(), "hi").current).toEqual(new Map([["बालों", 1]]));
    // A Latin word of five letters is still corrected.
    index.put(doc("b", "Parcel", "parcel"));
    expect(buildQuery(index, "parcl", [], new Map(), "en").current.has(stem("parcel"))).toBe(true);
  });
});

describe("joined and split words", () => {
  const index = new LexicalIndex();
  index.put(doc("a", "Non-citizen applicants", "A noncitizen must pass a road test."));
  index.put(doc("b", "Gift cards", "Enter the gift card code at checkout."));

  test("two words the pages write together are joined, at full weight", () => {
    expect(buildQuery(index, "non citizen").current.get(stem("noncitizen"))).toBe(1);
  });

  test("a word the pages write apart is split, each part at the split weight", () => {
    const { current } = buildQuery(index, "giftcard");
    expect(current.get(stem("gift"))).toBe(QUERY.split);
    expect(current.get(stem("card"))).toBe(QUERY.split);
    expect(current.has(stem("giftcard"))).toBe(false);
  });

  test("adjacent words the pages use together also count as their pair", () => {
    const { current } = buildQuery(index, "gift card");
    expect(current.get(`${stem("gift")} ${stem("card")}`)).toBe(QUERY.pair);
    expect(buildQuery(index, "card gift").current.has(`${stem("card")} ${stem("gift")}`)).toBe(false);
  });
});

describe("synonyms", () => {
  const index = new LexicalIndex();
  index.put(doc("a", "Invoices", "Download an invoice for every refund."));
  const synonyms = new Map([
    [stem("bill"), [stem("invoice")]],
    [stem("refund"), [stem("reimbursement")]],
  ]);

  test("a word no page uses gives way to its synonym", () => {
    expect(buildQuery(index, "bill", [], synonyms).current).toEqual(new Map([[stem("invoice"), QUERY.synonym]]));
  });

  test("a word the pages use keeps its weight beside its synonym's", () => {
    expect(buildQuery(index, "refund", [], synonyms).current).toEqual(
      new Map([
        [stem("refund"), 1],
        [stem("reimbursement"), QUERY.synonym],
      ]),
    );
  });
});

describe("earlier turns", () => {
  test("each turn's terms at its weight (the last earlier turn, older ones, at most four), the highest weight kept; `current` the message's own", () => {
    forSeeds(80, (rng) => {
      const index = new LexicalIndex();
      for (let i = 0; i < 6; i++) index.put(doc(`d${i}`, rng.pick(VOCABULARY), Array.from({ length: 8 }, () => rng.pick(VOCABULARY)).join(" ")));
      const say = () =>
        Array.from({ length: rng.int(1, 4) }, () => (rng.chance(0.2) ? misspelt(rng, rng.pick(VOCABULARY), 1) : rng.pick(VOCABULARY))).join(" ");
      const message = say();
      const earlier = Array.from({ length: rng.int(0, 6) }, say);
      const query = buildQuery(index, message, earlier);
      const own = (text: string) => buildQuery(index, text).current;
      expect(query.current).toEqual(own(message));
      // Each message read on its own, its terms scaled by its turn's weight.
      const want = new Map(own(message));
      earlier
        .slice(-QUERY.turns)
        .reverse()
        .forEach((turn, i) => {
          for (const [term, weight] of own(turn)) {
            const scaled = weight * (i === 0 ? QUERY.lastTurn : QUERY.olderTurn);
            if (scaled > (want.get(term) ?? 0)) want.set(term, scaled);
          }
        });
      expect([...query.terms.keys()].sort()).toEqual([...want.keys()].sort());
      for (const [term, weight] of want) expect(query.terms.get(term)).toBeCloseTo(weight, 12);
    });
  }, 30_000);
});
