// Sitemaps (sitemaps.org protocol 0.9): a `<urlset>` lists pages, a `<sitemapindex>` lists more
// sitemaps; either may be gzipped. Read on the sitemap thread only (src/sources/sitemap-worker.ts):
// a linear scan of `<loc>` elements over a bounded text (SYNC_LIMITS.sitemapBytes, decompressed
// size included, so a gzip bomb stops at the cap), at most SYNC_LIMITS.sitemapEntries entries (the
// protocol's own limit per file), duplicates dropped with a set. What goes back to the crawl is
// small: only new addresses it may read, at most as many as it still has room for.
import { gunzipSync } from "node:zlib";
import { type AdmissionRules, admission } from "./admission.ts";
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

/** The sitemap's kind and its `<loc>` entries in order (at most `limit`); `over` when it has more. */
export function parseSitemap(text: string, limit: number = SYNC_LIMITS.sitemapEntries): { index: boolean; locations: string[]; over: boolean } {
  const index = /<sitemapindex[\s>]/.test(text.slice(0, 4096));
  if (!index && !/<urlset[\s>]/.test(text.slice(0, 4096))) throw new SitemapError("it is neither a <urlset> nor a <sitemapindex>");
  const locations: string[] = [];
  let over = false;
  for (const match of text.matchAll(/<loc>([^<]{1,2048})<\/loc>/g)) {
    if (locations.length >= limit) {
      over = true;
      break;
    }
    locations.push(match[1]!.trim().replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => ENTITIES[name]!));
  }
  return { index, locations, over };
}

/** What the crawl asks of one sitemap: the rules, what it has already, and the room it has left. */
export interface SitemapAsk {
  rules: AdmissionRules;
  /** Pages already listed by the sitemaps read before (only new ones come back). */
  knownPages: string[];
  /** Sitemaps already read or queued. */
  knownSitemaps: string[];
  /** Pages the crawl may still take (the page cap), and sitemaps it may still read. */
  pageRoom: number;
  sitemapRoom: number;
}

export type SitemapRead =
  | {
      ok: true;
      index: boolean;
      /** New pages it may read (a `<urlset>`), or new sitemaps on the site (a `<sitemapindex>`), in order, within the room. */
      locations: string[];
      /** A `<urlset>` listed more new pages than the room; a `<sitemapindex>`: the first new sitemap past the room. */
      pastRoom: boolean;
      firstPastRoom: string | null;
      /** A `<sitemapindex>` named a sitemap already read or queued (a loop): the first such. */
      repeated: string | null;
      /** It has more than SYNC_LIMITS.sitemapEntries entries; those were not read. */
      over: boolean;
    }
  | { ok: false; reason: string };

export function readSitemap(bytes: Uint8Array, ask: SitemapAsk): SitemapRead {
  let parsed: ReturnType<typeof parseSitemap>;
  try {
    parsed = parseSitemap(sitemapText(bytes));
  } catch (error) {
    if (error instanceof SitemapError) return { ok: false, reason: error.message };
    throw error;
  }
  const seen = new Set(parsed.index ? ask.knownSitemaps : ask.knownPages);
  const room = parsed.index ? ask.sitemapRoom : ask.pageRoom;
  const { admit } = admission(ask.rules);
  const host = new URL(ask.rules.site).host;
  const onSite = (raw: string) => URL.canParse(raw) && new URL(raw).host === host;
  const locations: string[] = [];
  let firstPastRoom: string | null = null;
  let repeated: string | null = null;
  const fresh = new Set<string>();
  for (const loc of parsed.locations) {
    if (fresh.has(loc)) continue;
    if (seen.has(loc)) {
      if (parsed.index) repeated ??= loc;
      continue;
    }
    fresh.add(loc);
    if (!(parsed.index ? onSite(loc) : admit(loc))) continue;
    if (locations.length < room) locations.push(loc);
    else {
      firstPastRoom = loc;
      break;
    }
  }
  return { ok: true, index: parsed.index, locations, pastRoom: firstPastRoom !== null, firstPastRoom, repeated, over: parsed.over };
}

export function looksLikeSitemap(url: URL): boolean {
  return /\.xml(\.gz)?$/i.test(url.pathname);
}
