// Boilerplate detection in the lexical index (src/knowledge/boilerplate.ts, docs/decisions.md
// "Boilerplate is not knowledge"): a line standing on REPEATED.minPages pages (and REPEATED.share of
// them) leaves every page holding it, at the threshold and not one page below; a page's own text
// stays; a remove brings the line back; the index after any order of puts and removes ranks as one
// built afresh from the same pages.
import { describe, expect, test } from "bun:test";
import { REPEATED, repeatedThreshold } from "../../src/knowledge/boilerplate.ts";
import { analyzerFor } from "../../src/kit/analyzer.ts";
import { LexicalIndex } from "../../src/knowledge/lexical.ts";
import { buildQuery } from "../../src/knowledge/query.ts";

const FOOTER = "## Still stuck? Contact support\nOur friendly team answers by email or live chat.\n[Back to all articles](/index.html)";
const doc = (id: string, own: string, footer = true) => ({
  id,
  title: `Article ${id}`,
  url: null,
  body: `# Article ${id}\n${own}${footer ? `\n\n${FOOTER}` : ""}`,
  updatedAt: new Date(0),
});
const OWN = [
  "Returns are free within thirty days.",
  "Parcels travel with the national post.",
  "We accept cards and invoices.",
  "Wool is washed by hand.",
  "Gift cards last two years.",
];

describe("boilerplate lines", () => {
  test("the threshold is REPEATED.minPages pages, or REPEATED.share of them on a large index", () => {
    expect(repeatedThreshold(10)).toBe(REPEATED.minPages);
    expect(repeatedThreshold(200)).toBe(Math.ceil(200 * REPEATED.share));
  });

  test("a line on one page fewer than the threshold is kept; at the threshold it leaves every page", () => {
    const index = new LexicalIndex();
    for (let i = 0; i < REPEATED.minPages - 1; i++) index.put(doc(`p${i}`, OWN[i]!));
    for (const id of index.ids()) expect(index.textOf(id)!.text).toContain("Still stuck");
    index.put(doc("last", OWN[4]!));
    for (const id of index.ids()) {
      const text = index.textOf(id)!.text;
      expect(text).not.toContain("Still stuck");
      expect(text).not.toContain("Back to all articles");
      expect(text).not.toContain("friendly team");
    }
    // The page's own text is kept.
    expect(index.textOf("last")!.text).toContain(OWN[4]!);
  });

  test("on a large index the share decides: one page below it keeps the line", () => {
    const pages = 100;
    const threshold = repeatedThreshold(pages);
    const build = (withFooter: number) => {
      const index = new LexicalIndex();
      for (let i = 0; i < pages; i++) index.put(doc(`p${i}`, `Topic ${i} says thing number ${i}.`, i < withFooter));
      return index;
    };
    expect(build(threshold - 1).textOf("p0")!.text).toContain("Still stuck");
    expect(build(threshold).textOf("p0")!.text).not.toContain("Still stuck");
  });

  test("the footer neither ranks nor answers; the contact page's own text does", () => {
    const index = new LexicalIndex();
    OWN.forEach((own, i) => index.put(doc(`p${i}`, own)));
    index.put(doc("contact", "To contact our support team, call 0800 123 456 or write from the contact form."));
    const query = buildQuery(index, "how do I contact support");
    const pages = index.search(query.terms, 3);
    expect(pages[0]!.docId).toBe("contact");
    expect(pages[0]!.passages[0]!.text).toContain("0800 123 456");
    expect(pages.map((p) => p.docId)).toEqual(["contact"]);
    expect(index.search(buildQuery(index, "friendly live chat").terms, 3)).toEqual([]);
  });

  test("a remove brings a line back below the threshold, and a put of the page again drops it", () => {
    const index = new LexicalIndex();
    for (let i = 0; i < REPEATED.minPages; i++) index.put(doc(`p${i}`, OWN[i]!));
    expect(index.textOf("p0")!.text).not.toContain("Still stuck");
    index.remove("p1");
    expect(index.textOf("p0")!.text).toContain("Still stuck");
    expect(index.search(buildQuery(index, "live chat").terms, 3).length).toBe(2);
    index.put(doc("p1", OWN[1]!));
    expect(index.textOf("p0")!.text).not.toContain("Still stuck");
    // An edit that takes the footer off one page brings it back on the others too.
    index.put(doc("p2", OWN[2]!, false));
    expect(index.textOf("p0")!.text).toContain("Still stuck");
  });

  test("the words only boilerplate holds are known as such, exactly after puts and removes", () => {
    const index = new LexicalIndex();
    const [friendly, chat, returns] = ["friendly", "chat", "returns"].map(analyzerFor("en").stem);
    for (let i = 0; i < REPEATED.minPages; i++) index.put(doc(`p${i}`, OWN[i]!));
    expect(index.onlyInBoilerplate(friendly!)).toBe(true);
    expect(index.onlyInBoilerplate(chat!)).toBe(true);
    expect(index.onlyInBoilerplate(returns!)).toBe(false); // a page's own text
    expect(index.onlyInBoilerplate("zeppelin")).toBe(false); // on no page at all
    index.remove("p1"); // below the threshold: the footer is the pages' text again
    expect(index.onlyInBoilerplate(friendly!)).toBe(false);
    index.put(doc("p1", OWN[1]!));
    expect(index.onlyInBoilerplate(friendly!)).toBe(true);
    // A page of its own saying one of the footer's words makes that word knowledge.
    index.put(doc("p3", "Chat with us on weekdays.", false));
    expect(index.onlyInBoilerplate(chat!)).toBe(false);
    expect(index.onlyInBoilerplate(friendly!)).toBe(true);
    for (const id of ["p0", "p1", "p2", "p3"]) index.remove(id);
    expect(index.onlyInBoilerplate(friendly!)).toBe(false);
  });

  test("a heading stays when lines of its own stand under it, even when it is repeated", () => {
    const index = new LexicalIndex();
    for (let i = 0; i < 4; i++) index.put({ ...doc(`p${i}`, `## How do I apply?\nApplication ${i} goes to office ${i}.`, false) });
    expect(index.textOf("p0")!.text).toContain("## How do I apply?");
  });

  test("after any order of puts and removes the index ranks as one built afresh", () => {
    const ids = ["a", "b", "c", "d", "e"];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const incremental = new LexicalIndex();
    const live = new Map<string, ReturnType<typeof doc>>();
    for (let step = 0; step < 60; step++) {
      const id = ids[Math.floor(random() * ids.length)]!;
      if (random() < 0.3) {
        incremental.remove(id);
        live.delete(id);
      } else {
        const d = doc(id, OWN[Math.floor(random() * OWN.length)]!, random() < 0.7);
        incremental.put(d);
        live.set(id, d);
      }
      const fresh = new LexicalIndex();
      for (const d of [...live.values()]) fresh.put(d);
      for (const id2 of live.keys()) expect(incremental.textOf(id2)!.text).toBe(fresh.textOf(id2)!.text);
      for (const question of ["contact support live chat", "returns free thirty days", "gift cards"]) {
        const scores = (index: LexicalIndex) =>
          index
            .search(buildQuery(index, question).terms, 5)
            .map((p) => [p.docId, p.score.toFixed(9)])
            .sort();
        expect(scores(incremental)).toEqual(scores(fresh));
      }
    }
  });
});
