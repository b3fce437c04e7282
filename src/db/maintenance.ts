// The service's own tables kept analysed and vacuumed where no autovacuum does it (docs/decisions.md
// "Table statistics"). PGlite runs PostgreSQL in single-user mode: `autovacuum` reads "on" but no
// worker ever runs, so its tables were never analysed nor vacuumed. A PostgreSQL server may have
// autovacuum switched off. Either way the planner keeps the row counts it saw when the tables were
// nearly empty, and cached plans are never made again (PostgreSQL re-plans a prepared statement
// when its tables' statistics change): measured under chat load, a server whose tables were not
// analysed spent twice the database CPU per turn after a minute, and more as the tables grew.
//
// ANALYZE reads a sample of each table (at most 300 × default_statistics_target rows), so its cost
// does not grow with the table; VACUUM reads only the pages changed since the last one (the
// visibility map). Each table is its own statement: on PGlite, which runs one statement at a time,
// requests are served between two tables, never held behind the whole database.
import { sql } from "drizzle-orm";
import { type Db, queryRows } from "./client.ts";

export const TABLE_MAINTENANCE = {
  /** How often the tables are analysed. autovacuum's own pause between rounds is a minute too. */
  everyMs: 60_000,
  /** Every this many analyses, the tables are vacuumed as well. */
  vacuumEvery: 10,
} as const;

/** Whether this database needs the service to keep its tables: PGlite always, PostgreSQL when its autovacuum is off. */
export async function needsTableMaintenance(db: Db, embedded: boolean): Promise<boolean> {
  if (embedded) return true;
  const [row] = await queryRows<{ autovacuum: string }>(db, sql`show autovacuum`);
  return row?.autovacuum !== "on";
}

/** The service's tables (the schema its migrations create), largest last. */
async function ownTables(db: Db): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    db,
    sql`select quote_ident(c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relkind = 'r' order by c.relpages, c.relname`,
  );
  return rows.map((r) => r.name);
}

/** ANALYZE (and VACUUM when `vacuum`) each of the service's tables in turn; returns how many. */
export async function maintainTables(db: Db, options: { vacuum: boolean }): Promise<number> {
  const tables = await ownTables(db);
  const verb = options.vacuum ? "vacuum (analyze)" : "analyze";
  // Names come from the catalogue, quoted by quote_ident: no input of anyone's reaches this text.
  for (const table of tables) await db.execute(sql.raw(`${verb} ${table}`));
  return tables.length;
}

/**
 * The periodic job: finds once whether the database needs it (a warning for a PostgreSQL server
 * whose autovacuum is off), then analyses every run and vacuums every `vacuumEvery`th.
 */
export function tableMaintenance(options: { db: Db; embedded: boolean; warn(message: string): void }) {
  let needed: boolean | undefined;
  let runs = 0;
  return async (): Promise<void> => {
    if (needed === undefined) {
      needed = await needsTableMaintenance(options.db, options.embedded);
      if (needed && !options.embedded)
        options.warn("autovacuum is off on this PostgreSQL server: the service analyses and vacuums its own tables (docs/decisions.md)");
    }
    if (!needed) return;
    runs++;
    await maintainTables(options.db, { vacuum: runs % TABLE_MAINTENANCE.vacuumEvery === 0 });
  };
}
