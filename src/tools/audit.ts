// The audit trail's writer (action_executions): group commit. Every tool call waits until its
// own row is committed before it answers, so nothing answered is missing from the trail — no
// loss window, even on a crash. But calls that finish while a write is in flight do not each
// commit: they queue, and the next write inserts the whole queue in one statement and one
// commit. Under load one commit carries many rows; an idle server writes a call's row at once
// (no timer, no added wait). docs/decisions.md "Audit rows by group commit" (docs/decisions.md "Performance").
import { getTableColumns, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { actionExecutions } from "../db/schema/index.ts";

/** A row as the runtime writes it: every column but the generated id; omitted optional ones are null. */
export type AuditRow = Omit<typeof actionExecutions.$inferInsert, "id" | "createdAt"> & { createdAt: Date };

export interface AuditWriter {
  /**
   * Resolves once the row is committed; rejects if it could not be written. `flush: false` (a call
   * that changed nothing, see `flushes`) lets the commit return before PostgreSQL has flushed its
   * WAL to disk: the row is committed and visible when this resolves, and only a crash of the
   * database server itself within its WAL writer's delay could lose it.
   */
  write(row: AuditRow, options?: { flush: boolean }): Promise<void>;
}

/**
 * Whether a call's audit row must be flushed to disk before the call answers. It must, unless the
 * call ran one of our own read-only tools (it changed nothing, so the row records a read). A
 * connector's tool says it is read-only on the word of a third party, and a call that did not get
 * to run (refused, unknown) is kept as firmly as a write: both may be what an audit is read for.
 * docs/decisions.md "Audit rows of reads".
 */
export function flushes(tool: { readOnly?: boolean; source: { kind: string } } | undefined, ran: boolean): boolean {
  return !(ran && tool?.readOnly === true && tool.source.kind === "builtin");
}

/** Rows in one INSERT: bounds a batch's size and the time a failing batch takes to retry row by row. */
export const AUDIT_BATCH_MAX = 500;

interface Pending {
  row: AuditRow;
  flush: boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
}

// Every column but the generated id, in the table's order (the insert lists them in that order).
// A value a row leaves out is sent as NULL, not as the column's default: a column added later with
// a NOT NULL default must be given by the runtime's row.
// Generated columns are left out, as drizzle leaves them out of the insert's column list.
const COLUMNS = Object.entries(getTableColumns(actionExecutions)).filter(([key, column]) => key !== "id" && column.generated === undefined);

/**
 * A batch as one statement whose shape does not depend on its size: one array parameter per
 * column, turned back into rows by unnest. So the statement is prepared once per connection
 * (src/db/named-statements.ts) instead of parsed and planned per batch, and it is built once per
 * database handle (src/db/prepared.ts): building it per batch through the query builder was most
 * of the server's query-building CPU under load, and at light load most of what a `search_docs`
 * call allocated (~150 KB of its ~200 KB), so most of its garbage collections (docs/decisions.md
 * "Performance").
 */
function buildInsert(db: Db, flush: boolean) {
  // Sent as text[] (postgres.js has no serializer for uuid[] or timestamptz[]), cast by PostgreSQL.
  const arrays = COLUMNS.map(([key, column]) => sql`${sql.placeholder(key)}::text[]::${sql.raw(column.getSQLType())}[]`);
  const rowsOf = sql`select gen_random_uuid(), * from unnest(${sql.join(arrays, sql`, `)})`;
  // synchronous_commit is read when the transaction commits, and may be set at any time before
  // (PostgreSQL's documentation, "Asynchronous Commit"): set here, inside the statement, for its
  // own implicit transaction only (is_local), it costs no extra round trip.
  return db
    .insert(actionExecutions)
    .select(flush ? rowsOf : sql`${rowsOf} where set_config('synchronous_commit', 'off', true) = 'off'`)
    .prepare(flush ? "audit_insert_flushed" : "audit_insert_unflushed");
}

/** The batch's values, a text array per column. */
function columnArrays(rows: AuditRow[]): Record<string, (string | null)[]> {
  const values: Record<string, (string | null)[]> = {};
  for (const [key] of COLUMNS)
    values[key] = rows.map((row) => {
      const value = (row as Record<string, unknown>)[key] ?? null;
      return value instanceof Date ? value.toISOString() : value === null ? null : String(value);
    });
  return values;
}

export function createAuditWriter(db: () => Db): AuditWriter {
  let queue: Pending[] = [];
  let writing = false;
  // Bound to the handle they were built from; built again if `db()` hands out another.
  let built: { db: Db; flushed: ReturnType<typeof buildInsert>; unflushed: ReturnType<typeof buildInsert> } | undefined;
  const insertBatch = (rows: AuditRow[], flush: boolean) => {
    const handle = db();
    if (built?.db !== handle) built = { db: handle, flushed: buildInsert(handle, true), unflushed: buildInsert(handle, false) };
    return (flush ? built.flushed : built.unflushed).execute(columnArrays(rows));
  };

  async function insert(batch: Pending[]): Promise<void> {
    try {
      // One row that must be flushed makes its batch flushed.
      await insertBatch(
        batch.map((p) => p.row),
        batch.some((p) => p.flush),
      );
      for (const p of batch) p.resolve();
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error);
      // One row the database refuses must not cost the others theirs: each alone, then.
      for (const p of batch) await insert([p]);
    }
  }

  async function drain(): Promise<void> {
    writing = true;
    try {
      while (queue.length > 0) {
        const batch = queue.length <= AUDIT_BATCH_MAX ? queue : queue.slice(0, AUDIT_BATCH_MAX);
        queue = queue.length <= AUDIT_BATCH_MAX ? [] : queue.slice(AUDIT_BATCH_MAX);
        await insert(batch);
      }
    } finally {
      writing = false;
    }
  }

  return {
    write(row, options = { flush: true }) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ row, flush: options.flush, resolve, reject });
        if (!writing) void drain();
      });
    },
  };
}
