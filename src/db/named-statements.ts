// Every parametrised query is a named prepared statement on PostgreSQL, so it is parsed and planned
// once per connection, not on every execution.
//
// drizzle's postgres.js driver passes `prepare: false` for every query that was not built with
// `.prepare(name)`, overriding postgres.js's own default: PostgreSQL then parses and plans the
// statement again on each call. Profiling the refresh grant (docs/decisions.md "Performance") showed
// PostgreSQL spending most of its time in the parser and planner (base_yyparse,
// get_relation_info, copyObject) for three small statements; the same three statements prepared
// cost about a quarter as much. postgres.js keeps each connection's prepared statements keyed by
// their text and parameter types, and re-prepares on its own when PostgreSQL says a cached plan
// is stale (after a migration).
//
// What is kept must stay bounded: a connection keeps every statement it prepared until it is
// recycled (postgres.js's max_lifetime). Statement texts come from the code, so their number is
// bounded by its query shapes — except where a shape grows with the data: multi-row inserts (the
// audit writer's batches) and `in (...)` lists. Those are prepared only while small
// (PREPARE_MAX_PARAMETERS), which bounds the shapes per query to that many.
// Queries without parameters (DDL, `select 1`, housekeeping) run unnamed, as before.
// docs/decisions.md "Named statements".
import type postgres from "postgres";

/** Above this many parameters a query runs unnamed (parsed and planned on each execution). */
export const PREPARE_MAX_PARAMETERS = 64;

type Sql = postgres.Sql<Record<string, never>>;

export function shouldPrepare(parameters: readonly unknown[] | undefined): boolean {
  const n = parameters?.length ?? 0;
  return n > 0 && n <= PREPARE_MAX_PARAMETERS;
}

/**
 * The client drizzle is given: `unsafe` (all drizzle queries go through it) prepares by
 * shouldPrepare, and so do the clients of the transactions and savepoints it opens.
 */
export function namedStatements<T extends Sql>(client: T): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (property === "unsafe")
        return (query: string, parameters?: unknown[], options?: { prepare?: boolean }) =>
          (value as Sql["unsafe"]).call(target, query, parameters as postgres.ParameterOrJSON<never>[], { ...options, prepare: shouldPrepare(parameters) });
      if (property === "begin" || property === "savepoint")
        // begin(fn) / begin(options, fn); savepoint(fn) / savepoint(name, fn): the callback
        // receives the transaction's own client.
        return (...args: unknown[]) => {
          const last = args.length - 1;
          const callback = args[last] as (sql: Sql) => unknown;
          args[last] = (inner: Sql) => callback(namedStatements(inner));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      return value.bind(target);
    },
  });
}
