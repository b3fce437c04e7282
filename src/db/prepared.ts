// Queries built once per process and run many times: drizzle's prepared queries, kept in
// deps.statements. For a hot query, building its SQL text and parameter list through the query
// builder costs more of the server's CPU than PostgreSQL spends running it (profiled for
// search_docs, docs/decisions.md "Performance"). A prepared query is bound to the database handle it was
// built from, so it lives in deps (one per process, or per test app), never at module level;
// values are sql.placeholder(...)s filled in at execute. postgres.js also keeps the named
// statement prepared per connection, so PostgreSQL plans it once.
import type { SQL } from "drizzle-orm";
import type { Db } from "./client.ts";

/**
 * Built queries per database handle: a query is bound to the handle it was built from, and some
 * callers pass a copy of deps whose `db` is a transaction ({ ...deps, db: tx }). Such a copy gets
 * (and builds) its own, so a statement never runs outside the transaction it was called in, nor
 * on a transaction that has ended. Transaction handles are short-lived: a WeakMap lets them go.
 */
export type Statements = WeakMap<Db, Map<string, unknown>>;

export function createStatements(): Statements {
  return new WeakMap();
}

/** The query `name`, built by `build` on first use with this database handle. Names are unique per query shape. */
export function prepared<T>(deps: { db: Db; statements: Statements }, name: string, build: (db: Db) => T): T {
  let built = deps.statements.get(deps.db);
  if (built === undefined) {
    built = new Map();
    deps.statements.set(deps.db, built);
  }
  let query = built.get(name) as T | undefined;
  if (query === undefined) {
    query = build(deps.db);
    built.set(name, query);
  }
  return query;
}

/** A statement written as SQL, prepared once: run with the values of its `sql.placeholder`s. */
export interface RawStatement {
  execute(values: Record<string, unknown>): Promise<unknown>;
}

/**
 * A statement written as SQL (`sql` with `sql.placeholder`s), built and prepared once like the
 * query builder's `.prepare(name)`, which `db.execute` lacks. It goes the way `db.execute` goes —
 * the handle's dialect turns it into text and parameters, its session prepares it — naming it, so
 * postgres.js keeps it prepared per connection too. Those two members are drizzle's own (marked
 * internal in its types, present on every PgDatabase and transaction of every driver).
 */
export function rawStatement(db: Db, name: string, query: SQL): RawStatement {
  const { dialect, session } = db as unknown as {
    dialect: { sqlToQuery(query: SQL): unknown };
    session: { prepareQuery(query: unknown, fields: undefined, name: string, arrayMode: boolean): RawStatement };
  };
  return session.prepareQuery(dialect.sqlToQuery(query), undefined, name, false);
}
