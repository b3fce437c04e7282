// Custom HTTP actions for the dashboard: /api/integrations/custom-actions (integrations roles).
// Each change is logged with the member who made it (src/integrations/custom-actions.ts).
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { SLUG } from "../kit/slugs.ts";
import type { JsonSchemaObject } from "../tools/types.ts";
import { createCustomAction, CUSTOM_ACTION_LIMITS, deleteCustomAction, listCustomActions, METHODS, updateCustomAction } from "./custom-actions.ts";
import { jsonResponse } from "../kit/json-response.ts";

const Method = t.Union(METHODS.map((m) => t.Literal(m)));
const Headers = t.Record(t.String({ maxLength: 64 }), t.String({ maxLength: CUSTOM_ACTION_LIMITS.headerValue }));
const Schema = t.Object({ type: t.Literal("object") }, { additionalProperties: true });
const Editable = {
  description: t.String({ minLength: 1, maxLength: 1000 }),
  method: Method,
  url: t.String({ minLength: 1, maxLength: 2048 }),
  headers: Headers,
  input_schema: Schema,
  destructive: t.Boolean(),
};

/** A custom action as the API answers it: header values are never returned, only their names. */
const CustomActionView = t.Object({
  id: t.String(),
  action_id: t.String({ description: "custom.<slug>: the name agents and MCP clients call it by." }),
  slug: t.String(),
  description: t.String(),
  method: t.String(),
  url: t.String(),
  header_names: t.Array(t.String()),
  input_schema: t.Record(t.String(), t.Unknown(), { description: "The JSON Schema of the action's input." }),
  destructive: t.Boolean(),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

export function integrationRoutes(deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "now" | "tools">) {
  return new Elysia({ name: "integrations" })
    .get(
      "/api/integrations/custom-actions",
      async ({ request }) => {
        const { orgId } = await requireMember(deps, request, "integrations:view");
        return { actions: await listCustomActions(deps, orgId) };
      },
      {
        response: { 200: t.Object({ actions: t.Array(CustomActionView) }) },
        detail: {
          summary: "The org's custom actions: HTTP calls the agent can make (integrations:view)",
          tags: ["Custom actions"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .post(
      "/api/integrations/custom-actions",
      async ({ body, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "integrations:manage");
        const created = await createCustomAction(
          deps,
          orgId,
          { ...body, input_schema: body.input_schema as JsonSchemaObject | undefined },
          memberActor(principal.member.id),
        );
        return jsonResponse(created, 201);
      },
      {
        body: t.Object(
          {
            slug: t.String({ pattern: SLUG.source }),
            description: Editable.description,
            method: Method,
            url: Editable.url,
            headers: t.Optional(Headers),
            input_schema: t.Optional(Schema),
            destructive: t.Optional(t.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: { 201: CustomActionView },
        detail: { summary: "Add a custom action (integrations:manage)", tags: ["Custom actions"], security: [{ dashboard: [] }] },
      },
    )
    .patch(
      "/api/integrations/custom-actions/:id",
      async ({ body, params, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "integrations:manage");
        return updateCustomAction(
          deps,
          orgId,
          params.id,
          { ...body, input_schema: body.input_schema as JsonSchemaObject | undefined },
          memberActor(principal.member.id),
        );
      },
      {
        body: t.Partial(t.Object(Editable), { additionalProperties: false, minProperties: 1 }),
        response: { 200: CustomActionView },
        detail: { summary: "Update a custom action (integrations:manage)", tags: ["Custom actions"], security: [{ dashboard: [] }] },
      },
    )
    .delete(
      "/api/integrations/custom-actions/:id",
      async ({ params, request }) => {
        const { orgId, principal } = await requireMember(deps, request, "integrations:manage");
        await deleteCustomAction(deps, orgId, params.id, memberActor(principal.member.id));
        return new Response(null, { status: 204 });
      },
      {
        response: { 204: t.Null({ description: "No content" }) },
        detail: { summary: "Delete a custom action (integrations:manage)", tags: ["Custom actions"], security: [{ dashboard: [] }] },
      },
    );
}
