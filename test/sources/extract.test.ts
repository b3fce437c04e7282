// Page extraction on its own thread (src/sources/extract.ts): main content kept with its headings,
// chrome dropped, nesting refused past its limit (at the boundary), and a page over its time ends
// with a reason while the thread is replaced. A page refused says why: binary content, too many
// elements, or nesting — each with its own reason (binary text and a page of 100,000 links used to
// be refused as "nested more than 200 levels deep").
import { afterAll, describe, expect, test } from "bun:test";
import { parseHTML } from "linkedom";
import { createExtractor } from "../../src/sources/extract.ts";
import { checkTree, MAX_DEPTH, MAX_ELEMENTS, PageRefused } from "../../src/sources/html-markdown.ts";

const extractor = createExtractor();
afterAll(() => extractor.close());

// <html> is depth 0 and <body> depth 1, so n nested divs reach depth n + 1.
const nested = (n: number) => `<!doctype html><html><body>${"<div>".repeat(n)}<p>Deep down there is a sentence of text.</p>${"</div>".repeat(n)}</body></html>`;

describe("extraction", () => {
  test(`nesting: ${MAX_DEPTH} levels are read, one more is refused with the reason`, async () => {
    const within = await extractor.extract(nested(MAX_DEPTH - 2), "http://site.test/a");
    expect(within).toMatchObject({ ok: true, markdown: expect.stringContaining("Deep down") });
    const over = await extractor.extract(nested(MAX_DEPTH - 1), "http://site.test/a");
    expect(over).toEqual({ ok: false, reason: `the page is nested more than ${MAX_DEPTH} levels deep` });
  });

  test("a page over its time fails with the reason; the next page is read on a fresh thread", async () => {
    const slow = createExtractor(1);
    try {
      const big = `<html><body><main>${"<p>A paragraph of text, with commas, for the reader.</p>".repeat(20_000)}</main></body></html>`;
      expect(await slow.extract(big, "http://site.test/big")).toEqual({ ok: false, reason: "the page took longer than 0.001 s to read" });
    } finally {
      slow.close();
    }
    expect(await extractor.extract("<p>Fine</p>", "http://site.test/fine", true)).toEqual({ ok: true, title: "", markdown: "Fine", links: [] });
  });

  test("a page whose thread is closed under it ends with a reason, not a wait that never ends", async () => {
    const closing = createExtractor(120_000);
    const big = `<html><body><main>${"<p>A paragraph of text, with commas, for the reader.</p>".repeat(200_000)}</main></body></html>`;
    const reading = closing.extract(big, "http://site.test/big");
    await Bun.sleep(20);
    closing.close();
    expect(await reading).toEqual({ ok: false, reason: "the page could not be read (the extraction thread failed)" });
  });

  test("links are absolute, without fragments; script and chrome never reach the text", async () => {
    const page = `<html><head><title>T</title></head><body><nav><a href="/x#top">Nav</a></nav><article><h1>Title here</h1><p>Body text of the article that is long enough to be kept by the reader, with commas, and more.</p><script>evil()</script><a href="y?q=1">rel</a></article><footer>Footer words</footer></body></html>`;
    const out = await extractor.extract(page, "http://site.test/dir/page");
    if (!out.ok) throw new Error(out.reason);
    expect(out.links).toEqual(["http://site.test/x", "http://site.test/dir/y?q=1"]);
    expect(out.markdown).not.toMatch(/evil|Footer words|Nav/);
    expect(out.title).toBe("Title here");
  });

  test("binary content is refused as binary, not as nesting; a page with a few stray characters is read", async () => {
    // Bytes of a deterministic generator, as a server sending an image as text/html would.
    let seed = 42;
    const bytes = Uint8Array.from({ length: 2_000_000 }, () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24);
    const withNul = new TextDecoder().decode(bytes);
    expect(await extractor.extract(withNul, "http://site.test/logo")).toEqual({
      ok: false,
      reason: "the page is binary content (it holds NUL bytes), not text",
    });
    const noNul = new TextDecoder().decode(bytes.filter((b) => b !== 0));
    const refused = await extractor.extract(noNul, "http://site.test/logo");
    expect(refused).toEqual({ ok: false, reason: expect.stringMatching(/^the page is binary content, not text \(\d+% of it is not characters\)$/) });
    // One character in ten not text (a page in another encoding read as UTF-8) is still read; one more is refused.
    const page = (bad: number) => `<p>${"x".repeat(993 - bad)}${"\uFFFD".repeat(bad)}</p>`;
    expect(page(100).length).toBe(1000);
    expect(await extractor.extract(page(100), "http://site.test/latin1", true)).toMatchObject({ ok: true });
    expect(await extractor.extract(page(101), "http://site.test/latin1", true)).toMatchObject({ ok: false, reason: expect.stringContaining("binary content") });
  });

  test(`a page of 100,000 links is refused for its size (more than ${MAX_ELEMENTS} elements), not its nesting`, async () => {
    const hub = `<html><body><main><h1>Every page</h1>${Array.from({ length: 100_000 }, (_, i) => `<a href="/p${i}">Page ${i}</a>`).join(" ")}</main></body></html>`;
    const patient = createExtractor(120_000);
    try {
      expect(await patient.extract(hub, "http://site.test/all")).toEqual({ ok: false, reason: `the page has more than ${MAX_ELEMENTS} elements` });
    } finally {
      patient.close();
    }
  }, 150_000);

  test(`elements: ${MAX_ELEMENTS} are accepted, one more is refused`, () => {
    // <html>, <head> and <body> are three of them.
    const tree = (n: number) => parseHTML(`<html><head></head><body>${"<i></i>".repeat(n - 3)}</body></html>`).document.documentElement as never;
    expect(() => checkTree(tree(MAX_ELEMENTS))).not.toThrow();
    expect(() => checkTree(tree(MAX_ELEMENTS + 1))).toThrow(new PageRefused(`the page has more than ${MAX_ELEMENTS} elements`));
  });
});
