// One worker thread answering requests one at a time, each within its time (the knowledge
// sources' page and sitemap threads, src/sources/extract.ts and sitemap-reader.ts). A request past
// its time ends with `late` and the thread is terminated, so neither its CPU nor its memory stays
// with the server; a thread that fails (or cannot start) ends its request with `failed`. The next
// request starts a fresh thread. The caller passes `spawn` with its own literal
// `new Worker(new URL("./x-worker.ts", import.meta.url).href)`: the compiled binary finds each
// worker by that URL beside its entrypoint (scripts/build.ts).

export interface WorkerClient<Request, Reply> {
  /** The thread's reply; waits behind earlier requests, and its time starts when its turn does. */
  ask(request: Request): Promise<Reply>;
  /** Terminates the thread; a request still waiting on it ends with `failed`. */
  close(): void;
}

export function createWorkerClient<Request extends object, Reply extends object>(options: {
  spawn: () => Worker;
  timeoutMs: number;
  failed: Reply;
  late: Reply;
}): WorkerClient<Request, Reply> {
  let worker: Worker | undefined;
  let nextId = 1;
  let queue: Promise<unknown> = Promise.resolve();
  const pending = new Map<number, (reply: Reply) => void>();
  const stop = (which: Worker | undefined, reply: Reply) => {
    if (!which || worker !== which) return;
    worker = undefined;
    which.terminate();
    for (const settle of pending.values()) settle(reply);
    pending.clear();
  };
  const start = () => {
    const w = options.spawn();
    w.onmessage = (event: MessageEvent<{ id: number } & Reply>) => {
      const { id, ...reply } = event.data;
      pending.get(id)?.(reply as unknown as Reply);
      pending.delete(id);
    };
    w.onerror = () => stop(w, options.failed);
    return w;
  };
  const run = (request: Request) =>
    new Promise<Reply>((resolve) => {
      try {
        worker ??= start();
      } catch {
        return resolve(options.failed);
      }
      const current = worker;
      const id = nextId++;
      const timer = setTimeout(() => stop(current, options.late), options.timeoutMs);
      pending.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      current.postMessage({ id, ...request });
    });
  return {
    ask(request) {
      const result = queue.then(() => run(request));
      queue = result.catch(() => {});
      return result;
    },
    close: () => stop(worker, options.failed),
  };
}
