// Keyset pagination, the one way every cursor list of the service pages (activity log, tickets,
// customers, conversations, campaign enrolments and messages): newest first by the list's key
// columns, a page of `limit` rows, and an opaque cursor naming the last row of the page.
//
// The cursor carries the row's id, never its key values: the next page compares the key columns
// with that row's own in SQL (a row-value comparison, which an index on the key serves), so a
// timestamp keeps PostgreSQL's microseconds (a JavaScript Date would round them to milliseconds
// and skip rows) and a page never repeats or skips a row however rows are added between requests.
// A cursor naming a row that has since been deleted gives an empty page.
import { and, desc, sql, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";

/** What a list is ordered by: its table, the tenant column scoping it, its id and its key columns (descending). */
export interface KeysetOrder {
  table: PgTable;
  scope: PgColumn;
  id: PgColumn;
  keys: readonly PgColumn[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_CURSOR = 64;

export function encodeCursor(id: string): string {
  return Buffer.from(`k:${id}`).toString("base64url");
}

/** The row id a cursor names, or null when the text is not a cursor this service issued. */
export function decodeCursor(cursor: string): string | null {
  if (cursor.length > MAX_CURSOR) return null;
  const match = /^k:(.+)$/.exec(Buffer.from(cursor, "base64url").toString());
  return match && UUID.test(match[1]!) ? match[1]! : null;
}

/** Rows strictly after the cursor's row in the list's order, within the same tenant. */
export function afterRow(order: KeysetOrder, scopeValue: string, rowId: string): SQL {
  const row = sql.identifier("keyset_cursor_row");
  const mine = (column: PgColumn) => sql`${row}.${sql.identifier(column.name)}`;
  const keys = sql.join(
    order.keys.map((k) => sql`${k}`),
    sql`, `,
  );
  const theirs = sql.join(order.keys.map(mine), sql`, `);
  return sql`(${keys}) < (select ${theirs} from ${order.table} as ${row} where ${mine(order.id)} = ${rowId} and ${mine(order.scope)} = ${scopeValue})`;
}

/** ORDER BY the key columns newest first. */
export function newestFirst(order: KeysetOrder): SQL[] {
  return order.keys.map((k) => desc(k));
}

/** The page of a query that asked for limit + 1 rows, and the cursor of the next page (null at the end). */
export function pageOf<T>(rows: T[], limit: number, idOf: (row: T) => string): { page: T[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  return { page, nextCursor: rows.length > limit ? encodeCursor(idOf(page[page.length - 1]!)) : null };
}

/**
 * The tail every cursor list shares: the cursor's condition added to the list's own (a cursor this
 * service did not issue throws `badCursor()`, the caller's error), then `limit` + 1 rows newest first
 * through `rows`, cut to the page and the next page's cursor.
 */
export async function keysetPage<T>(
  order: KeysetOrder,
  scopeValue: string,
  list: { where: (SQL | undefined)[]; cursor: string | undefined; limit: number; badCursor: () => Error },
  rows: (where: SQL | undefined, orderBy: SQL[], take: number) => PromiseLike<T[]>,
  idOf: (row: T) => string,
): Promise<{ page: T[]; nextCursor: string | null }> {
  const where = [...list.where];
  if (list.cursor !== undefined) {
    const after = decodeCursor(list.cursor);
    if (!after) throw list.badCursor();
    where.push(afterRow(order, scopeValue, after));
  }
  return pageOf(await rows(and(...where), newestFirst(order), list.limit + 1), list.limit, idOf);
}
