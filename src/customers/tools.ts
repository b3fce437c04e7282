// Built-in family: workspace data (`data_*`). Reads need data:read, writes data:write. When a
// call is bound to a customer (`_meta.bound_end_user_id` / `bound_email`), these tools see only
// that customer and their company: anything else is "not found".
import { endUserView, findEndUser, searchEndUsers, updateEndUser } from "./records.ts";
import { companyView, findCompany, updateCompany } from "./company-records.ts";
import { AppError } from "../errors.ts";
import { Arg, defineTool } from "../tools/define.ts";
import type { ToolContext, ToolDefinition } from "../tools/types.ts";

const source = { kind: "builtin" as const, label: "Workspace data" };
const traits = Arg.json<Record<string, unknown>>({ type: "object", description: "Traits to merge into the stored ones.", maxProperties: 100 });
const ref = Arg.string({ minLength: 1, maxLength: 256 });
const name = Arg.string({ maxLength: 200 });
const str = { type: "string" };
const when = { type: "string", format: "date-time" };
/** outputSchema (2025-06-18+): a customer and a company as endUserView and companyView give them. */
const userOutput = {
  type: "object" as const,
  properties: { id: str, external_id: str, email: str, name: str, traits: { type: "object" }, company_id: str, updated_at: when },
  required: ["id", "name", "traits", "updated_at"],
};
const usersOutput = { type: "object" as const, properties: { users: { type: "array", items: userOutput } }, required: ["users"] };
const companyOutput = {
  type: "object" as const,
  properties: { id: str, external_id: { type: ["string", "null"] }, name: str, traits: { type: "object" }, verified: { type: "boolean" }, updated_at: when },
  required: ["id", "external_id", "name", "traits", "verified", "updated_at"],
};

async function visibleUser(ctx: ToolContext, id: string) {
  const user = await findEndUser(ctx.deps, ctx.orgId, id);
  if (!user || (ctx.boundCustomer && ctx.boundCustomer.id !== user.id)) throw AppError.notFound(`No customer ${id}.`);
  return user;
}

/**
 * A company the call may see. Bound, only the customer's own; in a customer's chat, only when that
 * customer is verified (a claimed company_id proves nothing), and never for writing: a company is
 * shared by its people, and one of them chatting must not rewrite it for the rest.
 */
async function visibleCompany(ctx: ToolContext, id: string, write = false) {
  if (ctx.actor.kind === "customer" && (write || !ctx.boundCustomer?.verified))
    throw AppError.forbidden(
      write ? "Company records cannot be changed from a customer's chat." : "Company records are shown in a chat only to verified customers.",
    );
  const company = await findCompany(ctx.deps, ctx.orgId, id);
  if (!company || (ctx.boundCustomer && ctx.boundCustomer.companyId !== company.id)) throw AppError.notFound(`No company ${id}.`);
  return company;
}

export const dataTools: ToolDefinition[] = [
  defineTool({
    name: "data_search_users",
    description: "Find customers by name, email or external id.",
    input: Arg.object(
      { query: Arg.optional(Arg.string({ maxLength: 200 })), limit: Arg.optional(Arg.integer({ minimum: 1, maximum: 50 })) },
      { additionalProperties: false },
    ),
    title: "Find customers",
    readOnly: true,
    outputSchema: usersOutput,
    scope: "data:read",
    source,
    async execute(ctx, args) {
      if (ctx.boundCustomer) {
        const user = await findEndUser(ctx.deps, ctx.orgId, ctx.boundCustomer.id);
        const q = (args.query ?? "").toLowerCase();
        const matches = user && (!q || [user.name, user.email ?? "", user.externalId ?? ""].some((v) => v.toLowerCase().includes(q)));
        return { value: { users: matches ? [endUserView(user)] : [] } };
      }
      const users = await searchEndUsers(ctx.deps, ctx.orgId, args.query ?? "", args.limit ?? 10);
      return { value: { users: users.map(endUserView) } };
    },
  }),
  defineTool({
    name: "data_get_user",
    description: "Get one customer's record (traits, company) by id or external id.",
    input: Arg.object({ user_id: ref }, { additionalProperties: false }),
    title: "Get a customer",
    readOnly: true,
    outputSchema: userOutput,
    scope: "data:read",
    source,
    async execute(ctx, args) {
      return { value: endUserView(await visibleUser(ctx, args.user_id)) };
    },
  }),
  defineTool({
    name: "data_get_company",
    description: "Get one company's record by id or external id.",
    input: Arg.object({ company_id: ref }, { additionalProperties: false }),
    title: "Get a company",
    readOnly: true,
    outputSchema: companyOutput,
    scope: "data:read",
    source,
    async execute(ctx, args) {
      return { value: companyView(await visibleCompany(ctx, args.company_id)) };
    },
  }),
  defineTool({
    name: "data_update_user",
    description: "Update a customer's name or merge traits into their record.",
    input: Arg.object({ user_id: ref, name: Arg.optional(name), traits: Arg.optional(traits) }, { additionalProperties: false }),
    title: "Update a customer",
    idempotent: true,
    outputSchema: userOutput,
    scope: "data:write",
    source,
    async execute(ctx, args) {
      const user = await visibleUser(ctx, args.user_id);
      const updated = await updateEndUser(ctx.deps, user, {
        name: args.name,
        traits: args.traits,
      });
      return { value: endUserView(updated) };
    },
  }),
  defineTool({
    name: "data_update_company",
    description: "Update a company's name or merge traits into its record.",
    input: Arg.object({ company_id: ref, name: Arg.optional(name), traits: Arg.optional(traits) }, { additionalProperties: false }),
    title: "Update a company",
    idempotent: true,
    outputSchema: companyOutput,
    scope: "data:write",
    source,
    async execute(ctx, args) {
      const company = await visibleCompany(ctx, args.company_id, true);
      const updated = await updateCompany(ctx.deps, company, {
        name: args.name,
        traits: args.traits,
      });
      return { value: companyView(updated) };
    },
  }),
];
