// Page extraction off the event loop (README "Knowledge sources"): a page is parsed on a worker
// thread (src/sources/extract-worker.ts), one per sync, one page at a time. A page over its time
// (SYNC_LIMITS.extractTimeoutMs: a giant or pathological document) fails with that reason, and the
// thread is terminated and replaced, so neither its CPU nor its memory stays with the server.
import type { ExtractReply, ExtractRequest } from "./extract-worker.ts";
import { SYNC_LIMITS } from "./model.ts";

export type Extracted = { ok: true; title: string; markdown: string; links: string[] } | { ok: false; reason: string };

export interface Extractor {
  extract(html: string, url: string, fragment?: boolean): Promise<Extracted>;
  close(): void;
}

export function createExtractor(timeoutMs: number = SYNC_LIMITS.extractTimeoutMs): Extractor {
  let worker: Worker | undefined;
  let nextId = 1;
  let queue: Promise<unknown> = Promise.resolve();
  const pending = new Map<number, (reply: Extracted) => void>();
  const start = () => {
    const w = new Worker(new URL("./extract-worker.ts", import.meta.url).href);
    w.onmessage = (event: MessageEvent<ExtractReply>) => {
      const { id, ...reply } = event.data;
      pending.get(id)?.(reply as Extracted);
      pending.delete(id);
    };
    w.onerror = () => {
      for (const [id, settle] of pending) {
        pending.delete(id);
        settle({ ok: false, reason: "the page could not be read (the extraction thread failed)" });
      }
      if (worker === w) worker = undefined;
      w.terminate();
    };
    return w;
  };
  const run = (html: string, url: string, fragment: boolean) =>
    new Promise<Extracted>((resolve) => {
      worker ??= start();
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        worker?.terminate();
        worker = undefined;
        resolve({ ok: false, reason: `the page took longer than ${timeoutMs / 1000} s to read` });
      }, timeoutMs);
      pending.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      worker.postMessage({ id, html, url, fragment } satisfies ExtractRequest);
    });
  return {
    extract(html, url, fragment = false) {
      // One page at a time: a page's time is its own, not spent waiting behind another.
      const result = queue.then(() => run(html, url, fragment));
      queue = result.catch(() => {});
      return result;
    },
    close() {
      worker?.terminate();
      worker = undefined;
    },
  };
}
