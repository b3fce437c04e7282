// Opens the database: PostgreSQL through postgres.js when DATABASE_URL is set, otherwise embedded
// PGlite (real Postgres in WASM) in DATA_DIR, run on a worker thread of its own
// (src/db/pglite-thread.ts). Both speak the same schema and migrations; code above this file sees
// only `Db`.
import { chmodSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { namedStatements } from "./named-statements.ts";
import { type DbObserver, observedPglite, observedPostgres } from "./observe.ts";
import { PgliteThread } from "./pglite-thread.ts";
import * as schema from "./schema/index.ts";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/**
 * Either the database or an open transaction: a store function takes a `Conn`, so a caller inside
 * a transaction passes its `tx` as it is (a drizzle transaction is a `PgDatabase`: no cast).
 */
export type Conn = Db | Tx;

export interface Database {
  db: Db;
  kind: "postgres" | "pglite";
  close(): Promise<void>;
  /**
   * LISTEN on `channel` (on a connection of its own for PostgreSQL, re-established by postgres.js
   * after a drop); resolves once listening, to a function that stops. Senders use `pg_notify`.
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * PGlite: a gzipped tar of the data directory, taken between two queries (PGlite runs one at a
   * time), after a CHECKPOINT — a consistent snapshot while the service runs (README "Backup and
   * restore"). PostgreSQL: rejects; back it up with pg_dump.
   */
  backup(): Promise<Blob>;
}

/**
 * Seconds before a connection that failed is tried again: 0.1, 0.2, 0.4, then 0.5. postgres.js's
 * default grows to 20 s, which kept the service unready long after the database came back; a
 * short bound lets /readyz turn 200 within 2 s of recovery (README "Faults and shutdown"). Attempts
 * are made only when a statement waits, so a down database is not hammered by an idle service.
 */
function reconnectDelay(retries: number): number {
  return Math.min(0.05 * 2 ** retries, 0.5);
}

/**
 * `prepare: false` (DATABASE_PREPARE=0), or postgres.js's own switches (`?prepare=false` in the
 * URL, PGPREPARE=false): every statement unnamed, drizzle's prepared queries too.
 */
export function openPostgres(url: string, options: { max?: number; prepare?: false; connectTimeoutSeconds?: number; observe?: DbObserver } = {}): Database {
  // connect_timeout bounds a connection attempt (TCP, TLS, authentication) so a request waiting on a
  // database that is down fails after it, not after postgres.js's 30 s default (README "Faults and shutdown").
  const client = postgres(url, {
    max: options.max ?? 10,
    connect_timeout: options.connectTimeoutSeconds ?? 5,
    backoff: reconnectDelay,
    ...(options.prepare === false ? { prepare: false } : {}),
    onnotice: () => {},
    connection: { application_name: "svc-agents" },
  });
  const named = client.options.prepare ? namedStatements(client) : client;
  const db = drizzlePostgres({ client: options.observe ? observedPostgres(named, options.observe) : named, schema });
  return {
    db,
    kind: "postgres",
    close: () => client.end({ timeout: 5 }),
    listen: async (channel, onPayload) => (await client.listen(channel, onPayload)).unlisten,
    backup: () => Promise.reject(new Error('backup is for the embedded database; back up PostgreSQL with pg_dump (README "Backup and restore")')),
  };
}

/** Owner-only modes for everything under `dir` (0700 directories, 0600 files). Iterative. */
function restrictTree(dir: string): void {
  const pending = [dir];
  while (pending.length > 0) {
    const at = pending.pop()!;
    chmodSync(at, 0o700);
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile()) chmodSync(path, 0o600);
    }
  }
}

/**
 * Opens (creating on first use) a PGlite database in `dataDir`, or in memory when it is undefined.
 * On disk, the data holds customer records: nobody but the service's account may read it. PGlite
 * writes its first files 0666 whatever the umask, and later files (WAL, new relations) with the
 * process umask (docs/decisions.md). So both: a 0077 umask for this process from here on, and a
 * chmod of the tree once it is open.
 */
export async function openPglite(dataDir: string | undefined, options: { loadDataDir?: Blob; observe?: DbObserver } = {}): Promise<Database> {
  if (dataDir !== undefined) {
    process.umask(0o077);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  }
  const client = await PgliteThread.open(dataDir, options.loadDataDir);
  if (dataDir !== undefined) restrictTree(dataDir);
  // drizzle's PGlite driver calls only `query` and `transaction`, which the thread's handle offers.
  const observed = options.observe ? observedPglite(client, options.observe) : client;
  const db = drizzlePglite({ client: observed as unknown as PGlite, schema });
  return {
    db,
    kind: "pglite",
    close: () => client.close(),
    listen: (channel, onPayload) => client.listen(channel, onPayload),
    backup: async () => {
      await client.query("checkpoint"); // flushes pages, so the copy needs little WAL replay when opened
      // The worker copies the data directory between two statements (its one connection is
      // serial); compressing it here (seconds for tens of MB) holds no query back, and a stream
      // yields to the event loop as it goes (docs/decisions.md "Backups while serving").
      const tar = await client.dumpDataDir("none");
      return new Response(tar.stream().pipeThrough(new CompressionStream("gzip"))).blob();
    },
  };
}

/** Runs raw SQL and returns its rows (postgres.js answers an array, PGlite an object with `rows`). */
export async function queryRows<T>(db: Db | Tx, query: import("drizzle-orm").SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as T[] | { rows: T[] };
  return Array.isArray(result) ? result : result.rows;
}
