// The inbox's customers for the dashboard: /api/customers — list and search, create or update one
// or many by external id or email, and one customer with their tickets and conversations. Roles
// inbox:view (read) and inbox:manage (create, import).
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { FreeForm } from "../http/free-form.ts";
import { jsonResponse } from "../kit/json-response.ts";
import { CUSTOMER_LIMITS, customerDetail, customerView, listCustomers, upsertCustomers } from "./customer-profiles.ts";
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

export function customerRoutes(deps: Deps) {
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
        detail: {
          summary: "Create or update a customer by external id or email: 201 created, 200 updated (inbox:manage)",
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
        detail: {
          summary: "One customer by our id or external id, with their tickets and conversations (inbox:view)",
          tags: ["Customers"],
          security: [{ dashboard: [] }],
        },
      },
    );
}
