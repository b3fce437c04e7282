// Dashboard: custom HTTP actions (docs/interface.md 2.2). List, create (headers write-only,
// destructive by default), edit every field the API lets a PATCH change (the slug stays: it is the
// action's name), delete; through src/integrations/custom-actions.ts as
// /api/integrations/custom-actions, so a new URL passes the same outbound guard and every change is
// logged with its member. Header values are never shown or echoed: the edit form lists the names
// of the stored headers, adds or replaces some, removes ticked ones, and keeps the rest.
// Each action becomes `custom.<slug>`, switched on per agent in the agent's actions page.
import { Elysia, t } from "elysia";
import {
  CUSTOM_ACTION_LIMITS,
  type CustomActionPatch,
  createCustomAction,
  DEFAULT_SCHEMA,
  deleteCustomAction,
  readCustomAction,
  updateCustomAction,
} from "../integrations/custom-actions.ts";
import { memberActor } from "../kit/actor.ts";
import { isSlug } from "../kit/slugs.ts";
import {
  type DashboardContext,
  type DashboardDeps,
  type FieldErrors,
  formBody,
  formList,
  formValues,
  type FormValues,
  IdParams,
  redirect,
  submitForm,
  withMember,
} from "./kit/index.ts";
import { commonFields, errorsFromService } from "./custom-action-form.ts";
import { editPage, listPage, type View } from "./custom-action-pages.ts";

/** Header values are never echoed back into the page. */
const withoutHeaders = (values: FormValues): FormValues => ({ ...values, headers: "" });

function create(ctx: DashboardContext, values: FormValues): Promise<Response> {
  return submitForm({
    values: withoutHeaders(values),
    validate: () => {
      const slug = (values.slug ?? "").trim();
      const errors: FieldErrors = {};
      if (!isSlug(slug)) errors.slug = "Lower-case letters, digits and _, starting with a letter, at most 32.";
      const { description, url, method, headers, schema } = commonFields(values, errors);
      return { input: { slug, description, method: method!, url, headers, input_schema: schema, destructive: values.destructive === "on" }, errors };
    },
    call: (input) => createCustomAction(ctx.deps, ctx.orgId, input, memberActor(ctx.principal.member.id)),
    done: (created) => redirect(ctx.deps, "/dashboard/custom-actions", `Action ${created.action_id} created: switch it on for an agent in its actions.`),
    render: (refused) => listPage(ctx, {}, refused),
    refused: (error) => (error.status === 400 || error.status === 409 ? errorsFromService(error) : null),
  });
}

function save(ctx: DashboardContext, action: View, values: FormValues, removed: string[]): Promise<Response> {
  return submitForm({
    values: withoutHeaders(values),
    validate: () => {
      const errors: FieldErrors = {};
      const { description, url, method, headers, schema } = commonFields(values, errors);
      const patch: CustomActionPatch = {
        description,
        method: method!,
        // An unchanged URL is not sent: saving a description does not depend on today's DNS.
        ...(url !== action.url ? { url } : {}),
        input_schema: schema ?? DEFAULT_SCHEMA,
        destructive: values.destructive === "on",
        ...(Object.keys(headers).length > 0 || removed.length > 0 ? { header_changes: { set: headers, remove: removed } } : {}),
      };
      return { input: patch, errors };
    },
    call: (patch) => updateCustomAction(ctx.deps, ctx.orgId, action.id, patch, memberActor(ctx.principal.member.id)),
    done: (updated) => redirect(ctx.deps, `/dashboard/custom-actions/${updated.id}`, `Action ${updated.action_id} saved.`),
    render: (refused) => editPage(ctx, action, { ...refused, removed }),
    refused: (error) => (error.status === 400 ? errorsFromService(error) : null),
  });
}

const Query = t.Object({ page: t.Optional(t.String({ maxLength: 10 })) });
/** Up to the headers' limit of remove boxes, and a few more (the service says what is too many). */
const FormBody = formBody({ text: 100_000, item: 1000, items: CUSTOM_ACTION_LIMITS.headers + 5 });

export function customActionPages(deps: DashboardDeps) {
  const manage = "integrations:manage" as const;
  return new Elysia({ name: "dashboard-custom-actions" })
    .get("/dashboard/custom-actions", ({ request, query }) => withMember(deps, request, "integrations:view", (ctx) => listPage(ctx, query)), { query: Query })
    .post("/dashboard/custom-actions", ({ request, body }) => withMember(deps, request, manage, (ctx) => create(ctx, formValues(body))), { body: FormBody })
    .get(
      "/dashboard/custom-actions/:id",
      ({ request, params }) => withMember(deps, request, "integrations:view", async (ctx) => editPage(ctx, await readCustomAction(deps, ctx.orgId, params.id))),
      { params: IdParams },
    )
    .post(
      "/dashboard/custom-actions/:id",
      ({ request, params, body }) =>
        withMember(deps, request, manage, async (ctx) =>
          save(ctx, await readCustomAction(deps, ctx.orgId, params.id), formValues(body), formList(body, "remove_header")),
        ),
      { params: IdParams, body: FormBody },
    )
    .post(
      "/dashboard/custom-actions/:id/delete",
      ({ request, params }) =>
        withMember(deps, request, manage, async (ctx) => {
          await deleteCustomAction(deps, ctx.orgId, params.id, memberActor(ctx.principal.member.id));
          return redirect(deps, "/dashboard/custom-actions", "Custom action deleted.");
        }),
      { params: IdParams },
    );
}
