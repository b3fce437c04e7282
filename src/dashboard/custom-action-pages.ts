// The custom actions list with the create form, and one action's edit form: their data loaded and
// handed to the views (views/custom-action-list.ts, views/custom-action-edit.ts).
import { CUSTOM_ACTION_LIMITS, listCustomActions, METHODS, readCustomAction } from "../integrations/custom-actions.ts";
import { type DashboardContext, type FormValues, pageNumber, pageOf, type Refused, shellPage } from "./kit/index.ts";
import { DESCRIPTION_MAX, URL_MAX } from "./custom-action-form.ts";
import { CustomActionEdit } from "./views/custom-action-edit.ts";
import { CustomActionList } from "./views/custom-action-list.ts";

export type View = Awaited<ReturnType<typeof readCustomAction>>;

export async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>, form?: Refused): Promise<Response> {
  const actions = await listCustomActions(ctx.deps, ctx.orgId);
  const page = pageOf(actions, pageNumber(query.page));
  const body = CustomActionList({
    actions: page.items,
    none: actions.length === 0,
    query,
    page: page.page,
    hasMore: page.hasMore,
    manage: ctx.can("integrations:manage"),
    values: form?.values ?? { method: "POST", destructive: "on" },
    errors: form?.errors ?? {},
    methods: METHODS,
  });
  return shellPage(ctx, { title: "Custom actions", active: "custom-actions", body, status: form?.status });
}

function valuesOf(action: View): FormValues {
  return {
    method: action.method,
    url: action.url,
    description: action.description,
    input_schema: JSON.stringify(action.input_schema, null, 2),
    destructive: action.destructive ? "on" : "",
  };
}

export async function editPage(ctx: DashboardContext, action: View, form?: Refused & { removed: string[] }): Promise<Response> {
  const body = CustomActionEdit({
    action,
    manage: ctx.can("integrations:manage"),
    values: form?.values ?? valuesOf(action),
    errors: form?.errors ?? {},
    removed: new Set(form?.removed ?? []),
    methods: METHODS,
    limits: { headers: CUSTOM_ACTION_LIMITS.headers, url: URL_MAX, description: DESCRIPTION_MAX },
  });
  return shellPage(ctx, { title: `Edit ${action.action_id}`, active: "custom-actions", body, status: form?.status });
}
