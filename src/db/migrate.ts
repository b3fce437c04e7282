// Applies the migrations drizzle-kit generated (embedded by src/db/migrations/index.ts). The
// bookkeeping table is drizzle's own (`drizzle.__drizzle_migrations`, same hash and ordering), so
// `drizzle-kit migrate` and this agree. Added here: a transaction-scoped advisory lock, so several
// server processes starting together on one PostgreSQL apply each migration exactly once.
import { sql } from "drizzle-orm";
import { type Db, queryRows } from "./client.ts";
import { migrationFiles } from "./migrations/index.ts";

const MIGRATION_LOCK = 0x5_7c_a6_e7; // arbitrary, fixed: pg_advisory_xact_lock key for migrations

const migrations = migrationFiles.map((m) => ({
  tag: m.tag,
  when: m.when,
  hash: new Bun.CryptoHasher("sha256").update(m.sql).digest("hex"),
  statements: m.sql.split("--> statement-breakpoint").filter((s) => s.trim() !== ""),
}));

async function lastApplied(db: Db): Promise<number | undefined> {
  const [first] = await queryRows<{ created_at: string | number }>(
    db,
    sql`select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`,
  );
  return first === undefined ? undefined : Number(first.created_at);
}

/** Applies every pending migration; returns the tags it applied. */
export async function migrate(db: Db): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.execute(sql`create schema if not exists drizzle`);
    await tx.execute(sql`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`);
    const last = await lastApplied(tx);
    const applied: string[] = [];
    for (const m of migrations) {
      if (last !== undefined && m.when <= last) continue;
      for (const statement of m.statements) await tx.execute(sql.raw(statement));
      await tx.execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${m.hash}, ${m.when})`);
      applied.push(m.tag);
    }
    return applied;
  });
}

/** How many embedded migrations the database has not applied (for /readyz). Throws if the database does not answer. */
export async function pendingMigrationCount(db: Db): Promise<number> {
  const [table] = await queryRows<{ t: string | null }>(db, sql`select to_regclass('drizzle.__drizzle_migrations')::text as t`);
  if (!table?.t) return migrations.length;
  const last = await lastApplied(db);
  return migrations.filter((m) => last === undefined || m.when > last).length;
}
