// Passages and search snippets (src/knowledge/passages.ts): the snippet comes from the passage and
// the run of words holding most of the question, a document's new version is cut anew, and the
// per-process cache stays within its bounds.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createDoc, updateDoc } from "../../src/knowledge/docs.ts";
import { searchIndex } from "../../src/knowledge/tools.ts";
import { createPassageCache, PASSAGES, queryStems, snippetOf } from "../../src/knowledge/passages.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";

let app: TestApp;
let orgId: string;

beforeAll(async () => {
  app = await createTestApp();
  orgId = (await seedOrg(app)).org_id;
}, 30_000);
afterAll(() => app.close());

const filler = (n: number) => Array.from({ length: n }, (_, i) => `filler${i}`).join(" ");

describe("snippets", () => {
  test("the window of words holding most of the question, far into a long passage", () => {
    const cache = createPassageCache();
    const text = `${filler(100)} Refunds for annual plans are prorated to the day. ${filler(100)}`;
    const snippet = snippetOf(
      cache.get("a", "Billing", () => text),
      queryStems("How are annual plan refunds prorated?"),
    );
    expect(snippet).toContain("**Refunds** for **annual** **plans** are **prorated**");
    expect(snippet.split(" ").length).toBeLessThanOrEqual(PASSAGES.snippetWords);
  });

  test("the passage holding most distinct terms wins over an earlier one holding fewer", () => {
    const cache = createPassageCache();
    const body = `# Shipping\n${"Shipping is free. ".repeat(80)}\n\n# Returns\n${"Returns of shipping boxes are free within thirty days. ".repeat(30)}`;
    const passages = cache.get("b", "Policies", () => body);
    expect(passages.length).toBeGreaterThan(1);
    const snippet = snippetOf(passages, queryStems("free returns shipping"));
    expect(snippet).toContain("**Returns**");
  });

  test("a document found by its title alone gives the start of its first passage, unmarked", () => {
    const cache = createPassageCache();
    const snippet = snippetOf(
      cache.get("c", "Invoices", () => "Everything about the paperwork we send each month."),
      queryStems("invoices"),
    );
    expect(snippet).toBe("Everything about the paperwork we send each month.");
  });

  test("a document's new version gets a new snippet", async () => {
    const doc = await createDoc(app.deps, orgId, { title: "Parcel lockers", body: "Parcel lockers hold your order for three days." });
    expect((await searchIndex(app.deps, orgId, "parcel lockers", 5))[0]!.snippet).toContain("three days");
    // Same millisecond on the clock: the new version must still be told apart from the old one.
    await updateDoc(app.deps, orgId, doc.id, { body: "Parcel lockers hold your order for seven days." });
    const [hit] = await searchIndex(app.deps, orgId, "parcel lockers", 5);
    expect(hit!.snippet).toContain("seven days");
    expect(hit!.snippet).not.toContain("three");
  });
});

describe("passage cache", () => {
  test("bounded in entries: the least recently used goes first", () => {
    const cache = createPassageCache({ entries: 2, chars: 1_000_000 });
    cache.get("1", "t", () => "one");
    cache.get("2", "t", () => "two");
    cache.get("1", "t", () => "one"); // used: now the newest
    cache.get("3", "t", () => "three");
    expect([cache.has("1"), cache.has("2"), cache.has("3")]).toEqual([true, false, true]);
  });

  test("bounded in characters, but a document larger than the bound is still cut for its caller", () => {
    const cache = createPassageCache({ entries: 100, chars: 10 });
    cache.get("1", "t", () => "abcdef");
    cache.get("2", "t", () => "ghijkl"); // 12 characters in all: the oldest goes
    expect([cache.has("1"), cache.has("2")]).toEqual([false, true]);
    expect(cache.get("3", "t", () => "a much longer body than ten")[0]!.text).toBe("a much longer body than ten");
  });
});
