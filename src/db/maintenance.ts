// The service's own tables kept analysed and vacuumed where no autovacuum does it (docs/decisions.md
// "Table statistics"). PGlite runs PostgreSQL in single-user mode: `autovacuum` reads "on" but no
// worker ever runs, so its tables were never analysed nor vacuumed. A PostgreSQL server may have
// autovacuum switched off. Either way the planner keeps the row counts it saw when the tables were
// nearly empty, and cached plans are never made again (PostgreSQL re-plans a prepared statement
// when its tables' statistics change): measured under chat load, a server whose tables were not
// analysed spent twice the database CPU per turn after a minute, and more as the tables grew.
//
// A table is analysed once it has grown by a fifth since it last was (its size is read from the
// catalogue every 10 s, no scan), as autovacuum would; ANALYZE reads a sample (at most 300 ×
// default_statistics_target rows), so its cost does not grow with the table. Every minute all are
// analysed, grown or not: under chat load the database's CPU per turn stayed lower when every
// table was (even `orgs`, which does not grow: its new statistics make the plans that read it be
// made again). Every 10 minutes all are vacuumed, which reads only the pages changed since the
// last vacuum (the visibility map). Each table is its own statement: on PGlite, which runs one statement at a time,
// requests are served between two tables, never held behind the whole database.
import { sql } from "drizzle-orm";
import { type Db, queryRows } from "./client.ts";

export const TABLE_MAINTENANCE = {
  /** How often the tables' sizes are compared with what the planner was last told (one catalogue query). */
  everyMs: 10_000,
  /** A table is analysed once it has grown by this share of the pages it had when last analysed… */
  growth: 0.2,
  /** …and by at least this many pages (8 KiB each): a tiny table's plans do not change. */
  minPages: 4,
  /** Every this many runs (a minute, autovacuum's own pause between rounds), every table is analysed… */
  analyzeEvery: 6,
  /** …and every this many (10 minutes), every table is vacuumed and analysed. */
  vacuumEvery: 60,
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

/**
 * The service's tables that grew since the planner last heard of them: more pages now
 * (pg_relation_size, no scan) than `relpages` (set by the last ANALYZE or VACUUM), by the margins
 * of TABLE_MAINTENANCE — as autovacuum analyses a table once a share of it changed.
 */
export async function grownTables(db: Db): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    db,
    sql`select quote_ident(c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relkind = 'r'
          and pg_relation_size(c.oid) / current_setting('block_size')::int - greatest(c.relpages, 0)
              >= greatest(${TABLE_MAINTENANCE.minPages}::int, ceil(greatest(c.relpages, 0) * ${TABLE_MAINTENANCE.growth}::float8))
        order by c.relname`,
  );
  return rows.map((r) => r.name);
}

/** ANALYZE (with VACUUM when `vacuum`) each of `tables` (default: all of the service's) in turn; returns how many. */
export async function maintainTables(db: Db, options: { vacuum: boolean; tables?: string[] }): Promise<number> {
  const tables = options.tables ?? (await ownTables(db));
  const verb = options.vacuum ? "vacuum (analyze)" : "analyze";
  // Names come from the catalogue, quoted by quote_ident: no input of anyone's reaches this text.
  for (const table of tables) await db.execute(sql.raw(`${verb} ${table}`));
  return tables.length;
}

/**
 * The periodic job: finds once whether the database needs it (a warning for a PostgreSQL server
 * whose autovacuum is off), then analyses the tables that grew on every run, all of them every
 * `analyzeEvery`th, and vacuums and analyses all of them every `vacuumEvery`th.
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
    if (runs % TABLE_MAINTENANCE.vacuumEvery === 0) await maintainTables(options.db, { vacuum: true });
    else if (runs % TABLE_MAINTENANCE.analyzeEvery === 0) await maintainTables(options.db, { vacuum: false });
    else await maintainTables(options.db, { vacuum: false, tables: await grownTables(options.db) });
  };
}
