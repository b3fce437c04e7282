// One isolated, migrated database per test file, on the engine the run was started for:
// - TEST_DATABASE_URL set → PostgreSQL: a template database is migrated once (named after the
//   migrations' hash, so a schema change makes a new one) and each file gets
//   `CREATE DATABASE … TEMPLATE` of it, dropped afterwards;
// - otherwise PGlite: a migrated data directory is dumped once (cached under .cache/, again keyed
//   by the migrations' hash) and each file loads it into a fresh in-memory instance (~0.2 s
//   instead of PGlite's ~4 s first initialisation).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { type Database, openPglite, openPostgres } from "../../src/db/client.ts";
import { migrate } from "../../src/db/migrate.ts";
import type { DbObserver } from "../../src/db/observe.ts";
import { migrationFiles } from "../../src/db/migrations/index.ts";

export const engine: "postgres" | "pglite" = process.env.TEST_DATABASE_URL ? "postgres" : "pglite";
const schemaHash = new Bun.CryptoHasher("sha256")
  .update(migrationFiles.map((m) => m.sql).join("\n"))
  .digest("hex")
  .slice(0, 12);
const root = join(import.meta.dir, "../..");

export interface TestDatabase extends Database {
  /** A postgres:// URL of this database (PostgreSQL runs only), for child processes. */
  url?: string;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

let template: Promise<string> | undefined;
async function postgresTemplate(adminUrl: string): Promise<string> {
  const name = `svc_tpl_${schemaHash}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [exists] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!exists) {
      const building = `${name}_${process.pid}`;
      await admin.unsafe(`create database "${building}"`);
      const db = openPostgres(withDatabase(adminUrl, building), { max: 1 });
      await migrate(db.db);
      await db.close();
      try {
        await admin.unsafe(`alter database "${building}" rename to "${name}"`);
      } catch {
        await admin.unsafe(`drop database if exists "${building}"`); // another run made it first
      }
    }
  } finally {
    await admin.end();
  }
  return name;
}

let dump: Promise<Blob> | undefined;
async function pgliteDump(): Promise<Blob> {
  const dir = join(root, ".cache");
  const file = join(dir, `pglite-${schemaHash}.tar`);
  if (existsSync(file)) return new Blob([readFileSync(file)]);
  const db = await openPglite(undefined);
  await migrate(db.db);
  const client = (db.db as unknown as { $client: import("@electric-sql/pglite").PGlite }).$client;
  const blob = await client.dumpDataDir("none");
  await db.close();
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${file}.${process.pid}`, new Uint8Array(await blob.arrayBuffer()));
  require("node:fs").renameSync(`${file}.${process.pid}`, file);
  return blob;
}

/**
 * Fills `dir` (a DATA_DIR) with the migrated PGlite data directory a first start would have made,
 * from the same cached dump: for process tests that are about later starts, not the first one.
 */
export async function seedDataDir(dir: string): Promise<void> {
  dump ??= pgliteDump();
  const db = await openPglite(join(dir, "pgdata"), { loadDataDir: await dump });
  await db.close();
}

/** A fresh migrated database for one test file. Close it in afterAll. */
export async function createTestDatabase(options: { observe?: DbObserver } = {}): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    dump ??= pgliteDump();
    return openPglite(undefined, { loadDataDir: await dump, observe: options.observe });
  }
  template ??= postgresTemplate(adminUrl);
  const name = `svc_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}" template "${await template}"`);
  await admin.end();
  const url = withDatabase(adminUrl, name);
  const db = openPostgres(url, { max: 4, observe: options.observe });
  return {
    ...db,
    url,
    async close() {
      await db.close();
      const cleanup = postgres(adminUrl, { max: 1, onnotice: () => {} });
      await cleanup.unsafe(`drop database if exists "${name}" with (force)`);
      await cleanup.end();
    },
  };
}
