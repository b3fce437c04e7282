// Dashboard: customers (role inbox:view). A searchable, cursor-paged list and one
// customer with their tickets and events, read through src/inbox/customer-profiles.ts as /api/customers does;
// companies are mounted with them (customers-companies.ts).
// An unverified visitor's claimed id is shown as a claim, never as who they are (README "Widget
// SDK", identity verification).
import { Elysia, t } from "elysia";
import type { Deps } from "../deps.ts";
import { CUSTOMER_LIMITS, customerDetail, customerSummary, listCustomers } from "../inbox/customer-profiles.ts";
import { html } from "../html/html.ts";
import { cursorPager, type DashboardContext, field, listTable, shellPage, when, withMember } from "./kit/index.ts";
import { findCompany } from "../customers/company-records.ts";
import { companyPages } from "./customers-companies.ts";
import { inboxTabs } from "./inbox-nav.ts";
import { priorityBadge, statusBadge } from "./ticket-badges.ts";

const PAGE = 25;

function verifiedBadge(verified: boolean) {
  return verified ? html`<span class="badge ok">verified</span>` : html`<span class="badge">not verified</span>`;
}

async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>): Promise<Response> {
  const q = query.q?.trim().slice(0, CUSTOMER_LIMITS.query) || undefined;
  const page = await listCustomers(ctx.deps, ctx.orgId, { query: q, cursor: query.cursor || undefined, limit: PAGE });
  const body = html`<h1>Customers</h1>
${inboxTabs("customers")}
<form method="get" action="/dashboard/customers" class="toolbar" role="search" aria-label="Search customers">
${field({ name: "q", label: "Search", type: "search", value: query.q ?? "", maxLength: CUSTOMER_LIMITS.query, placeholder: "Name, email or external id" })}
<button type="submit" class="secondary">Search</button>${q ? html` <a href="/dashboard/customers">Clear</a>` : ""}
</form>
${listTable({
  caption: "Customers",
  columns: ["Name", "Email", "External id", "Identity", "Since"],
  rows: page.customers,
  row: (u) => {
    const s = customerSummary(u);
    return html`<tr><td><a href="/dashboard/customers/${u.id}">${s.name || s.email || s.external_id || "anonymous visitor"}</a></td><td>${s.email ?? "—"}</td><td>${s.external_id ?? (s.claimed_external_id ? html`<span class="muted">claims ${s.claimed_external_id}</span>` : "—")}</td><td>${verifiedBadge(s.verified)}</td><td>${when(u.createdAt)}</td></tr>`;
  },
  empty: q ? "No customer matches." : "No customers yet.",
})}
${cursorPager("/dashboard/customers", query, page.nextCursor)}`;
  return shellPage(ctx, { title: "Customers", active: "inbox", body });
}

async function customerPage(ctx: DashboardContext, ref: string): Promise<Response> {
  const c = await customerDetail(ctx.deps, ctx.orgId, ref);
  const company = c.company_id ? await findCompany(ctx.deps, ctx.orgId, c.company_id) : null;
  const name = c.name || c.email || c.external_id || "Anonymous visitor";
  const traits = Object.entries(c.traits ?? {});
  const body = html`<p><a href="/dashboard/customers">← Customers</a></p>
<h1>${name} ${verifiedBadge(c.verified)}</h1>
<table>
<caption class="sr-only">Customer details</caption>
<tbody>
<tr><th scope="row">Email</th><td>${c.email ?? "—"}</td></tr>
<tr><th scope="row">External id</th><td>${c.external_id ?? "—"}${c.claimed_external_id ? html` <span class="muted">(claims ${c.claimed_external_id}, unproven)</span>` : ""}</td></tr>
<tr><th scope="row">Company</th><td>${c.company_id ? html`<a href="/dashboard/companies/${c.company_id}">${company?.name || company?.externalId || "its company"}</a>` : "—"}</td></tr>
<tr><th scope="row">First seen</th><td>${when(c.created_at)}</td></tr>
${traits.map(([k, v]) => html`<tr><th scope="row">${k}</th><td>${typeof v === "string" ? v : JSON.stringify(v)}</td></tr>`)}
</tbody>
</table>
<h2>Tickets</h2>
<p class="muted">The ${CUSTOMER_LIMITS.recentTickets} most recent · <a href="/dashboard/inbox?customer=${c.id}">All their tickets in the inbox</a> · <a href="/dashboard/conversations?customer=${c.id}">Their conversations</a></p>
${listTable({
  caption: "Tickets of this customer",
  columns: ["#", "Subject", "Status", "Priority", "Updated"],
  rows: c.tickets,
  row: (tk) =>
    html`<tr><td>${tk.number}</td><td><a href="/dashboard/inbox/${tk.number}">${tk.subject}</a></td><td>${statusBadge(tk.status)}</td><td>${priorityBadge(tk.priority)}</td><td>${when(tk.updated_at)}</td></tr>`,
  empty: "No tickets.",
})}
<h2>Events</h2>
<p class="muted">The ${CUSTOMER_LIMITS.recentEvents} most recent, as tracked by the widget.</p>
${listTable({
  caption: "Events of this customer",
  columns: ["When", "Event", "Properties"],
  rows: c.events,
  row: (e) =>
    html`<tr><td>${when(e.occurred_at)}</td><td><code>${e.name}</code></td><td><code>${JSON.stringify(e.properties ?? {}).slice(0, 300)}</code></td></tr>`,
  empty: "No events.",
})}`;
  return shellPage(ctx, { title: name, active: "inbox", body });
}

const ListQuery = t.Object({ q: t.Optional(t.String({ maxLength: CUSTOMER_LIMITS.query })), cursor: t.Optional(t.String({ maxLength: 64 })) });
const Ref = t.Object({ ref: t.String({ maxLength: CUSTOMER_LIMITS.externalId }) });

export function customerPages(deps: Deps) {
  return new Elysia({ name: "dashboard-customers" })
    .use(companyPages(deps))
    .get("/dashboard/customers", ({ request, query }) => withMember(deps, request, "inbox:view", (ctx) => listPage(ctx, query)), { query: ListQuery })
    .get("/dashboard/customers/:ref", ({ request, params }) => withMember(deps, request, "inbox:view", (ctx) => customerPage(ctx, params.ref)), {
      params: Ref,
    });
}
