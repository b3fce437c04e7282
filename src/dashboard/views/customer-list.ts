// The customers list: search, and one cursor page of customers with their identity.
import type { customerSummary, listCustomers } from "../../inbox/customer-profiles.ts";
import { type Html, html } from "../../html/html.ts";
import { field } from "../kit/fields.ts";
import { cursorPager, listTable, when } from "../kit/table.ts";
import { verifiedBadge } from "./customer-identity.ts";
import { inboxTabs } from "./inbox-tabs.ts";

type CustomerRow = Awaited<ReturnType<typeof listCustomers>>["customers"][number];
type Summary = ReturnType<typeof customerSummary>;

export interface CustomerListProps {
  /** Each customer with what the page shows of them. */
  customers: readonly { row: CustomerRow; summary: Summary }[];
  query: Record<string, string | undefined>;
  /** The search as run (trimmed), if any. */
  searched: string | undefined;
  nextCursor: string | null;
  queryMax: number;
}

function row({ row: u, summary: s }: CustomerListProps["customers"][number]): Html {
  const claim = s.claimed_external_id ? html`<span class="muted">claims ${s.claimed_external_id}</span>` : "—";
  const name = s.name || s.email || s.external_id || "anonymous visitor";
  const link = html`<a href="/dashboard/customers/${u.id}">${name}</a>`;
  const identity = verifiedBadge(s.verified);
  return html`<tr><td>${link}</td><td>${s.email ?? "—"}</td><td>${s.external_id ?? claim}</td><td>${identity}</td><td>${when(u.createdAt)}</td></tr>`;
}

export function CustomerList(p: CustomerListProps): Html {
  return html`<h1>Customers</h1>
${inboxTabs("customers")}
<form method="get" action="/dashboard/customers" class="toolbar" role="search" aria-label="Search customers">
${field({ name: "q", label: "Search", type: "search", value: p.query.q ?? "", maxLength: p.queryMax, placeholder: "Name, email or external id" })}
<button type="submit" class="secondary">Search</button>${p.searched ? html` <a href="/dashboard/customers">Clear</a>` : ""}
</form>
${listTable({
  caption: "Customers",
  columns: ["Name", "Email", "External id", "Identity", "Since"],
  rows: p.customers,
  row,
  empty: p.searched ? "No customer matches." : "No customers yet.",
})}
${cursorPager("/dashboard/customers", p.query, p.nextCursor)}`;
}
