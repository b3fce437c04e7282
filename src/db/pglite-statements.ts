// How the embedded database's worker runs a statement: as named prepared statements, the same
// rule as on PostgreSQL (src/db/named-statements.ts), in one call into PostgreSQL per execution.
//
// PGlite's own `query()` sends the extended protocol's messages one call at a time (Parse,
// Describe, Bind, Describe, Execute, Sync: six calls into the WebAssembly module) and parses and
// plans the statement again on every execution. Measured on this project's search query and on a
// primary-key select, that is 3–5× the time of a prepared statement executed with Bind, Describe,
// Execute and Sync sent together (docs/decisions.md "The embedded database on a thread of its
// own"). A statement is prepared the first time its text is seen and kept while the database is
// open, up to MAX_STATEMENTS (the oldest is closed past that); statements with no parameter or
// more than PREPARE_MAX_PARAMETERS run unnamed, as they do on PostgreSQL.
import { type PGlite, type QueryOptions, type Results, parse, protocol } from "@electric-sql/pglite";
import { shouldPrepare } from "./named-statements.ts";

const { serialize } = protocol;

/** Prepared statements kept per database; far above the number of query shapes in the code. */
export const MAX_STATEMENTS = 2000;

/** PostgreSQL's answer when a prepared statement's result columns changed under it (a migration). */
const CHANGED_RESULT_TYPE = "0A000";

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export interface Statements {
  /**
   * Runs one statement. `inTransaction`: the caller holds PGlite's transaction (so only the
   * query mutex is taken here, as PGlite's own transaction handle does).
   */
  query<T>(sql: string, params: unknown[], options: QueryOptions, inTransaction: boolean): Promise<Results<T>>;
}

export function statements(pg: PGlite): Statements {
  const prepared = new Map<string, { name: string; types: number[] }>();
  let counter = 0;

  const call = async (parts: Uint8Array[], inTransaction: boolean) => (await pg.execProtocol(concat(parts), { syncToFs: !inTransaction })).messages;

  const values = (params: unknown[], types: number[], options: QueryOptions) =>
    params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = options.serializers?.[types[i]!] ?? pg.serializers[types[i]!];
      return serializer ? serializer(value) : String(value);
    });

  /** Parses (named or unnamed) and describes: the parameter types the values are serialised for. */
  const describe = async (sql: string, name: string, inTransaction: boolean) =>
    parse.parseDescribeStatementResults(
      await call([serialize.parse({ name, text: sql }), serialize.describe({ type: "S", name }), serialize.sync()], inTransaction),
    );

  const statementOf = async (sql: string, inTransaction: boolean) => {
    const found = prepared.get(sql);
    if (found) return found;
    const name = `s${++counter}`;
    const types = await describe(sql, name, inTransaction);
    if (prepared.size >= MAX_STATEMENTS) {
      const [oldestSql, oldest] = prepared.entries().next().value!;
      prepared.delete(oldestSql);
      await call([serialize.close({ type: "S", name: oldest.name }), serialize.sync()], inTransaction);
    }
    const statement = { name, types };
    prepared.set(sql, statement);
    return statement;
  };

  const execute = async <T>(sql: string, params: unknown[], options: QueryOptions, inTransaction: boolean): Promise<Results<T>> => {
    let name = "";
    let types: number[] = [];
    if (shouldPrepare(params)) ({ name, types } = await statementOf(sql, inTransaction));
    else if (params.length > 0) types = await describe(sql, "", inTransaction);
    const run = [
      serialize.bind({ statement: name, values: values(params, types, options) }),
      serialize.describe({ type: "P" }),
      serialize.execute({}),
      serialize.sync(),
    ];
    const messages = await call(name === "" && params.length === 0 ? [serialize.parse({ text: sql }), ...run] : run, inTransaction);
    return parse.parseResults(messages, pg.parsers, options)[0] as Results<T>;
  };

  const attempt = async <T>(sql: string, params: unknown[], options: QueryOptions, inTransaction: boolean): Promise<Results<T>> => {
    try {
      return await execute<T>(sql, params, options, inTransaction);
    } catch (error) {
      const stale = (error as { code?: string }).code === CHANGED_RESULT_TYPE && prepared.has(sql);
      if (!stale) throw error;
      // Prepared before a migration changed its columns: prepare it again. Inside a transaction
      // the failed statement has aborted it, so the caller sees the error (as on PostgreSQL).
      const old = prepared.get(sql)!;
      prepared.delete(sql);
      await call([serialize.close({ type: "S", name: old.name }), serialize.sync()], inTransaction);
      if (inTransaction) throw error;
      return execute<T>(sql, params, options, inTransaction);
    }
  };

  return {
    query: (sql, params, options, inTransaction) =>
      inTransaction
        ? pg._runExclusiveQuery(() => attempt(sql, params, options, true))
        : pg._runExclusiveTransaction(() => pg._runExclusiveQuery(() => attempt(sql, params, options, false))),
  };
}
