// Reading a website (README "Knowledge sources"): from a start page, following the links it finds,
// or from a sitemap (an index, nested sitemaps, gzip). Politely: robots.txt first (RFC 9309, read
// with robots-parser; an unreachable one, 5xx included, means no crawl at all, section 2.3.1.4),
// SYNC_LIMITS.perHost requests in flight and WEBSITE_CRAWL_DELAY_MS (or the robots.txt
// Crawl-delay, when longer) between them, conditional requests for pages seen before. Only the
// start URL's host is read; include and exclude patterns and the page cap apply to every page.
// A page's hreflang alternates are followed like links (whether the crawl follows links or a
// sitemap) when their language is one the source takes (`languages`, default all); they give the
// page its language and the cluster its versions share (src/sources/hreflang.ts).
import { DOC_LIMITS } from "../knowledge/docs.ts";
import { firstHeading } from "../knowledge/docs-import.ts";
import { type AdmissionRules, admission, ROBOTS_AGENT } from "./admission.ts";
import { politeFetch } from "./fetch.ts";
import { SOURCE_LIMITS, SYNC_LIMITS } from "./model.ts";
import { clusterOf } from "./hreflang.ts";
import { type PageResult, type Reader, type ReaderContext, SyncFailed } from "./reader.ts";
import { looksLikeSitemap } from "./sitemap.ts";
import { sitemapPages } from "./sitemaps.ts";

const HTML = ["text/html", "application/xhtml+xml"];
const TEXT = ["text/markdown", "text/x-markdown", "text/plain"];

