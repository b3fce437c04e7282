// The HTTP thread's handle on the embedded database, which lives in a worker thread
// (src/db/pglite-worker.ts). It offers what drizzle's PGlite driver calls on a PGlite instance —
// `query(sql, params, { rowMode, parsers })` and `transaction(fn)` — so `Db` stays drizzle's
// PgDatabase and nothing above src/db knows the difference; plus `listen`, `dumpDataDir` and
// `close`. A statement costs a message each way; the database's work (parsing, planning,
// executing, and reading the answer into rows) happens on the worker's thread.
import type { QueryOptions, Results } from "@electric-sql/pglite";
import { pgliteAssets } from "./pglite-assets.ts";
import type { QueryRequest, QueryResult, Reply, Request, WireError } from "./pglite-protocol.ts";

type Call = Request extends infer R ? (R extends { id: number } ? Omit<R, "id"> : never) : never;

/** What a transaction's callback receives: PGlite's transaction, as drizzle uses it. */
export interface ThreadTransaction {
  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  readonly closed: boolean;
}

/** An error from the worker, with PostgreSQL's fields (`code`, `detail`, `constraint`…) as PGlite's own errors have them. */
function revive(wire: WireError): Error {
  const error = new Error(wire.message);
  error.name = wire.name;
  return Object.assign(error, wire.fields);
}

/** Applies the caller's parsers to the columns the worker left as text (QueryRequest.rawTypes). */
function parse<T>(result: QueryResult, options: QueryOptions | undefined): Results<T> {
  const parsers = options?.parsers;
  if (parsers) {
    const array = options?.rowMode === "array";
    const columns = result.fields.flatMap((f, i) => (parsers[f.dataTypeID] ? [{ key: array ? i : f.name, parser: parsers[f.dataTypeID]! }] : []));
    if (columns.length > 0)
      for (const row of result.rows as Record<string | number, unknown>[])
        for (const c of columns) if (row[c.key] !== null) row[c.key] = c.parser(row[c.key] as string);
  }
  return result as Results<T>;
}

export class PgliteThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  readonly #listeners = new Map<number, (payload: string) => void>();
  #nextId = 1;
  #failure: Error | undefined;

  private constructor() {
    this.#worker = new Worker(new URL("./pglite-worker.ts", import.meta.url).href);
    this.#worker.onmessage = (event: MessageEvent<Reply>) => {
      const m = event.data;
      if ("notify" in m) {
        this.#listeners.get(m.notify)?.(m.payload);
        return;
      }
      const waiting = this.#pending.get(m.id);
      this.#pending.delete(m.id);
      if (m.ok) waiting?.resolve(m.value);
      else waiting?.reject(revive(m.error));
    };
    // The worker died (an abort inside PostgreSQL): nothing more can be answered.
    this.#worker.onerror = (event) => this.#fail(new Error(`the embedded database's thread failed: ${event.message}`));
  }

  /** Starts the worker and opens the database in it (in memory when `dataDir` is undefined). */
  static async open(dataDir: string | undefined, loadDataDir?: Blob): Promise<PgliteThread> {
    const thread = new PgliteThread();
    try {
      const { pgliteWasmModule, initdbWasmModule, dataPath } = await pgliteAssets();
      const dump = loadDataDir ? await loadDataDir.arrayBuffer() : undefined;
      await thread.#call({ op: "open", dataDir, loadDataDir: dump, pgliteWasmModule, initdbWasmModule, dataPath }, dump ? [dump] : []);
    } catch (error) {
      thread.#worker.terminate();
      throw error;
    }
    return thread;
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiting of this.#pending.values()) waiting.reject(error);
    this.#pending.clear();
  }

  #call<T>(request: Call, transfer: Transferable[] = []): Promise<T> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#worker.postMessage({ ...request, id }, transfer);
    });
  }

  async #query<T>(sql: string, params: unknown[] | undefined, options: QueryOptions | undefined, tx?: number): Promise<Results<T>> {
    const request: Omit<QueryRequest, "id"> = {
      op: "query",
      sql,
      params: params ?? [],
      rowMode: options?.rowMode ?? "object",
      rawTypes: options?.parsers ? Object.keys(options.parsers).map(Number) : [],
    };
    if (tx !== undefined) request.tx = tx;
    return parse<T>(await this.#call<QueryResult>(request), options);
  }

  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.#query<T>(sql, params, options);
  }

  /**
   * Runs `fn` in a transaction: committed when it returns, rolled back when it throws. The
   * worker's one connection is held until then; other statements wait for it.
   */
  async transaction<T>(fn: (tx: ThreadTransaction) => Promise<T>): Promise<T> {
    const id = await this.#call<number>({ op: "begin" });
    let closed = false;
    const tx: ThreadTransaction = {
      query: <R>(sql: string, params?: unknown[], options?: QueryOptions) =>
        closed ? Promise.reject(new Error("Transaction is closed")) : this.#query<R>(sql, params, options, id),
      get closed() {
        return closed;
      },
    };
    let result: T;
    try {
      result = await fn(tx);
    } catch (error) {
      closed = true;
      await this.#call({ op: "end", tx: id, commit: false }).catch(() => {}); // the callback's error is the one to report
      throw error;
    }
    closed = true;
    await this.#call({ op: "end", tx: id, commit: true });
    return result;
  }

  /** LISTEN on `channel`; resolves once listening, to a function that stops. */
  async listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    const listener = await this.#call<number>({ op: "listen", channel });
    this.#listeners.set(listener, onPayload);
    return async () => {
      this.#listeners.delete(listener);
      await this.#call({ op: "unlisten", listener });
    };
  }

  /** The data directory as PGlite's tarball (what `loadDataDir` accepts). */
  async dumpDataDir(compression: "none" | "gzip" | "auto" = "auto"): Promise<Blob> {
    return new Blob([await this.#call<ArrayBuffer>({ op: "dump", compression })]);
  }

  /** Closes the database (PGlite flushes it to disk), then ends the thread. */
  async close(): Promise<void> {
    try {
      if (!this.#failure) await this.#call({ op: "close" });
    } finally {
      this.#fail(new Error("the embedded database is closed"));
      this.#worker.terminate();
    }
  }
}
