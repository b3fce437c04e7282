// What a database handle sends, counted where it leaves the process: every statement and every
// transaction opened, on either engine. For tests that bound the round trips of a path (one chat
// turn: docs/performance.md "Round trips of a chat turn"); the service runs without it.
import type postgres from "postgres";

export type DbEvent = { kind: "statement"; sql: string } | { kind: "transaction" };
export type DbObserver = (event: DbEvent) => void;

type Sql = postgres.Sql<Record<string, never>>;

/** A postgres.js client whose `unsafe` (every drizzle query) and `begin`/`savepoint` are reported to `observe`, inside transactions too. */
export function observedPostgres<T extends Sql>(client: T, observe: DbObserver): T {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (property === "unsafe")
        return (query: string, ...rest: unknown[]) => {
          observe({ kind: "statement", sql: query });
          return (value as (...a: unknown[]) => unknown).call(target, query, ...rest);
        };
      if (property === "begin" || property === "savepoint")
        return (...args: unknown[]) => {
          if (property === "begin") observe({ kind: "transaction" });
          const last = args.length - 1;
          const callback = args[last] as (sql: Sql) => unknown;
          args[last] = (inner: Sql) => callback(observedPostgres(inner, observe));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      return value.bind(target);
    },
  });
}

interface Queryable {
  query(sql: string, ...rest: unknown[]): Promise<unknown>;
}
interface PgliteLike extends Queryable {
  transaction<R>(fn: (tx: Queryable) => Promise<R>): Promise<R>;
}

/** The PGlite thread's handle, its `query` and `transaction` (all drizzle calls) reported to `observe`. */
export function observedPglite<T extends PgliteLike>(client: T, observe: DbObserver): T {
  const wrap = <Q extends Queryable>(q: Q): Q =>
    new Proxy(q, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property === "query")
          return (sql: string, ...rest: unknown[]) => {
            observe({ kind: "statement", sql });
            return (value as Queryable["query"]).call(target, sql, ...rest);
          };
        if (property === "transaction")
          return <R>(fn: (tx: Queryable) => Promise<R>) => {
            observe({ kind: "transaction" });
            return (value as PgliteLike["transaction"]).call(target, (tx) => fn(wrap(tx))) as Promise<R>;
          };
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return wrap(client);
}
