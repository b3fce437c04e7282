// The list table and its pager: every list page of the dashboard shows its rows through listTable
// (a caption for screen readers, column heads, the rows, one row saying why the list is empty) and
// pages them with pager (numbered pages over an in-memory list or an offset) or cursorPager (the
// services' opaque cursors, stable while rows change).
import { attrs, type Html, html } from "../../html/html.ts";

export const PAGE_SIZE = 20;

/** A column head: its label, or a label only screen readers hear (a column of buttons). */
export type Column = string | { label: string; hidden: true };

export interface ListTable<T> {
  /** What the table lists (a caption only screen readers hear). */
  caption: string;
  columns: readonly Column[];
  rows: readonly T[];
  /** The cells of one row, or several rows (a row and the form that folds under it). */
  row: (item: T, index: number) => Html;
  /** The text of the one row shown when there are none; null: no such row. */
  empty: string | Html | null;
}

export function listTable<T>(t: ListTable<T>): Html {
  const head = t.columns.map((c) =>
    typeof c === "string" ? html`<th scope="col">${c}</th>` : html`<th scope="col"><span class="sr-only">${c.label}</span></th>`,
  );
  const empty = t.rows.length === 0 && t.empty !== null ? html`<tr><td colspan="${String(t.columns.length)}">${t.empty}</td></tr>` : "";
  return html`<table><caption class="sr-only">${t.caption}</caption>
<thead><tr>${head}</tr></thead>
<tbody>${t.rows.map((item, i) => t.row(item, i))}${empty}</tbody></table>`;
}

/** The page number from `?page=` (1-based; anything else is page 1). */
export function pageNumber(raw: string | undefined): number {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 && n <= 100_000 ? n : 1;
}

/** One page of an in-memory list, with whether more follow. */
export function pageOf<T>(items: readonly T[], page: number, size = PAGE_SIZE): { items: T[]; page: number; hasMore: boolean; total: number } {
  const start = (page - 1) * size;
  return { items: items.slice(start, start + size), page, hasMore: start + size < items.length, total: items.length };
}

/** `path` with the query's non-empty parameters, `param` set to `value` (or left out). */
function linkTo(path: string, query: Record<string, string | undefined>, param: string, value: string | null): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v && k !== param) params.set(k, v);
  if (value) params.set(param, value);
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Previous/next links keeping the other query parameters (search terms, filters). */
export function pager(path: string, query: Record<string, string | undefined>, page: number, hasMore: boolean, param = "page", label = "Pages"): Html {
  if (page <= 1 && !hasMore) return html``;
  const link = (n: number) => linkTo(path, query, param, n > 1 ? String(n) : null);
  const previous = page > 1 ? html`<a href="${link(page - 1)}" rel="prev">← Previous</a>` : "";
  const next = hasMore ? html`<a href="${link(page + 1)}" rel="next">Next →</a>` : "";
  return html`<nav class="pager" aria-label="${label}">${previous}<span>Page ${page}</span>${next}</nav>`;
}

/**
 * Cursor pagination links: the services page by an opaque cursor (stable while rows change), so the
 * dashboard offers "first page" and "next page" rather than numbered pages.
 */
export function cursorPager(path: string, query: Record<string, string | undefined>, nextCursor: string | null): Html {
  if (!query.cursor && !nextCursor) return html``;
  const first = query.cursor ? html`<a href="${linkTo(path, query, "cursor", null)}">← First page</a>` : "";
  const next = nextCursor ? html`<a href="${linkTo(path, query, "cursor", nextCursor)}" rel="next">Next page →</a>` : "";
  return html`<nav class="pager" aria-label="Pages">${first}${next}</nav>`;
}

/** A status as a badge; `tone` is its class (ok, warn, danger, accent), empty for plain. */
export function badge(text: string, tone: string | undefined = ""): Html {
  return html`<span${attrs({ class: `badge ${tone}` })}>${text}</span>`;
}

/** Formats a timestamp for a table cell (UTC, minutes). */
export function when(value: Date | string | null | undefined): string {
  if (!value) return "—";
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? "—" : `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
