// Opens the database: PostgreSQL through postgres.js when DATABASE_URL is set, otherwise embedded
// PGlite (real Postgres in WASM) in DATA_DIR. Both speak the same schema and migrations; code above
// this file sees only `Db`.
import { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { pgliteAssets } from "./pglite-assets.ts";
import * as schema from "./schema/index.ts";

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface Database {
  db: Db;
  kind: "postgres" | "pglite";
  close(): Promise<void>;
}

export function openPostgres(url: string, options: { max?: number } = {}): Database {
  const client = postgres(url, { max: options.max ?? 10, onnotice: () => {}, connection: { application_name: "svc-agents" } });
  const db = drizzlePostgres({ client, schema }) as unknown as Db;
  return { db, kind: "postgres", close: () => client.end({ timeout: 5 }) };
}

/** Opens (creating on first use) a PGlite database in `dataDir`, or in memory when it is undefined. */
export async function openPglite(dataDir: string | undefined, options: { loadDataDir?: Blob } = {}): Promise<Database> {
  const client = await PGlite.create(dataDir, { ...(await pgliteAssets()), loadDataDir: options.loadDataDir });
  return wrapPglite(client);
}

export function wrapPglite(client: PGlite): Database {
  const db = drizzlePglite({ client, schema }) as unknown as Db;
  return { db, kind: "pglite", close: () => client.close() };
}

/** Runs raw SQL and returns its rows (postgres.js answers an array, PGlite an object with `rows`). */
export async function queryRows<T>(db: Db | Tx, query: import("drizzle-orm").SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as T[] | { rows: T[] };
  return Array.isArray(result) ? result : result.rows;
}
