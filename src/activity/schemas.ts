// What GET /api/activity answers, as a TypeBox schema (src/activity/routes.ts): Elysia checks the
// answer against it, and the OpenAPI document shows it.
import { t } from "elysia";

export const ActivityPage = t.Object({
  items: t.Array(
    t.Object({
      id: t.String(),
      action: t.String({ description: 'e.g. connector.created, feature_flag.changed (README "Activity log").' }),
      object_type: t.String(),
      object_id: t.String(),
      actor: t.Object({
        kind: t.Union([t.Literal("member"), t.Literal("token"), t.Literal("customer"), t.Literal("system")]),
        id: t.String(),
        member: t.Union([t.Object({ id: t.String(), email: t.Union([t.String(), t.Null()]), name: t.Union([t.String(), t.Null()]) }), t.Null()]),
        client_id: t.Union([t.String(), t.Null()]),
      }),
      summary: t.Record(t.String(), t.Unknown(), { description: "What changed (before and after, names; never secrets)." }),
      created_at: t.String({ format: "date-time" }),
    }),
  ),
  next_cursor: t.Union([t.String(), t.Null()], { description: "Pass as `cursor` for the next page; null on the last." }),
});
