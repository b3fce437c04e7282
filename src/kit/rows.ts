// Soft-deleted rows keep their id (audit rows and tool names refer to it) but are never read
// as live: every query on a table with `deleted_at` filters with `live(table)`.
import { type Column, isNull, type SQL } from "drizzle-orm";

export function live(table: { deletedAt: Column }): SQL {
  return isNull(table.deletedAt);
}
