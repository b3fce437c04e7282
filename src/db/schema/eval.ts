// Stored answer-quality runs ("Test your agent", README "Measuring answers"): a team's question set
// run against one of its agents, its per-question results and totals, so a run can be compared
// with the one before it. Written only by src/agents/ (eval-runs.ts).
import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";

export const evalRuns = pgTable(
  "eval_runs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /**
     * When the row was written, by the database's clock to the microsecond: the order of an org's
     * runs (created_at is the service's clock, which a test may hold still). Not a sequence: ids
     * and orders here are never sequential numbers (test/db/migrations.test.ts).
     */
    recordedAt: timestamp("recorded_at", { withTimezone: true }).notNull().default(sql`clock_timestamp()`),
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    /** The agent asked; kept when the agent is deleted later (the run still says what it measured). */
    agentId: uuid("agent_id").notNull(),
    agentName: text("agent_name").notNull(),
    /** The member who started it, null when started otherwise. */
    memberId: uuid("member_id"),
    status: text("status").$type<"done" | "partial">().notNull(),
    error: text("error"),
    /** The question set as given: [{question, expected_doc?, expected_phrase?}]. */
    questions: jsonb("questions").$type<{ question: string; expected_doc?: string; expected_phrase?: string }[]>().notNull(),
    questionCount: integer("question_count").notNull(),
    /** Questions answered (fewer than questionCount when the run reached its bound). */
    doneCount: integer("done_count").notNull().default(0),
    /** Per question, in the set's order, once done. */
    results: jsonb("results").$type<unknown[]>(),
    totals: jsonb("totals").$type<Record<string, number | null>>(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [index("eval_runs_org_recorded_idx").on(t.orgId, t.recordedAt)],
);
