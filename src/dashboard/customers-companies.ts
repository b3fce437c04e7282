// Dashboard: companies (role inbox:view). The org's companies (as the widget's
// `company_id` and the customer import create them), searchable and paged, and one company with its
// traits, its customers and their latest events. Read only; every query is filtered on the org.
// The reads are src/customers' (companies.ts, events.ts).
import { Elysia, t } from "elysia";
import { AppError } from "../errors.ts";
import { companyCustomers, listCompanies } from "../customers/companies.ts";
import { recentCustomerEvents } from "../customers/events.ts";
import { findCompany } from "../customers/company-records.ts";
import { type DashboardContext, type DashboardDeps, pageNumber, shellPage, withMember } from "./kit/index.ts";
import { CompanyDetail, companyTitle } from "./views/company-detail.ts";
import { CompanyList } from "./views/company-list.ts";

const PAGE = 25;
/** Customers and events shown on a company's page (the most recent ones). */
export const COMPANY_LIMITS = { query: 200, customers: 100, events: 50 } as const;

async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>): Promise<Response> {
  const q = query.q?.trim().slice(0, COMPANY_LIMITS.query) || undefined;
  const page = pageNumber(query.page);
  const rows = await listCompanies(ctx.deps, ctx.orgId, { q, limit: PAGE, offset: (page - 1) * PAGE });
  const body = CompanyList({
    companies: rows.slice(0, PAGE),
    query,
    searched: q,
    page,
    hasMore: rows.length > PAGE,
    queryMax: COMPANY_LIMITS.query,
  });
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
  const body = CompanyDetail({ company, people, events, names, limits: COMPANY_LIMITS });
  return shellPage(ctx, { title: companyTitle(company), active: "inbox", body });
}

const ListQuery = t.Object({ q: t.Optional(t.String({ maxLength: COMPANY_LIMITS.query })), page: t.Optional(t.String({ maxLength: 10 })) });
const Ref = t.Object({ ref: t.String({ maxLength: 256 }) });

export function companyPages(deps: DashboardDeps) {
  return new Elysia({ name: "dashboard-companies" })
    .get("/dashboard/companies", ({ request, query }) => withMember(deps, request, "inbox:view", (ctx) => listPage(ctx, query)), { query: ListQuery })
    .get("/dashboard/companies/:ref", ({ request, params }) => withMember(deps, request, "inbox:view", (ctx) => companyPage(ctx, params.ref)), { params: Ref });
}
