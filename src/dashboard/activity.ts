// Dashboard: the activity log (role org:manage, as GET /api/activity) — who changed what in the org,
// newest first, read through src/activity/ as the API does: the API's filters (action, object type,
// object id) in a GET form, pages by the API's cursor (the kit's cursor pager keeps the filters),
// who acted in words, what changed as a short list. Linked from the settings sections.
import { Elysia, t } from "elysia";
import { listActivity } from "../activity/log.ts";
import { AppError } from "../errors.ts";
import { type DashboardDeps, PAGE_SIZE, shellPage, withMember } from "./kit/index.ts";
import { settingsNav } from "./views/settings-nav.ts";
import { ActivityLog } from "./views/activity-log.ts";

async function activityPage(deps: DashboardDeps, request: Request, query: Record<string, string | undefined>) {
  return withMember(deps, request, "org:manage", async (ctx) => {
    const filters = { action: query.action || undefined, object_type: query.object_type || undefined, object_id: query.object_id || undefined };
    let page: Awaited<ReturnType<typeof listActivity>> | null = null;
    let problem: string | null = null;
    try {
      page = await listActivity(deps, ctx.orgId, {
        cursor: query.cursor || undefined,
        limit: PAGE_SIZE,
        action: filters.action,
        objectType: filters.object_type,
        objectId: filters.object_id,
      });
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 400) throw error;
      problem = error.message;
    }
    const nav = settingsNav(ctx, "activity");
    const retentionDays = deps.config.activityRetentionDays;
    const body = ActivityLog({ orgName: ctx.orgName, nav, retentionDays, filters, cursor: query.cursor || undefined, page, problem });
    return shellPage(ctx, { title: "Activity log", active: "settings", body, status: problem ? 400 : 200 });
  });
}

export function activityPages(deps: DashboardDeps) {
  // The API's bounds (src/activity/routes.ts).
  const q = t.Object({
    cursor: t.Optional(t.String({ maxLength: 200 })),
    action: t.Optional(t.String({ maxLength: 100 })),
    object_type: t.Optional(t.String({ maxLength: 100 })),
    object_id: t.Optional(t.String({ maxLength: 200 })),
  });
  return new Elysia({ name: "dashboard-activity" }).get("/dashboard/activity", ({ request, query }) => activityPage(deps, request, query), { query: q });
}
