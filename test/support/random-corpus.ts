// Random help centres and questions for the engine's property tests (test/knowledge/engine-*.test.ts),
// from a seeded generator (test/support/seeded.ts): a small vocabulary so pages share words, stop
// words between them, headings at two levels, hyphenated words, now and then a section long enough
// to be cut into several passages, and now and then a page repeated under another id (equal scores).
import type { IndexDoc, WeightedTerms } from "../../src/knowledge/index-types.ts";
import { indexTerms } from "../../src/knowledge/terms.ts";
import type { Rng } from "./seeded.ts";

export const VOCABULARY = (
  "account billing card checkout delivery discount email export invoice login order parcel password payment " +
  "plan refund return shipping size subscription team upgrade voucher warranty wallet address courier customs label receipt"
).split(" ");
const STOPWORDS = "the how to your can is of and we you a".split(" ");
const HYPHENATED = ["e-mail", "check-out", "sign-in", "gift-card"];

function sentence(rng: Rng, length: number): string {
  const out: string[] = [];
  for (let i = 0; i < length; i++) {
    const r = rng.next();
    out.push(r < 0.25 ? rng.pick(STOPWORDS) : r < 0.28 ? rng.pick(HYPHENATED) : rng.pick(VOCABULARY));
  }
  return `${out.join(" ")}.`;
}

function body(rng: Rng): string {
  const sections: string[] = [];
  const count = rng.int(0, 3);
  for (let s = 0; s < count; s++) {
    const heading = s === 0 && rng.chance(0.3) ? "" : `${rng.chance(0.7) ? "##" : "###"} ${sentence(rng, rng.int(1, 3)).slice(0, -1)}\n`;
    const long = rng.chance(0.08);
    const paragraphs: string[] = [];
    for (let p = rng.int(1, long ? 12 : 2); p > 0; p--) paragraphs.push(sentence(rng, rng.int(2, long ? 25 : 12)));
    sections.push(heading + paragraphs.join(long ? "\n\n" : " "));
  }
  return sections.join("\n\n");
}

/** `size` random pages, ids `p0`, `p1`, …; a page is sometimes a copy of an earlier one's title and body. */
export function randomDocs(rng: Rng, size: number, prefix = "p"): IndexDoc[] {
  const docs: IndexDoc[] = [];
  for (let i = 0; i < size; i++) {
    const copy = docs.length > 0 && rng.chance(0.1) ? rng.pick(docs) : undefined;
    docs.push({
      id: `${prefix}${i}`,
      title: copy?.title ?? sentence(rng, rng.int(1, 4)).slice(0, -1),
      url: rng.chance(0.5) ? `https://help.example/${prefix}${i}` : null,
      body: copy?.body ?? body(rng),
      updatedAt: new Date(Date.UTC(2026, 0, 1) + i * 1000),
    });
  }
  return docs;
}

/**
 * A weighted query: terms of a random sentence (stems, and adjacent pairs as the index makes them),
 * now and then a word no page uses, each with a weight in (0, 1].
 */
export function randomQuery(rng: Rng): WeightedTerms {
  const query: WeightedTerms = new Map();
  for (const term of indexTerms(sentence(rng, rng.int(1, 5)))) query.set(term, rng.chance(0.5) ? 1 : Math.round(rng.next() * 1000 + 1) / 1001);
  if (rng.chance(0.2)) query.set("zeppelin", 1);
  return query;
}
