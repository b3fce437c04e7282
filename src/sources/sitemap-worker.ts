// The sitemap thread (src/sources/sitemap-reader.ts): one untrusted sitemap at a time — gunzip,
// scan, dedupe, admission (src/sources/sitemap.ts). On a thread of its own so a sitemap of ten
// megabytes and tens of thousands of entries never holds the server's event loop; the caller
// terminates it when it runs over its time.
import { readSitemap, type SitemapAsk, type SitemapRead } from "./sitemap.ts";

declare const self: Worker;

export interface SitemapRequest {
  id: number;
  bytes: Uint8Array;
  ask: SitemapAsk;
}

export type SitemapReply = { id: number } & SitemapRead;

self.onmessage = (event: MessageEvent<SitemapRequest>) => {
  const { id, bytes, ask } = event.data;
  let read: SitemapRead;
  try {
    read = readSitemap(bytes, ask);
  } catch {
    read = { ok: false, reason: "it could not be read as a sitemap" };
  }
  postMessage({ id, ...read } satisfies SitemapReply);
};
