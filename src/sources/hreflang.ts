// A page's versions in other languages, as its head names them (`<link rel="alternate"
// hreflang="es" href="…">`, Google's and the sitemaps' convention; the value is a BCP 47 tag or
// `x-default`). Read on the extraction thread from the parsed page; the crawl follows them like
// links (src/sources/website.ts) and takes the page's own language and cluster from them.
import { normalizeLanguage } from "../kit/language.ts";

/** Alternates read from one page; a page naming more is read up to this many. */
export const MAX_ALTERNATES = 100;

export interface Alternate {
  /** ISO 639-1, or null for `x-default` (the page for no language in particular). */
  language: string | null;
  href: string;
}

interface Queryable {
  querySelectorAll(selector: string): Iterable<{ getAttribute(name: string): string | null }>;
}

/** The page's alternates: absolute http(s) URLs without fragments, each once; unreadable hreflang values are left out. */
export function readAlternates(document: Queryable, pageUrl: string): Alternate[] {
  const found: Alternate[] = [];
  const seen = new Set<string>();
  for (const link of document.querySelectorAll("link[hreflang][href]")) {
    if (found.length >= MAX_ALTERNATES) break;
    const rel = (link.getAttribute("rel") ?? "").toLowerCase().split(/\s+/);
    if (!rel.includes("alternate")) continue;
    const tag = (link.getAttribute("hreflang") ?? "").trim();
    const language = tag.toLowerCase() === "x-default" ? null : normalizeLanguage(tag);
    if (language === null && tag.toLowerCase() !== "x-default") continue;
    try {
      const target = new URL(link.getAttribute("href") ?? "", pageUrl);
      if (target.protocol !== "http:" && target.protocol !== "https:") continue;
      target.hash = "";
      const key = `${language}|${target.href}`;
      if (seen.has(key)) continue;
      seen.add(key);
      found.push({ language, href: target.href });
    } catch {}
  }
  return found;
}

/**
 * What the alternates say of the page itself: its language (the hreflang naming its own URL) and
 * its cluster's key (the least URL of the cluster, itself included — every page of a cluster that
 * names the same alternates gets the same key). Null fields when the page names no other version.
 */
export function clusterOf(pageUrl: string, alternates: readonly Alternate[]): { language: string | null; key: string | null } {
  const self = alternates.find((a) => a.href === pageUrl && a.language !== null);
  const others = alternates.filter((a) => a.href !== pageUrl);
  if (others.length === 0) return { language: self?.language ?? null, key: null };
  const urls = [pageUrl, ...others.map((a) => a.href)].sort();
  return { language: self?.language ?? null, key: `hreflang:${urls[0]}` };
}
