// One sitemap read on its own thread (src/sources/sitemap-reader.ts): duplicates dropped, only new
// admitted pages back and no more than the room, an index's loop named, a gzip bomb stopped at the
// byte cap, and a sitemap over its time not read, with the reason.
import { afterAll, describe, expect, test } from "bun:test";
import { SYNC_LIMITS } from "../../src/sources/model.ts";
import type { SitemapAsk } from "../../src/sources/sitemap.ts";
import { createSitemapReader } from "../../src/sources/sitemap-reader.ts";

const reader = createSitemapReader();
afterAll(() => reader.close());

const SITE = "https://help.example/sitemap.xml";
const bytes = (text: string) => new TextEncoder().encode(text);
const urlset = (paths: string[]) =>
  bytes(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<url><loc>${p}</loc></url>`).join("")}</urlset>`);
const ask = (over: Partial<SitemapAsk> = {}): SitemapAsk => ({
  rules: { site: SITE, exclude: ["/private"], robots: { url: "https://help.example/robots.txt", text: "User-agent: *\nDisallow: /hidden\n" } },
  knownPages: [],
  knownSitemaps: [SITE],
  pageRoom: 100,
  sitemapRoom: 10,
  ...over,
});

describe("a sitemap on its thread", () => {
  test("gives the new pages the crawl may read, once each, in order, within its room", async () => {
    const listed = urlset([
      "https://help.example/a",
      "https://help.example/b",
      "https://help.example/a",
      "https://help.example/private/x",
      "https://help.example/hidden/y",
      "https://elsewhere.example/c",
      "https://help.example/logo.png",
      "https://help.example/c",
      "https://help.example/d",
    ]);
    expect(await reader.read(listed, ask({ knownPages: ["https://help.example/b"] }))).toEqual({
      ok: true,
      index: false,
      locations: ["https://help.example/a", "https://help.example/c", "https://help.example/d"],
      pastRoom: false,
      firstPastRoom: null,
      repeated: null,
      over: false,
    });
    const room = await reader.read(listed, ask({ pageRoom: 2 }));
    expect(room).toMatchObject({ ok: true, locations: ["https://help.example/a", "https://help.example/b"], pastRoom: true });
  });

  test("an index: sitemaps on the site, the first one past the room, and one already read (a loop)", async () => {
    const index = bytes(
      `<sitemapindex>${[SITE, "https://help.example/1.xml", "https://elsewhere.example/2.xml", "https://help.example/3.xml", "https://help.example/4.xml"].map((l) => `<sitemap><loc>${l}</loc></sitemap>`).join("")}</sitemapindex>`,
    );
    expect(await reader.read(index, ask({ sitemapRoom: 2 }))).toEqual({
      ok: true,
      index: true,
      locations: ["https://help.example/1.xml", "https://help.example/3.xml"],
      pastRoom: true,
      firstPastRoom: "https://help.example/4.xml",
      repeated: SITE,
      over: false,
    });
  });

  test("not a sitemap, or a gzip bomb past the byte cap: not read, with the reason", async () => {
    expect(await reader.read(bytes("<html><body>hi</body></html>"), ask())).toEqual({ ok: false, reason: "it is neither a <urlset> nor a <sitemapindex>" });
    const bomb = Bun.gzipSync(new Uint8Array(SYNC_LIMITS.sitemapBytes + 1));
    expect(await reader.read(bomb, ask())).toEqual({ ok: false, reason: `the sitemap is larger than ${SYNC_LIMITS.sitemapBytes} bytes uncompressed` });
  });

  test("a sitemap over its time is not read, with the reason; its thread is ended", async () => {
    const slow = createSitemapReader(1);
    try {
      const big = urlset(Array.from({ length: SYNC_LIMITS.sitemapEntries }, (_, i) => `https://help.example/p-${i}`));
      expect(await slow.read(big, ask())).toEqual({ ok: false, reason: "reading it took longer than 0.001 s" });
    } finally {
      slow.close();
    }
    expect(await reader.read(urlset(["https://help.example/z"]), ask())).toMatchObject({ ok: true, locations: ["https://help.example/z"] });
  });
});
