// The tool registry's state: which actions an agent has switched on, the custom HTTP actions an
// org defines, and the record of every execution.
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { agents, orgs } from "./core.ts";

/** An agent's switch for one action (by action id). Absent means the action's default. */
export const agentActionToggles = pgTable(
  "agent_action_toggles",
  {
    agentId: uuid("agent_id")
      .notNull()
      .references(() => agents.id, { onDelete: "cascade" }),
    actionId: text("action_id").notNull(),
    enabled: boolean("enabled").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.actionId] })],
);

/** Custom HTTP actions (`custom.<slug>`): an org-defined HTTPS endpoint called through the outbound guard. */
export const customActions = pgTable(
  "custom_actions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    description: text("description").notNull(),
    method: text("method").notNull(),
    url: text("url").notNull(),
    /** Request headers as JSON, encrypted (they usually carry credentials). */
    headers: text("headers").notNull(),
    inputSchema: jsonb("input_schema").$type<Record<string, unknown>>().notNull(),
    destructive: boolean("destructive").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("custom_actions_org_slug_idx").on(t.orgId, t.slug).where(sql`${t.deletedAt} is null`)],
);

export type ExecutionOutcome = "ok" | "tool_error" | "error" | "denied";

/**
 * Every tool call (audit). No foreign keys to where the tool came from: the record must outlive
 * a deleted action or connector. Never holds arguments' secrets or credentials.
 */
export const actionExecutions = pgTable(
  "action_executions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    /** `mcp` (tool server), `chat` (agent pipeline), `campaign` or `dashboard` (src/tools/runtime.ts Channel). */
    channel: text("channel").notNull(),
    /** Who called (src/kit/actor.ts): `token`, `member`, `customer` or `system`. */
    actorKind: text("actor_kind"),
    /** The token's id, the member's, the customer's (or their chat session's) or the system's name. */
    actorId: text("actor_id"),
    clientId: text("client_id"),
    memberId: uuid("member_id"),
    agentId: uuid("agent_id"),
    tool: text("tool").notNull(),
    sourceKind: text("source_kind").notNull(),
    sourceId: text("source_id"),
    boundEndUserId: uuid("bound_end_user_id"),
    outcome: text("outcome").$type<ExecutionOutcome>().notNull(),
    durationMs: integer("duration_ms").notNull(),
    error: text("error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("action_executions_org_created_idx").on(t.orgId, t.createdAt)],
);
