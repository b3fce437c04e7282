// Migrations: the embedded index matches what drizzle-kit generated, and applying is idempotent
// and safe when several processes start at once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { renderMigrationIndex } from "../../scripts/embed-migrations.ts";
import { queryRows } from "../../src/db/client.ts";
import { migrate, pendingMigrationCount } from "../../src/db/migrate.ts";
import { migrationFiles } from "../../src/db/migrations/index.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());

describe("migrations", () => {
  test("src/db/migrations/index.ts is up to date with the journal (run `npm run db:generate`)", () => {
    const onDisk = readFileSync(join(import.meta.dir, "../../src/db/migrations/index.ts"), "utf8");
    expect(onDisk).toBe(renderMigrationIndex());
    expect(migrationFiles.length).toBeGreaterThan(0);
  });

  test("a migrated database has none pending, and migrating again applies nothing", async () => {
    expect(await pendingMigrationCount(db.db)).toBe(0);
    expect(await migrate(db.db)).toEqual([]);
    const rows = await queryRows<{ n: number }>(db.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    expect(rows[0]!.n).toBe(migrationFiles.length);
  });

  test("a database missing applied migrations reports them pending (and /readyz would say 503)", async () => {
    class Rollback extends Error {
      constructor(
        readonly partial: number,
        readonly none: number,
      ) {
        super("rollback");
      }
    }
    const seen: unknown = await db.db
      .transaction(async (tx) => {
        await tx.execute(sql`delete from drizzle.__drizzle_migrations`);
        const partial = await pendingMigrationCount(tx as never);
        await tx.execute(sql`drop table drizzle.__drizzle_migrations`);
        const none = await pendingMigrationCount(tx as never);
        throw new Rollback(partial, none);
      })
      .catch((e: unknown) => e);
    expect(seen).toBeInstanceOf(Rollback);
    expect((seen as Rollback).partial).toBe(migrationFiles.length);
    expect((seen as Rollback).none).toBe(migrationFiles.length);
    expect(await pendingMigrationCount(db.db)).toBe(0);
  });

  test("timestamps are timestamptz; ids are uuids or prefixed random strings, never sequential (the outbox's internal order aside)", async () => {
    const columns = await queryRows<{ table_name: string; column_name: string; data_type: string }>(
      db.db,
      sql`select table_name, column_name, data_type from information_schema.columns where table_schema = 'public'`,
    );
    const times = columns.filter((c) => /_at$|_start$/.test(c.column_name));
    expect(times.length).toBeGreaterThan(5);
    for (const c of times) expect(`${c.table_name}.${c.column_name}: ${c.data_type}`).toEndWith("timestamp with time zone");
    // oauth_clients.id is a prefixed random client_id (`mcp_…`, src/oauth/clients.ts); every other id is a uuid.
    for (const c of columns.filter((c) => c.column_name === "id"))
      expect(`${c.table_name}.id: ${c.data_type}`).toEndWith(c.table_name === "oauth_clients" ? "text" : "uuid");
    // One sequence, and it is no id: outbox.seq orders the rows of a lane (src/mail/outbox.ts) and
    // never leaves the database.
    const serials = await queryRows<{ column: string }>(
      db.db,
      sql`select table_name || '.' || column_name as column from information_schema.columns where table_schema = 'public' and column_default like 'nextval%'`,
    );
    expect(serials.map((c) => c.column)).toEqual(["outbox.seq"]);
  });
});
