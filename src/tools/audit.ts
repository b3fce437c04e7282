// The audit trail's writer (action_executions): group commit. Every tool call waits until its
// own row is committed before it answers, so nothing answered is missing from the trail — no
// loss window, even on a crash. But calls that finish while a write is in flight do not each
// commit: they queue, and the next write inserts the whole queue in one statement and one
// commit. Under load one commit carries many rows; an idle server writes a call's row at once
// (no timer, no added wait). docs/decisions.md "Audit rows by group commit" (issue #10, "Performance").
import type { Db } from "../db/client.ts";
import { actionExecutions } from "../db/schema/index.ts";

export type AuditRow = typeof actionExecutions.$inferInsert;

export interface AuditWriter {
  /** Resolves once the row is committed; rejects if it could not be written. */
  write(row: AuditRow): Promise<void>;
}

/** Rows in one INSERT (PostgreSQL's 65,535 bind parameters allow about 3,600 of 18 columns). */
export const AUDIT_BATCH_MAX = 500;

interface Pending {
  row: AuditRow;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export function createAuditWriter(db: () => Db): AuditWriter {
  let queue: Pending[] = [];
  let writing = false;

  async function insert(batch: Pending[]): Promise<void> {
    try {
      await db().insert(actionExecutions).values(batch.map((p) => p.row));
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
