// Page extraction off the event loop (README "Knowledge sources"): a page is parsed on a worker
// thread (src/sources/extract-worker.ts), one per sync, one page at a time (src/kit/worker-client.ts):
// a page's time is its own, not spent waiting behind another. A page over its time
// (SYNC_LIMITS.extractTimeoutMs: a giant or pathological document) fails with that reason, and the
// thread is terminated and replaced, so neither its CPU nor its memory stays with the server.
import { createWorkerClient } from "../kit/worker-client.ts";
import type { ExtractRequest } from "./extract-worker.ts";
import type { Alternate } from "./hreflang.ts";
import { SYNC_LIMITS } from "./model.ts";

export type Extracted =
  | { ok: true; title: string; markdown: string; links: string[]; language?: string; alternates?: Alternate[] }
  | { ok: false; reason: string };

export interface Extractor {
  extract(html: string, url: string, fragment?: boolean): Promise<Extracted>;
  close(): void;
}

export function createExtractor(timeoutMs: number = SYNC_LIMITS.extractTimeoutMs): Extractor {
  const client = createWorkerClient<Omit<ExtractRequest, "id">, Extracted>({
    spawn: () => new Worker(new URL("./extract-worker.ts", import.meta.url).href),
    timeoutMs,
    failed: { ok: false, reason: "the page could not be read (the extraction thread failed)" },
    late: { ok: false, reason: `the page took longer than ${timeoutMs / 1000} s to read` },
  });
  return { extract: (html, url, fragment = false) => client.ask({ html, url, fragment }), close: client.close };
}
