// The companies list: search, and one page of companies.
import type { Company } from "../../customers/records.ts";
import { type Html, html } from "../../html/html.ts";
import { field } from "../kit/fields.ts";
import { listTable, pager, when } from "../kit/table.ts";
import { inboxTabs } from "./inbox-tabs.ts";

export interface CompanyListProps {
  companies: readonly Company[];
  query: Record<string, string | undefined>;
  /** The search as run (trimmed), if any. */
  searched: string | undefined;
  page: number;
  hasMore: boolean;
  queryMax: number;
}

const row = (c: Company): Html =>
  html`<tr><td><a href="/dashboard/companies/${c.id}">${c.name || c.externalId}</a></td><td>${c.externalId}</td><td>${when(c.updatedAt)}</td></tr>`;

export function CompanyList(p: CompanyListProps): Html {
  return html`<h1>Companies</h1>
${inboxTabs("companies")}
<form method="get" action="/dashboard/companies" class="toolbar" role="search" aria-label="Search companies">
${field({ name: "q", label: "Search", type: "search", value: p.query.q ?? "", maxLength: p.queryMax, placeholder: "Name or external id" })}
<button type="submit" class="secondary">Search</button>${p.searched ? html` <a href="/dashboard/companies">Clear</a>` : ""}
</form>
${listTable({
  caption: "Companies",
  columns: ["Name", "External id", "Updated"],
  rows: p.companies,
  row,
  empty: p.searched ? "No company matches." : "No companies yet.",
})}
${pager("/dashboard/companies", p.query, p.page, p.hasMore)}`;
}
