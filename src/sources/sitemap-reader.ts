// Sitemaps read off the event loop (README "Knowledge sources"): each on a worker thread
// (src/sources/sitemap-worker.ts), one per sync, one sitemap at a time (src/kit/worker-client.ts).
// A sitemap over its time (SYNC_LIMITS.sitemapTimeoutMs) is not read, with that reason, and the
// thread is terminated and replaced, so neither its CPU nor its memory stays with the server.
import { createWorkerClient } from "../kit/worker-client.ts";
import { SYNC_LIMITS } from "./model.ts";
import type { SitemapAsk, SitemapRead } from "./sitemap.ts";
import type { SitemapRequest } from "./sitemap-worker.ts";

export interface SitemapReader {
  read(bytes: Uint8Array, ask: SitemapAsk): Promise<SitemapRead>;
  close(): void;
}

export function createSitemapReader(timeoutMs: number = SYNC_LIMITS.sitemapTimeoutMs): SitemapReader {
  const client = createWorkerClient<Omit<SitemapRequest, "id">, SitemapRead>({
    spawn: () => new Worker(new URL("./sitemap-worker.ts", import.meta.url).href),
    timeoutMs,
    failed: { ok: false, reason: "it could not be read (the sitemap thread failed)" },
    late: { ok: false, reason: `reading it took longer than ${timeoutMs / 1000} s` },
  });
  return { read: (bytes, ask) => client.ask({ bytes, ask }), close: client.close };
}
