// Page extraction on its own thread (src/sources/extract.ts): main content kept with its headings,
// chrome dropped, nesting refused past its limit (at the boundary), and a page over its time ends
// with a reason while the thread is replaced.
import { afterAll, describe, expect, test } from "bun:test";
import { createExtractor } from "../../src/sources/extract.ts";
import { MAX_DEPTH } from "../../src/sources/html-markdown.ts";

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

  test("links are absolute, without fragments; script and chrome never reach the text", async () => {
    const page = `<html><head><title>T</title></head><body><nav><a href="/x#top">Nav</a></nav><article><h1>Title here</h1><p>Body text of the article that is long enough to be kept by the reader, with commas, and more.</p><script>evil()</script><a href="y?q=1">rel</a></article><footer>Footer words</footer></body></html>`;
    const out = await extractor.extract(page, "http://site.test/dir/page");
    if (!out.ok) throw new Error(out.reason);
    expect(out.links).toEqual(["http://site.test/x", "http://site.test/dir/y?q=1"]);
    expect(out.markdown).not.toMatch(/evil|Footer words|Nav/);
    expect(out.title).toBe("Title here");
  });
});
