// Knowledge: long documents are cut into passages; retrieval quotes
// the passage that holds the answer, with a score, from published docs of the org only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { retrieve } from "../../../src/agents/pipeline/knowledge.ts";
import { chunkDoc, PASSAGES } from "../../../src/knowledge/passages.ts";
import { createDoc, updateDoc } from "../../../src/knowledge/docs.ts";
import { createTestApp, seedOrg, type TestApp } from "../../support/app.ts";

const filler = (topic: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${topic} paragraph ${i}: ${"lorem ipsum dolor sit amet ".repeat(8).trim()}.`).join("\n\n");

describe("chunkDoc", () => {
  test("a short document is one passage", () => {
    expect(chunkDoc("Short text.")).toEqual(["Short text."]);
    expect(chunkDoc("   ")).toEqual([]);
  });

  test("long documents are cut at headings and paragraphs, each passage within the size and under its heading", () => {
    const body = `# Intro\n\n${filler("intro", 6)}\n\n## Shipping\n\n${filler("shipping", 10)}\n\nParcels ship from Lisbon within two days.`;
    const passages = chunkDoc(body, 600);
    expect(passages.length).toBeGreaterThan(4);
    for (const p of passages) expect(p.length).toBeLessThanOrEqual(600);
    const lisbon = passages.find((p) => p.includes("Lisbon"))!;
    expect(lisbon.startsWith("## Shipping\n")).toBe(true);
    // Nothing is lost: every paragraph is in some passage.
    for (const paragraph of body.split(/\n{2,}/).filter((p) => !p.startsWith("#"))) expect(passages.some((p) => p.includes(paragraph))).toBe(true);
  });

  test("a single paragraph longer than the size is cut by sentences", () => {
    const body = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} says something useful.`).join(" ");
    const passages = chunkDoc(body, 300);
    expect(passages.length).toBeGreaterThan(3);
    for (const p of passages) expect(p.length).toBeLessThanOrEqual(300);
  });

  test("0x1E never survives", () => expect(chunkDoc("a\x1eb")).toEqual(["ab"]));
});

describe("retrieve", () => {
  let app: TestApp;
  let orgId: string;
  let otherOrgId: string;

  beforeAll(async () => {
    app = await createTestApp();
    orgId = (await seedOrg(app)).org_id;
    otherOrgId = (await seedOrg(app)).org_id;
    await createDoc(app.deps, orgId, {
      title: "Shipping handbook",
      url: "https://help.example.com/shipping",
      body: `# Shipping\n\n${filler("general", 12)}\n\n## Returns\n\nTo return a parcel, print the prepaid label from your order page and drop the parcel at any post office within 30 days.\n\n${filler("more", 6)}`,
    });
    await createDoc(app.deps, orgId, { title: "Draft returns policy", body: "Returns are free forever.", status: "draft" });
    await createDoc(app.deps, otherOrgId, { title: "Returns elsewhere", body: "Other org: return a parcel by pigeon." });
  }, 30_000);
  afterAll(() => app.close());

  test("quotes the passage that answers, not the whole document, with a score", async () => {
    const passages = await retrieve(app.deps, orgId, "How do I return a parcel?");
    expect(passages.length).toBeGreaterThan(0);
    const best = passages[0]!;
    expect(best.text).toContain("prepaid label");
    expect(best.text.length).toBeLessThanOrEqual(PASSAGES.chars);
    expect(best.title).toBe("Shipping handbook");
    expect(best.url).toBe("https://help.example.com/shipping");
    expect(best.score).toBeGreaterThan(0);
    expect(best.score).toBeLessThanOrEqual(1);
    for (let i = 1; i < passages.length; i++) expect(passages[i - 1]!.score).toBeGreaterThanOrEqual(passages[i]!.score);
  });

  test("only published documents of the org", async () => {
    const passages = await retrieve(app.deps, orgId, "returns parcel pigeon free forever");
    expect(passages.every((p) => p.title === "Shipping handbook")).toBe(true);
  });

  test("an edited document is cut again: the cache is per document version", async () => {
    const doc = await createDoc(app.deps, orgId, { title: "Gift cards", body: "Gift cards never expire." });
    expect((await retrieve(app.deps, orgId, "Do gift cards expire?"))[0]!.text).toBe("Gift cards never expire.");
    app.clock.advance(1000);
    await updateDoc(app.deps, orgId, doc.id, { body: "Gift cards expire after five years." });
    expect((await retrieve(app.deps, orgId, "Do gift cards expire?"))[0]!.text).toBe("Gift cards expire after five years.");
  });

  test("nothing for a question the base does not cover", async () => {
    expect(await retrieve(app.deps, orgId, "What is the capital of Peru?")).toEqual([]);
  });
});
