// A website's pages, listed from its sitemaps (README "Knowledge sources"): the start sitemap and
// the sitemaps an index names (nested indexes too), each fetched once (a set of the sitemaps read
// or queued), at most SYNC_LIMITS.sitemaps in all, each parsed off the event loop
// (src/sources/sitemap-reader.ts). The start sitemap unreadable fails the sync. Any other sitemap
// not read completely — unreachable, not a sitemap, over its limits, past the cap, or named again
// (a loop) — is reported with its address and why, and makes the read incomplete, so no page is
// removed for not being listed (docs/decisions.md "Knowledge sources: a sitemap read in part").
import type { AdmissionRules } from "./admission.ts";
import { politeFetch } from "./fetch.ts";
import { SYNC_LIMITS } from "./model.ts";
import { type ReaderContext, SyncFailed } from "./reader.ts";
import { createSitemapReader } from "./sitemap-reader.ts";

export interface SitemapListing {
  /** The pages to read, in the sitemaps' order, admitted and without duplicates; at most the cap. */
  pages: string[];
  /** More pages were listed than the cap, or the cap was reached with sitemaps left unread. */
  capped: boolean;
  /** The sitemaps not read completely: one line each, naming the sitemap and why. */
  unread: string[];
}

export async function sitemapPages(ctx: ReaderContext, start: URL, rules: AdmissionRules, cap: number): Promise<SitemapListing> {
  const reader = createSitemapReader();
  const pages: string[] = [];
  const queue = [start.href];
  const known = new Set(queue);
  const unread: string[] = [];
  let capped = false;
  const notRead = (url: string, reason: string) => {
    if (url === start.href) throw new SyncFailed(`the sitemap could not be read: ${reason}`);
    unread.push(`the sitemap ${url} could not be read: ${reason}`);
  };
  try {
    for (let read = 1; queue.length > 0; read++) {
      if (pages.length >= cap) break;
      const url = queue.shift()!;
      const fetched = await politeFetch(ctx.deps, url, {
        accept: "application/xml, text/xml, application/gzip",
        host: start.host,
        signal: ctx.signal,
        maxBytes: SYNC_LIMITS.sitemapBytes,
      });
      if (fetched.kind !== "ok") {
        notRead(url, fetched.kind === "failed" ? fetched.reason : fetched.kind === "gone" ? `it answered HTTP ${fetched.status}` : "it had no body");
        continue;
      }
      const result = await reader.read(fetched.bytes, {
        rules,
        knownPages: pages,
        knownSitemaps: [...known],
        pageRoom: cap - pages.length,
        sitemapRoom: SYNC_LIMITS.sitemaps - read - queue.length,
      });
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (!result.ok) {
        notRead(url, result.reason);
        continue;
      }
      if (result.over) unread.push(`the sitemap ${url} lists more than ${SYNC_LIMITS.sitemapEntries} addresses; those past them were not read`);
      if (!result.index) {
        pages.push(...result.locations);
        capped ||= result.pastRoom;
        continue;
      }
      for (const loc of result.locations) {
        known.add(loc);
        queue.push(loc);
      }
      if (result.repeated) unread.push(`the sitemap index ${url} names ${result.repeated}, which was already read (a loop); it was read once`);
      if (result.firstPastRoom)
        unread.push(
          `the sitemaps name more than a sync reads (at most ${SYNC_LIMITS.sitemaps} sitemaps): ${result.firstPastRoom} and any after it were not read`,
        );
    }
  } finally {
    reader.close();
  }
  // Exactly the cap with every sitemap read is a complete listing: a page it no longer names goes.
  return { pages, capped: capped || (pages.length >= cap && queue.length > 0), unread };
}
