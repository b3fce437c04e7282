// The service keeps its own tables analysed and vacuumed where no autovacuum does (src/db/maintenance.ts,
// docs/decisions.md "Table statistics"): PGlite always, PostgreSQL when its autovacuum is off.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.ts";
import { grownTables, maintainTables, needsTableMaintenance, TABLE_MAINTENANCE, tableMaintenance } from "../../src/db/maintenance.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
  for (let i = 0; i < 3; i++) await seedOrg(app);
}, 60_000);
afterAll(() => app.close());

/** What the planner knows of `orgs`: its row estimate and its pages marked all-visible (set by VACUUM only). */
const orgsStats = async () => {
  const [row] = await queryRows<{ reltuples: number; relallvisible: number }>(
    app.deps.db,
    sql`select reltuples::float8 as reltuples, relallvisible from pg_class where relname = 'orgs' and relnamespace = current_schema()::regnamespace`,
  );
  return { reltuples: Number(row!.reltuples), relallvisible: Number(row!.relallvisible) };
};
const orgCount = async () => Number((await queryRows<{ n: string }>(app.deps.db, sql`select count(*) as n from orgs`))[0]!.n);

describe("table maintenance", () => {
  test("the embedded database always needs it; PostgreSQL when its autovacuum is off", async () => {
    expect(await needsTableMaintenance(app.deps.db, true)).toBe(true);
    const [row] = await queryRows<{ autovacuum: string }>(app.deps.db, sql`show autovacuum`);
    expect(await needsTableMaintenance(app.deps.db, false)).toBe(row!.autovacuum !== "on");
  });

  test("an analysis gives the planner every table's row count; only a vacuum marks pages all-visible", async () => {
    const tables = await maintainTables(app.deps.db, { vacuum: false });
    expect(tables).toBeGreaterThan(30);
    const analysed = await orgsStats();
    expect(analysed.reltuples).toBe(await orgCount());
    expect(analysed.relallvisible).toBe(0);
    await maintainTables(app.deps.db, { vacuum: true });
    expect((await orgsStats()).relallvisible).toBeGreaterThan(0);
  }, 60_000);

  test("a table is analysed once it grew by a fifth of its pages, and by at least four", async () => {
    await app.deps.db.execute(sql`create table maintenance_probe (id int, pad text)`);
    try {
      const probe = async () =>
        (await queryRows<{ relpages: number }>(app.deps.db, sql`select relpages from pg_class where relname = 'maintenance_probe'`))[0]!.relpages;
      const grow = (rows: number) => app.deps.db.execute(sql`insert into maintenance_probe select g, repeat('x', 1000) from generate_series(1, ${rows}) g`);
      await grow(21); // 7 rows of 1 KB fit a page: 3 pages, under the minimum
      expect(await grownTables(app.deps.db)).not.toContain("maintenance_probe");
      await grow(7); // 4 pages
      expect(await grownTables(app.deps.db)).toContain("maintenance_probe");
      await maintainTables(app.deps.db, { vacuum: false, tables: ["maintenance_probe"] });
      expect(await probe()).toBe(4);
      expect(await grownTables(app.deps.db)).not.toContain("maintenance_probe");
      await grow(200); // 33 pages: far past a fifth of 4
      expect(await grownTables(app.deps.db)).toContain("maintenance_probe");
    } finally {
      await app.deps.db.execute(sql`drop table maintenance_probe`);
    }
  });

  test("the job analyses what grew on every run, everything every 6th, and vacuums everything every 60th; without autovacuum on PostgreSQL it says so once", async () => {
    await app.deps.db.execute(sql`create table maintenance_job_probe (id int, pad text)`);
    try {
      const probe = async () =>
        (
          await queryRows<{ relpages: number; relallvisible: number }>(
            app.deps.db,
            sql`select relpages, relallvisible from pg_class where relname = 'maintenance_job_probe'`,
          )
        )[0]!;
      await app.deps.db.execute(sql`insert into maintenance_job_probe select g, repeat('x', 1000) from generate_series(1, 70) g`); // 10 pages
      const warnings: string[] = [];
      const embedded = app.database.kind === "pglite";
      const run = tableMaintenance({ db: app.deps.db, embedded, warn: (m) => warnings.push(m) });
      const [row] = await queryRows<{ autovacuum: string }>(app.deps.db, sql`show autovacuum`);
      await run();
      if (!embedded && row!.autovacuum === "on") {
        // The server's own autovacuum keeps the tables: the job does nothing, says nothing.
        expect(warnings).toEqual([]);
        return;
      }
      // PGlite needs no warning: no autovacuum worker runs there, by design.
      expect(warnings).toHaveLength(embedded ? 0 : 1);
      // Analysed (it grew), not vacuumed: no page marked all-visible.
      expect(await probe()).toEqual({ relpages: 10, relallvisible: 0 });
      for (let i = 2; i < TABLE_MAINTENANCE.analyzeEvery; i++) await run();
      await app.deps.db.execute(sql`insert into maintenance_job_probe values (0, 'x')`); // not growth enough
      const before = (await queryRows<{ n: number }>(app.deps.db, sql`select reltuples::int as n from pg_class where relname = 'maintenance_job_probe'`))[0]!.n;
      await run(); // the analyzeEvery-th run: every table, grown or not
      expect((await queryRows<{ n: number }>(app.deps.db, sql`select reltuples::int as n from pg_class where relname = 'maintenance_job_probe'`))[0]!.n).toBe(
        before + 1,
      );
      for (let i = TABLE_MAINTENANCE.analyzeEvery + 1; i < TABLE_MAINTENANCE.vacuumEvery; i++) await run();
      expect((await probe()).relallvisible).toBe(0);
      await run();
      expect(await probe()).toEqual({ relpages: 10, relallvisible: 10 });
      expect(warnings).toHaveLength(embedded ? 0 : 1);
    } finally {
      await app.deps.db.execute(sql`drop table maintenance_job_probe`);
    }
  }, 120_000);
});
