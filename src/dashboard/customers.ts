// Dashboard: customers (role inbox:view). A searchable, cursor-paged list and one
// customer with their tickets and events, read through src/inbox/customer-profiles.ts as /api/customers does;
// companies are mounted with them (customers-companies.ts).
// An unverified visitor's claimed id is shown as a claim, never as who they are (README "Widget
// SDK", identity verification).
import { Elysia, t } from "elysia";
import { CUSTOMER_LIMITS, customerDetail, customerSummary, listCustomers } from "../inbox/customer-profiles.ts";
import { type DashboardContext, type DashboardDeps, shellPage, withMember } from "./kit/index.ts";
import { findCompany } from "../customers/company-records.ts";
import { companyPages } from "./customers-companies.ts";
import { CustomerDetail, customerTitle } from "./views/customer-detail.ts";
import { CustomerList } from "./views/customer-list.ts";

const PAGE = 25;

async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>): Promise<Response> {
  const q = query.q?.trim().slice(0, CUSTOMER_LIMITS.query) || undefined;
  const page = await listCustomers(ctx.deps, ctx.orgId, { query: q, cursor: query.cursor || undefined, limit: PAGE });
  const body = CustomerList({
    customers: page.customers.map((row) => ({ row, summary: customerSummary(row) })),
    query,
    searched: q,
    nextCursor: page.nextCursor,
    queryMax: CUSTOMER_LIMITS.query,
  });
  return shellPage(ctx, { title: "Customers", active: "inbox", body });
}

async function customerPage(ctx: DashboardContext, ref: string): Promise<Response> {
  const customer = await customerDetail(ctx.deps, ctx.orgId, ref);
  const company = customer.company_id ? await findCompany(ctx.deps, ctx.orgId, customer.company_id) : null;
  const body = CustomerDetail({ customer, company, limits: CUSTOMER_LIMITS });
  return shellPage(ctx, { title: customerTitle(customer), active: "inbox", body });
}

const ListQuery = t.Object({ q: t.Optional(t.String({ maxLength: CUSTOMER_LIMITS.query })), cursor: t.Optional(t.String({ maxLength: 64 })) });
const Ref = t.Object({ ref: t.String({ maxLength: CUSTOMER_LIMITS.externalId }) });

export function customerPages(deps: DashboardDeps) {
  return new Elysia({ name: "dashboard-customers" })
    .use(companyPages(deps))
    .get("/dashboard/customers", ({ request, query }) => withMember(deps, request, "inbox:view", (ctx) => listPage(ctx, query)), { query: ListQuery })
    .get("/dashboard/customers/:ref", ({ request, params }) => withMember(deps, request, "inbox:view", (ctx) => customerPage(ctx, params.ref)), {
      params: Ref,
    });
}
