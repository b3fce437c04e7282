// The worker thread that owns the embedded database. PGlite runs PostgreSQL in WebAssembly,
// synchronously: on the HTTP thread every statement would stop request parsing for as long as it
// runs. Here it runs beside it; the HTTP thread talks to it through src/db/pglite-thread.ts with
// the messages of src/db/pglite-protocol.ts (docs/decisions.md "The embedded database on a
// thread of its own").
//
// One connection, as PGlite has: a transaction holds it from `begin` to `end`; statements of no
// transaction wait meanwhile (PGlite's own transaction mutex), in the order they arrived.
// This file is an entrypoint of the compiled binary (scripts/build.ts).
import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { QueryRequest, Reply, Request, WireError } from "./pglite-protocol.ts";
import { type Statements, statements } from "./pglite-statements.ts";

declare const self: Worker;

const identity = (value: string) => value;

/** The error's message and PostgreSQL's fields (code, detail, constraint…), cloneable. */
function wireError(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error), fields: {} };
  const fields: WireError["fields"] = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ["string", "number", "boolean"].includes(typeof value)) fields[key] = value as string | number | boolean | null;
  }
  return { name: error.name, message: error.message, fields };
}

function serve(): void {
  let pg: PGlite | undefined;
  let run: Statements | undefined;
  let nextListener = 1;
  // The open transaction (one at most: PGlite's transaction mutex), by the id of its `begin`.
  const transactions = new Map<number, { tx: Transaction; end: (commit: boolean) => void; done: Promise<void> }>();
  const listeners = new Map<number, () => Promise<void>>();
  const parsers = new Map<string, Record<number, typeof identity>>();
  const send = (message: Reply, transfer: Transferable[] = []) => self.postMessage(message, transfer);

  const database = (): PGlite => {
    if (!pg) throw new Error("the embedded database is not open");
    return pg;
  };

  const rawParsers = (types: number[]) => {
    const key = types.join(",");
    let found = parsers.get(key);
    if (!found) {
      found = Object.fromEntries(types.map((oid) => [oid, identity]));
      parsers.set(key, found);
    }
    return found;
  };

  const query = async (m: QueryRequest) => {
    database();
    if (m.tx !== undefined && !transactions.has(m.tx)) throw new Error("the transaction has ended");
    const result = await run!.query(m.sql, m.params, { rowMode: m.rowMode, parsers: rawParsers(m.rawTypes) }, m.tx !== undefined);
    return { rows: result.rows, fields: result.fields, affectedRows: result.affectedRows };
  };

  /** Opens a transaction; resolves to its id once BEGIN ran. It ends on an `end` request. */
  const begin = (id: number) =>
    new Promise<number>((resolve, reject) => {
      const done = database().transaction(async (tx) => {
        const commit = await new Promise<boolean>((end) => {
          transactions.set(id, { tx, end, done });
          resolve(id);
        });
        if (!commit) await tx.rollback();
      });
      done.then(undefined, reject); // BEGIN failed; later failures (COMMIT) are the `end`'s
    });

  const end = async (tx: number, commit: boolean) => {
    const open = transactions.get(tx);
    if (!open) throw new Error("the transaction has ended");
    transactions.delete(tx);
    open.end(commit);
    await open.done;
  };

  const handle = async (m: Request): Promise<{ value: unknown; transfer?: Transferable[] }> => {
    switch (m.op) {
      case "query":
        return { value: await query(m) };
      case "begin":
        return { value: await begin(m.id) };
      case "end":
        await end(m.tx, m.commit);
        return { value: null };
      case "open":
        pg = await PGlite.create(m.dataDir, {
          pgliteWasmModule: m.pgliteWasmModule,
          initdbWasmModule: m.initdbWasmModule,
          fsBundle: Bun.file(m.dataPath),
          loadDataDir: m.loadDataDir ? new Blob([m.loadDataDir]) : undefined,
        });
        run = statements(pg);
        return { value: null };
      case "listen": {
        const listener = nextListener++;
        listeners.set(listener, await database().listen(m.channel, (payload) => send({ notify: listener, payload })));
        return { value: listener };
      }
      case "unlisten": {
        const stop = listeners.get(m.listener);
        listeners.delete(m.listener);
        await stop?.();
        return { value: null };
      }
      case "dump": {
        const bytes = await (await database().dumpDataDir(m.compression)).arrayBuffer();
        return { value: bytes, transfer: [bytes] };
      }
      case "close":
        await pg?.close();
        pg = undefined;
        return { value: null };
    }
  };

  self.onmessage = (event: MessageEvent<Request>) => {
    const m = event.data;
    handle(m).then(
      ({ value, transfer }) => send({ id: m.id, ok: true, value }, transfer),
      (error) => send({ id: m.id, ok: false, error: wireError(error) }),
    );
  };
}

serve();
