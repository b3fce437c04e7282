// The visible part of an inbound email's text — the reply without its quoted history and
// signature — worked out off the HTTP thread, with bounded work (docs/decisions.md "Inbound mail
// under attack"): email-reply-parser reads at most the first REPLY_INPUT_CHARS characters (the
// whole text stays in the stored original), on a worker thread (src/mail-in/reply-worker.ts) given
// REPLY_TIME_LIMIT_MS. A worker past its limit is ended, and the message keeps the capped text as
// it came; the next email starts a new worker. One worker per process (deps.replies), one email
// at a time.
export const REPLY_INPUT_CHARS = 64 * 1024;
export const REPLY_TIME_LIMIT_MS = 2_000;

export interface ReplyRequest {
  id: number;
  text: string;
}
export type ReplyResult = { id: number; visible: string } | { id: number; error: string };

export interface ReplyThread {
  /**
   * The reply part of `text` (LF line ends). Past the time limit, or when the worker fails, the
   * first REPLY_INPUT_CHARS characters of the text as they came.
   */
  visible(text: string, timeLimitMs?: number): Promise<string>;
}

export function createReplyThread(): ReplyThread {
  let worker: Worker | null = null;
  let nextId = 1;
  const pending = new Map<number, (visible: string | null) => void>();
  let queue: Promise<unknown> = Promise.resolve();

  const stop = (which: Worker) => {
    if (worker !== which) return;
    worker = null;
    which.terminate();
    for (const done of pending.values()) done(null);
    pending.clear();
  };

  const ensureWorker = (): Worker => {
    if (worker) return worker;
    const started = new Worker(new URL("./reply-worker.ts", import.meta.url).href);
    started.onmessage = (event: MessageEvent<ReplyResult>) => {
      const done = pending.get(event.data.id);
      pending.delete(event.data.id);
      done?.("visible" in event.data ? event.data.visible : null);
    };
    started.onerror = () => stop(started);
    // An idle worker never keeps the process alive.
    (started as Worker & { unref(): void }).unref();
    worker = started;
    return started;
  };

  const extractOnce = (text: string, timeLimitMs: number) =>
    new Promise<string | null>((resolve) => {
      let current: Worker;
      try {
        current = ensureWorker();
      } catch {
        return resolve(null);
      }
      const id = nextId++;
      const timer = setTimeout(() => stop(current), timeLimitMs);
      pending.set(id, (visible) => {
        clearTimeout(timer);
        resolve(visible);
      });
      current.postMessage({ id, text } satisfies ReplyRequest);
    });

  return {
    visible(text, timeLimitMs = REPLY_TIME_LIMIT_MS) {
      const capped = text.length <= REPLY_INPUT_CHARS ? text : text.slice(0, REPLY_INPUT_CHARS);
      const run = queue.then(() => extractOnce(capped, timeLimitMs));
      queue = run.catch(() => null);
      return run.then((visible) => visible ?? capped);
    },
  };
}
