// The admin activity log (src/activity): who changed what in an org, and when.
// Written only by src/activity/log.ts; rows older than ACTIVITY_RETENTION_DAYS are deleted by housekeeping.
import { index, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";

export type ActivityActorKind = "member" | "token" | "customer" | "system";

export const activityLog = pgTable(
  "activity_log",
  {
    /** A UUIDv7 from src/activity/log.ts: time-ordered, so rows of one millisecond keep their order; no sequence to leak a count. */
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    actorKind: text("actor_kind").$type<ActivityActorKind>().notNull(),
    /** The member, the OAuth token, the widget session or the system job that acted. */
    actorId: text("actor_id").notNull(),
    /** The member behind a member or token actor (a plain uuid: the row outlives the member). */
    memberId: uuid("member_id"),
    /** The OAuth client of a token actor. */
    clientId: text("client_id"),
    /** `<object>.<verb>`, e.g. `connector.created`. */
    action: text("action").notNull(),
    objectType: text("object_type").notNull(),
    objectId: text("object_id").notNull(),
    /** What changed (before/after where it matters). Never secrets: credentials are named, not copied. */
    summary: jsonb("summary").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("activity_log_org_created_id_idx").on(t.orgId, t.createdAt, t.id), index("activity_log_created_idx").on(t.createdAt)],
);
