// Sitemaps read off the event loop (README "Knowledge sources"): each on a worker thread
// (src/sources/sitemap-worker.ts), one per sync, one sitemap at a time. A sitemap over its time
// (SYNC_LIMITS.sitemapTimeoutMs) is not read, with that reason, and the thread is terminated and
// replaced, so neither its CPU nor its memory stays with the server.
import { SYNC_LIMITS } from "./model.ts";
import type { SitemapAsk, SitemapRead } from "./sitemap.ts";
import type { SitemapReply, SitemapRequest } from "./sitemap-worker.ts";

export interface SitemapReader {
  read(bytes: Uint8Array, ask: SitemapAsk): Promise<SitemapRead>;
  close(): void;
}

export function createSitemapReader(timeoutMs: number = SYNC_LIMITS.sitemapTimeoutMs): SitemapReader {
  let worker: Worker | undefined;
  let nextId = 1;
  const pending = new Map<number, (reply: SitemapRead) => void>();
  const start = () => {
    const w = new Worker(new URL("./sitemap-worker.ts", import.meta.url).href);
    w.onmessage = (event: MessageEvent<SitemapReply>) => {
      const { id, ...reply } = event.data;
      pending.get(id)?.(reply as SitemapRead);
      pending.delete(id);
    };
    w.onerror = () => {
      for (const [id, settle] of pending) {
        pending.delete(id);
        settle({ ok: false, reason: "it could not be read (the sitemap thread failed)" });
      }
      if (worker === w) worker = undefined;
      w.terminate();
    };
    return w;
  };
  return {
    // The crawl reads its sitemaps one after the other, so one request is in flight at a time.
    read: (bytes, ask) =>
      new Promise<SitemapRead>((resolve) => {
        worker ??= start();
        const id = nextId++;
        const timer = setTimeout(() => {
          pending.delete(id);
          worker?.terminate();
          worker = undefined;
          resolve({ ok: false, reason: `reading it took longer than ${timeoutMs / 1000} s` });
        }, timeoutMs);
        pending.set(id, (reply) => {
          clearTimeout(timer);
          resolve(reply);
        });
        worker.postMessage({ id, bytes, ask } satisfies SitemapRequest);
      }),
    close() {
      worker?.terminate();
      worker = undefined;
    },
  };
}
