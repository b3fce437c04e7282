// Queries built once per process and run many times: drizzle's prepared queries, kept in
// deps.statements. For a hot query, building its SQL text and parameter list through the query
// builder costs more of the server's CPU than PostgreSQL spends running it (profiled for
// search_docs, issue #10 "Performance"). A prepared query is bound to the database handle it was
// built from, so it lives in deps (one per process, or per test app), never at module level;
// values are sql.placeholder(...)s filled in at execute. postgres.js also keeps the named
// statement prepared per connection, so PostgreSQL plans it once.
import type { Db } from "./client.ts";

export type Statements = Map<string, unknown>;

export function createStatements(): Statements {
  return new Map();
}

/** The query `name`, built by `build` on first use. Names are unique per query shape. */
export function prepared<T>(deps: { db: Db; statements: Statements }, name: string, build: (db: Db) => T): T {
  let query = deps.statements.get(name) as T | undefined;
  if (query === undefined) {
    query = build(deps.db);
    deps.statements.set(name, query);
  }
  return query;
}
