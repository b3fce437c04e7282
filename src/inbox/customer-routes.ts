// The inbox's customers for the dashboard: /api/customers — list and search, create or update one
// or many by external id, and one customer with their recent tickets and events. Roles
// inbox:view (read) and inbox:manage (create, import).
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { FreeForm } from "../http/free-form.ts";
import { jsonResponse } from "../kit/json-response.ts";
import { CUSTOMER_LIMITS, customerDetail, customerView, listCustomers, upsertCustomers } from "./customer-profiles.ts";
import { CustomerEventJson, CustomerImportAnswer, CustomerJson, CustomerList } from "./customer-schemas.ts";
import { TicketViewJson } from "./ticket-schemas.ts";
import type { InboxActor } from "./tickets.ts";

const Cursor = t.String({ minLength: 1, maxLength: 64 });
const CustomerInput = t.Object(
  {
    external_id: t.String({ minLength: 1, maxLength: CUSTOMER_LIMITS.externalId }),
    email: t.Optional(t.String({ format: "email", maxLength: CUSTOMER_LIMITS.email })),
    name: t.Optional(t.String({ maxLength: CUSTOMER_LIMITS.name })),
    traits: t.Optional(FreeForm()),
    company_id: t.Optional(t.String({ minLength: 1, maxLength: CUSTOMER_LIMITS.externalId })),
  },
  { additionalProperties: false },
);
/** customerDetail: the record with the customer's most recent tickets and events. */
const CustomerDetailJson = t.Object({
  ...CustomerJson.properties,
  tickets: t.Array(TicketViewJson, { description: "Their most recent tickets, newest first." }),
  events: t.Array(CustomerEventJson, { description: "Their most recent events, newest first." }),
});
/** The refusals every customer route may answer, in the one error shape. */
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody };

export function customerRoutes(deps: Pick<Deps, "config" | "db" | "now">) {
  const member = async (request: Request, role: "inbox:view" | "inbox:manage") => {
    const { principal, orgId } = await requireMember(deps, request, role);
    return { orgId, actor: { kind: "member", memberId: principal.member.id } satisfies InboxActor };
  };

  return new Elysia({ name: "inbox-customers" })
    .get(
      "/api/customers",
      async ({ query, request }) => {
        const { orgId } = await member(request, "inbox:view");
        const page = await listCustomers(deps, orgId, { query: query.q, cursor: query.cursor, limit: query.limit });
        return { customers: page.customers.map(customerView), ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}) };
      },
      {
        query: t.Object({
          q: t.Optional(t.String({ maxLength: CUSTOMER_LIMITS.query })),
          cursor: t.Optional(Cursor),
          limit: t.Optional(t.Integer({ minimum: 1, maximum: CUSTOMER_LIMITS.pageSize })),
        }),
        response: { 200: CustomerList, ...errors },
        detail: { summary: "The org's customers; search by name, email or external id (inbox:view)", tags: ["Customers"], security: [{ dashboard: [] }] },
      },
    )
    .post(
      "/api/customers",
      async ({ body, request }) => {
        const { orgId, actor } = await member(request, "inbox:manage");
        const [result] = await upsertCustomers(deps, orgId, actor, [body]);
        return jsonResponse(customerView(result!.user), result!.created ? 201 : 200);
      },
      {
        body: CustomerInput,
        response: { 200: CustomerJson, 201: CustomerJson, ...errors },
        detail: {
          summary: "Create or update a customer by external id: 201 created, 200 updated (inbox:manage)",
          tags: ["Customers"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .post(
      "/api/customers/import",
      async ({ body, request }) => {
        const { orgId, actor } = await member(request, "inbox:manage");
        const results = await upsertCustomers(deps, orgId, actor, body.customers);
        const created = results.filter((r) => r.created).length;
        return { created, updated: results.length - created, customers: results.map((r) => ({ id: r.user.id, external_id: r.user.externalId })) };
      },
      {
        body: t.Object({ customers: t.Array(CustomerInput, { minItems: 1, maxItems: CUSTOMER_LIMITS.importBatch }) }, { additionalProperties: false }),
        response: { 200: CustomerImportAnswer, ...errors },
        detail: { summary: "Create or update many customers at once (inbox:manage)", tags: ["Customers"], security: [{ dashboard: [] }] },
      },
    )
    .get(
      "/api/customers/:id",
      async ({ params, request }) => {
        const { orgId } = await member(request, "inbox:view");
        return customerDetail(deps, orgId, params.id);
      },
      {
        params: t.Object({ id: t.String({ minLength: 1, maxLength: 256 }) }),
        response: { 200: CustomerDetailJson, ...errors, 404: ErrorBody },
        detail: {
          summary: "One customer by our id or external id, with their recent tickets and events (inbox:view)",
          tags: ["Customers"],
          security: [{ dashboard: [] }],
        },
      },
    );
}
