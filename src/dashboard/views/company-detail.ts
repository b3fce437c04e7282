// One company: its traits, its most recently active customers and their latest events.
import type { Company, EndUser } from "../../customers/records.ts";
import type { CustomerEvent } from "../../customers/events.ts";
import { type Html, html } from "../../html/html.ts";
import { listTable, when } from "../kit/table.ts";
import { traitText } from "./customer-detail.ts";

export interface CompanyDetailProps {
  company: Company;
  people: readonly EndUser[];
  events: readonly CustomerEvent[];
  /** Each customer's name as the page shows it, by id. */
  names: ReadonlyMap<string, string>;
  limits: { customers: number; events: number };
}

export const companyTitle = (company: Company) => company.name || company.externalId;

function personRow(p: EndUser, names: ReadonlyMap<string, string>): Html {
  const identity = p.verified ? html`<span class="badge ok">verified</span>` : html`<span class="badge">not verified</span>`;
  return html`<tr><td><a href="/dashboard/customers/${p.id}">${names.get(p.id)}</a></td><td>${p.email ?? "—"}</td><td>${identity}</td></tr>`;
}

function eventRow(e: CustomerEvent, names: ReadonlyMap<string, string>): Html {
  const who = e.endUserId ? (names.get(e.endUserId) ?? "—") : "—";
  const properties = JSON.stringify(e.properties ?? {}).slice(0, 300);
  return html`<tr><td>${when(e.occurredAt)}</td><td>${who}</td><td><code>${e.name}</code></td><td><code>${properties}</code></td></tr>`;
}

export function CompanyDetail({ company, people, events, names, limits }: CompanyDetailProps): Html {
  return html`<p><a href="/dashboard/companies">← Companies</a></p>
<h1>${companyTitle(company)}</h1>
<table>
<caption class="sr-only">Company details</caption>
<tbody>
<tr><th scope="row">External id</th><td>${company.externalId}</td></tr>
<tr><th scope="row">First seen</th><td>${when(company.createdAt)}</td></tr>
${Object.entries(company.traits ?? {}).map(([k, v]) => html`<tr><th scope="row">${k}</th><td>${traitText(v)}</td></tr>`)}
</tbody>
</table>
<h2>Customers</h2>
<p class="muted">The ${limits.customers} most recently active.</p>
${listTable({
  caption: "Customers of this company",
  columns: ["Name", "Email", "Identity"],
  rows: people,
  row: (p) => personRow(p, names),
  empty: "No customers.",
})}
<h2>Events</h2>
<p class="muted">The ${limits.events} most recent of its customers.</p>
${listTable({
  caption: "Events of this company's customers",
  columns: ["When", "Customer", "Event", "Properties"],
  rows: events,
  row: (e) => eventRow(e, names),
  empty: "No events.",
})}`;
}
