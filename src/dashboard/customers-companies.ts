// Dashboard: companies (role inbox:view). The org's companies (as the widget's
// `company_id` and the customer import create them), searchable and paged, and one company with its
// traits, its customers and their latest events. Read only; every query is filtered on the org.
// The reads are src/customers' (companies.ts, events.ts).
import { Elysia, t } from "elysia";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { companyCustomers, listCompanies } from "../customers/companies.ts";
import { recentCustomerEvents } from "../customers/events.ts";
import { findCompany } from "../customers/company-records.ts";
import { html } from "../html/html.ts";
import { inboxTabs } from "./inbox-nav.ts";
import { type DashboardContext, field, listTable, pageNumber, pager, shellPage, when, withMember } from "./kit/index.ts";

const PAGE = 25;
/** Customers and events shown on a company's page (the most recent ones). */
export const COMPANY_LIMITS = { query: 200, customers: 100, events: 50 } as const;

async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>): Promise<Response> {
  const q = query.q?.trim().slice(0, COMPANY_LIMITS.query) || undefined;
  const page = pageNumber(query.page);
  const rows = await listCompanies(ctx.deps, ctx.orgId, { q, limit: PAGE, offset: (page - 1) * PAGE });
  const shown = rows.slice(0, PAGE);
  const body = html`<h1>Companies</h1>
${inboxTabs("companies")}
<form method="get" action="/dashboard/companies" class="toolbar" role="search" aria-label="Search companies">
${field({ name: "q", label: "Search", type: "search", value: query.q ?? "", maxLength: COMPANY_LIMITS.query, placeholder: "Name or external id" })}
<button type="submit" class="secondary">Search</button>${q ? html` <a href="/dashboard/companies">Clear</a>` : ""}
</form>
${listTable({
  caption: "Companies",
  columns: ["Name", "External id", "Updated"],
  rows: shown,
  row: (c) => html`<tr><td><a href="/dashboard/companies/${c.id}">${c.name || c.externalId}</a></td><td>${c.externalId}</td><td>${when(c.updatedAt)}</td></tr>`,
  empty: q ? "No company matches." : "No companies yet.",
})}
${pager("/dashboard/companies", query, page, rows.length > PAGE)}`;
  return shellPage(ctx, { title: "Companies", active: "inbox", body });
}

async function companyPage(ctx: DashboardContext, ref: string): Promise<Response> {
  const company = await findCompany(ctx.deps, ctx.orgId, ref);
  if (!company) throw AppError.notFound("No such company.");
  const people = await companyCustomers(ctx.deps, ctx.orgId, company.id, COMPANY_LIMITS.customers);
  const events = await recentCustomerEvents(
    ctx.deps.db,
    ctx.orgId,
    people.map((p) => p.id),
    COMPANY_LIMITS.events,
  );
  const names = new Map(people.map((p) => [p.id, p.name || p.email || p.externalId || "anonymous visitor"]));
  const name = company.name || company.externalId;
  const body = html`<p><a href="/dashboard/companies">← Companies</a></p>
<h1>${name}</h1>
<table>
<caption class="sr-only">Company details</caption>
<tbody>
<tr><th scope="row">External id</th><td>${company.externalId}</td></tr>
<tr><th scope="row">First seen</th><td>${when(company.createdAt)}</td></tr>
${Object.entries(company.traits ?? {}).map(([k, v]) => html`<tr><th scope="row">${k}</th><td>${typeof v === "string" ? v : JSON.stringify(v)}</td></tr>`)}
</tbody>
</table>
<h2>Customers</h2>
<p class="muted">The ${COMPANY_LIMITS.customers} most recently active.</p>
${listTable({
  caption: "Customers of this company",
  columns: ["Name", "Email", "Identity"],
  rows: people,
  row: (p) =>
    html`<tr><td><a href="/dashboard/customers/${p.id}">${names.get(p.id)}</a></td><td>${p.email ?? "—"}</td><td>${p.verified ? html`<span class="badge ok">verified</span>` : html`<span class="badge">not verified</span>`}</td></tr>`,
  empty: "No customers.",
})}
<h2>Events</h2>
<p class="muted">The ${COMPANY_LIMITS.events} most recent of its customers.</p>
${listTable({
  caption: "Events of this company's customers",
  columns: ["When", "Customer", "Event", "Properties"],
  rows: events,
  row: (e) =>
    html`<tr><td>${when(e.occurredAt)}</td><td>${e.endUserId ? (names.get(e.endUserId) ?? "—") : "—"}</td><td><code>${e.name}</code></td><td><code>${JSON.stringify(e.properties ?? {}).slice(0, 300)}</code></td></tr>`,
  empty: "No events.",
})}`;
  return shellPage(ctx, { title: name, active: "inbox", body });
}

const ListQuery = t.Object({ q: t.Optional(t.String({ maxLength: COMPANY_LIMITS.query })), page: t.Optional(t.String({ maxLength: 10 })) });
const Ref = t.Object({ ref: t.String({ maxLength: 256 }) });

export function companyPages(deps: Deps) {
  return new Elysia({ name: "dashboard-companies" })
    .get("/dashboard/companies", ({ request, query }) => withMember(deps, request, "inbox:view", (ctx) => listPage(ctx, query)), { query: ListQuery })
    .get("/dashboard/companies/:ref", ({ request, params }) => withMember(deps, request, "inbox:view", (ctx) => companyPage(ctx, params.ref)), { params: Ref });
}
