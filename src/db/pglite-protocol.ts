// The messages between the HTTP thread and the worker thread that owns the embedded database
// (src/db/pglite-worker.ts, src/db/pglite-thread.ts). Every request carries an id; the worker
// answers each id exactly once, in any order. Values travel by structured clone, so rows keep
// their types (numbers, booleans, bigints, Uint8Arrays, parsed JSON).

export interface OpenRequest {
  op: "open";
  /** Undefined: in memory. */
  dataDir: string | undefined;
  /** A dumped data directory (PGlite's `dumpDataDir` tarball) to start from. */
  loadDataDir?: ArrayBuffer;
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule: WebAssembly.Module;
  /** Path of PGlite's file-system bundle (embedded in the compiled binary). */
  dataPath: string;
}

export interface QueryRequest {
  op: "query";
  sql: string;
  params: unknown[];
  rowMode: "array" | "object";
  /**
   * Type OIDs whose values come back as PostgreSQL's text, unparsed: the caller parses them
   * itself (drizzle keeps timestamps, dates and intervals as strings).
   */
  rawTypes: number[];
  /** The transaction this statement belongs to; absent, it waits for any open transaction to end. */
  tx?: number;
}

export type Request = { id: number } & (
  | OpenRequest
  | QueryRequest
  | { op: "begin" }
  | { op: "end"; tx: number; commit: boolean }
  | { op: "listen"; channel: string }
  | { op: "unlisten"; listener: number }
  | { op: "dump"; compression: "none" | "gzip" | "auto" }
  | { op: "close" }
);

export interface QueryResult {
  rows: unknown[];
  fields: { name: string; dataTypeID: number }[];
  affectedRows?: number;
}

/** An error as it crosses the thread boundary: its message and PostgreSQL's fields (code, detail…). */
export interface WireError {
  name: string;
  message: string;
  fields: Record<string, string | number | boolean | null>;
}

export type Reply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: WireError }
  /** A NOTIFY on a channel the listener `listener` listens to. */
  | { notify: number; payload: string };