function decode(bytes: Uint8Array, header: string | null): string {
  const charset = /;\s*charset="?([\w-]+)"?/i.exec(header ?? "")?.[1] ?? "utf-8";
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

/** robots.txt as read: its text, or none (a 4xx: no rules, RFC 9309 section 2.3.1.3). */
async function readRobots(ctx: ReaderContext, site: URL): Promise<AdmissionRules["robots"]> {
  const url = new URL("/robots.txt", site).href;
  const fetched = await politeFetch(ctx.deps, url, { accept: "text/plain", host: site.host, signal: ctx.signal, maxBytes: 512 * 1024 });
  if (fetched.kind === "ok") return { url, text: new TextDecoder().decode(fetched.bytes) };
  // Unreachable or 5xx: assume everything is disallowed (section 2.3.1.4).
  if (fetched.kind === "gone" || (fetched.kind === "failed" && fetched.status !== undefined && fetched.status < 500)) return { url, text: "" };
  throw new SyncFailed(`robots.txt could not be read (${fetched.kind === "failed" ? fetched.reason : fetched.kind}), so the site is not crawled`);
}

export const readWebsite: Reader = async (ctx) => {
  const settings = ctx.source.settings;
  const start = new URL(settings.start_url!);
  const cap = Math.min(settings.max_pages ?? SOURCE_LIMITS.defaultPages, SOURCE_LIMITS.maxPages);
  const rules: AdmissionRules = { site: start.href, include: settings.include, exclude: settings.exclude, robots: await readRobots(ctx, start) };
  const { admit, robots } = admission(rules);
  const sitemap = looksLikeSitemap(start);
  const listing = sitemap ? await sitemapPages(ctx, start, rules, cap) : null;
  const queue = listing ? listing.pages : admit(start.href) ? [start.href] : [];
  // hreflang languages the source takes (x-default, null, only when it takes them all).
  const takes = (language: string | null) => !settings.languages || (language !== null && settings.languages.includes(language));
  const queued = new Set(queue);
  const done = new Set<string>();
  let capped = listing ? listing.capped : false;
  const delay = Math.max(ctx.deps.config.websiteCrawlDelayMs, Math.min((robots.getCrawlDelay(ROBOTS_AGENT) ?? 0) * 1000, 30_000));
  let nextAt = 0;
  const turn = async () => {
    const wait = nextAt - Date.now();
    nextAt = Math.max(Date.now(), nextAt) + delay;
    if (wait > 0) await Bun.sleep(wait);
  };

  const readOne = async (url: string): Promise<PageResult | null> => {
    const validators = (page: string) => {
      const known = ctx.pages.get(page);
      return known?.docId && known.contentHash ? { etag: known.etag, lastModified: known.lastModified } : undefined;
    };
    await turn();
    const fetched = await politeFetch(ctx.deps, url, { accept: [...HTML, ...TEXT].join(", "), host: start.host, signal: ctx.signal, validators });
    if (fetched.kind === "not_modified") {
      if (fetched.url === url) return { kind: "unchanged", url };
      if (done.has(fetched.url) || queued.has(fetched.url)) return null;
      done.add(fetched.url);
      return { kind: "unchanged", url: fetched.url };
    }
    if (fetched.kind === "gone") return { kind: "gone", url };
    if (fetched.kind === "failed") return { kind: "failed", url, reason: fetched.reason };
    // A page reached through a redirect is kept under its final address, once.
    const key = fetched.url;
    if (key !== url) {
      if (done.has(key) || queued.has(key) || !admit(key)) return null;
      done.add(key);
    }
    const type = fetched.contentType;
    let languageOf: { language?: string; translationKey?: string } = {};
    let title: string;
    let body: string;
    if (HTML.includes(type)) {
      const extracted = await ctx.extractor.extract(decode(fetched.bytes, type), key);
      if (!extracted.ok) return { kind: "failed", url: key, reason: extracted.reason };
      title = extracted.title;
      body = extracted.markdown;
      const alternates = extracted.alternates ?? [];
      const wanted = alternates.filter((a) => takes(a.language)).map((a) => a.href);
      for (const link of sitemap ? wanted : [...wanted, ...extracted.links]) {
        if (queued.size >= cap) {
          capped = capped || (!queued.has(link) && admit(link));
          break;
        }
        if (!queued.has(link) && admit(link)) {
          queued.add(link);
          queue.push(link);
        }
      }
      const cluster = clusterOf(key, alternates);
      // A page in a language the source does not take: its links are followed, it is not imported.
      if (cluster.language && !takes(cluster.language)) return null;
      // Its language: hreflang's first, else its `<html lang>`; else detected from its text (src/knowledge/docs.ts).
      const named = cluster.language ?? extracted.language;
      languageOf = { ...(named ? { language: named } : {}), ...(cluster.key ? { translationKey: cluster.key } : {}) };
    } else if (TEXT.includes(type)) {
      body = decode(fetched.bytes, type).replace(/\r\n?/g, "\n").trim();
      title = firstHeading(body) ?? new URL(key).pathname;
    } else return { kind: "failed", url: key, reason: `the page is ${type || "of no declared type"}, not HTML or text` };
    if (body.trim() === "") return { kind: "failed", url: key, reason: "there is no readable text in it" };
    if (body.length > DOC_LIMITS.body)
      return { kind: "failed", url: key, reason: `its text is ${body.length} characters; a doc holds at most ${DOC_LIMITS.body}` };
    return {
      kind: "content",
      url: key,
      title: title.slice(0, DOC_LIMITS.title),
      body,
      etag: fetched.etag,
      lastModified: fetched.lastModified,
      ...languageOf,
    };
  };

  let index = 0;
  let stopped = false;
  const worker = async () => {
    try {
      while (index < queue.length && !stopped) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        const url = queue[index++]!;
        done.add(url);
        const result = await readOne(url);
        if (result) await ctx.emit(result, queue.length);
      }
    } catch (error) {
      stopped = true;
      throw error;
    }
  };
  // Two readers share the queue; a page one of them reads may add links for both. When one stops
  // on an error, the other stops after its page, so nothing of this sync runs on after it ends.
  const readers = async () => {
    const outcomes = await Promise.allSettled(Array.from({ length: SYNC_LIMITS.perHost }, worker));
    const failed = outcomes.find((o) => o.status === "rejected");
    if (failed) throw failed.reason;
  };
  await readers();
  // A reader that found the queue empty may have stopped while the other was still adding links.
  while (index < queue.length) await readers();
  const unread = [...(listing?.unread ?? []), ...(capped ? [`the site has more pages than max_pages (${cap}); those past them were not read`] : [])];
  return { complete: unread.length === 0, found: queue.length, unread };
};
