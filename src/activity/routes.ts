// GET /api/activity: the org's activity log for admins (org:manage), newest first.
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { ACTIVITY_PAGE, listActivity } from "./log.ts";
import { ActivityPage } from "./schemas.ts";

export function activityRoutes(deps: Pick<Deps, "config" | "db" | "now">) {
  return new Elysia({ name: "activity" }).get(
    "/api/activity",
    async ({ query, request }) => {
      const { orgId } = await requireMember(deps, request, "org:manage");
      return listActivity(deps, orgId, {
        cursor: query.cursor,
        limit: query.limit,
        action: query.action,
        objectType: query.object_type,
        objectId: query.object_id,
      });
    },
    {
      query: t.Object({
        cursor: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
        limit: t.Optional(t.Numeric({ minimum: 1, maximum: ACTIVITY_PAGE.max, multipleOf: 1 })),
        action: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
        object_type: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
        object_id: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
      }),
      response: { 200: ActivityPage },
      detail: { summary: "The org's activity log, newest first; filter by action or object (org:manage)", tags: ["Activity"], security: [{ dashboard: [] }] },
    },
  );
}
