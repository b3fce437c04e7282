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
  /** Resolves once the row is committed; rejects if it could not be written. */
  write(row: AuditRow): Promise<void>;
}

/** Rows in one INSERT: bounds a batch's size and the time a failing batch takes to retry row by row. */
export const AUDIT_BATCH_MAX = 500;

interface Pending {
  row: AuditRow;
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
 * (src/db/named-statements.ts) instead of parsed and planned per batch, and the query builder
 * handles one parameter per column rather than one per value (it was most of the server's
 * query-building CPU under load: docs/decisions.md "Performance").
 */
function insertBatch(db: Db, rows: AuditRow[]) {
  const arrays = COLUMNS.map(([key, column]) => {
    const values = rows.map((row) => {
      const value = (row as Record<string, unknown>)[key] ?? null;
      return value instanceof Date ? value.toISOString() : value === null ? null : String(value);
    });
    // Sent as text[] (postgres.js has no serializer for uuid[] or timestamptz[]), cast by PostgreSQL.
    return sql`${sql.param(values)}::text[]::${sql.raw(column.getSQLType())}[]`;
  });
  return db.insert(actionExecutions).select(sql`select gen_random_uuid(), * from unnest(${sql.join(arrays, sql`, `)})`);
}

export function createAuditWriter(db: () => Db): AuditWriter {
  let queue: Pending[] = [];
  let writing = false;

  async function insert(batch: Pending[]): Promise<void> {
    try {
      await insertBatch(
        db(),
        batch.map((p) => p.row),
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
    write(row) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ row, resolve, reject });
        if (!writing) void drain();
      });
    },
  };
}
