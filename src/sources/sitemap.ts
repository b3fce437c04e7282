// Sitemaps (sitemaps.org protocol 0.9): a `<urlset>` lists pages, a `<sitemapindex>` lists more
// sitemaps; either may be gzipped. Read with a linear scan of `<loc>` elements over a bounded text
// (SYNC_LIMITS.sitemapBytes, decompressed size included, so a gzip bomb stops at the cap).
import { gunzipSync } from "node:zlib";
import { SYNC_LIMITS } from "./model.ts";

export class SitemapError extends Error {
  override name = "SitemapError";
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

export function sitemapText(bytes: Uint8Array): string {
  let raw = bytes;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      raw = gunzipSync(bytes, { maxOutputLength: SYNC_LIMITS.sitemapBytes });
    } catch (error) {
      throw new SitemapError(
        (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE"
          ? `the sitemap is larger than ${SYNC_LIMITS.sitemapBytes} bytes uncompressed`
          : "the sitemap is not valid gzip",
      );
    }
  }
  return new TextDecoder().decode(raw);
}

/** The sitemap's kind and the addresses it lists, in order. */
export function parseSitemap(text: string): { index: boolean; locations: string[] } {
  const index = /<sitemapindex[\s>]/.test(text.slice(0, 4096));
  if (!index && !/<urlset[\s>]/.test(text.slice(0, 4096))) throw new SitemapError("the sitemap is neither a <urlset> nor a <sitemapindex>");
  const locations: string[] = [];
  for (const match of text.matchAll(/<loc>([^<]{1,2048})<\/loc>/g)) {
    locations.push(match[1]!.trim().replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ENTITIES[name]!));
  }
  return { index, locations };
}

export function looksLikeSitemap(url: URL): boolean {
  return /\.xml(\.gz)?$/i.test(url.pathname);
}
