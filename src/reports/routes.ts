// GET /api/reports/summary (JSON), /api/reports/summary.csv and /api/reports/overview: the figures of
// the Reports page, role inbox:view, always within the member's org (README "Reports").
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { buildReport, headlines, reportCsv } from "./report.ts";

const Uuid = t.String({ format: "uuid", maxLength: 36 });
const DateTime = t.String({ minLength: 10, maxLength: 40, description: "An ISO 8601 date or date-time." });
export const ReportQuery = t.Object({
  period: t.Optional(t.Union(["today", "7d", "30d", "90d", "custom"].map((p) => t.Literal(p)), { description: "A preset ending now (default 7d), or custom with since (and until)." })),
  since: t.Optional(DateTime),
  until: t.Optional(DateTime),
  agent: t.Optional(Uuid),
  channel: t.Optional(t.Union(["chat", "widget", "email", "api", "mcp"].map((c) => t.Literal(c)))),
  member: t.Optional(Uuid),
});

const Nullable = (s: ReturnType<typeof t.Number>) => t.Union([s, t.Null()]);
const Percentiles = t.Object({ count: t.Integer(), median_ms: Nullable(t.Number()), p90_ms: Nullable(t.Number()) });
const Csat = t.Object({ count: t.Integer(), average: Nullable(t.Number()), satisfied_rate: Nullable(t.Number()) });
const ReportSchema = t.Object({
  period: t.Object({ preset: t.String(), since: t.String(), until: t.String() }),
  filters: t.Object({ agent: t.Union([t.String(), t.Null()]), channel: t.Union([t.String(), t.Null()]), member: t.Union([t.String(), t.Null()]) }),
  conversations: t.Integer(),
  ai_resolved_confirmed: t.Integer(),
  ai_resolved_assumed: t.Integer(),
  ai_resolution_rate: t.Object({ confirmed: Nullable(t.Number()), assumed: Nullable(t.Number()), total: Nullable(t.Number()) }),
  handed_off: t.Integer(),
  handoff_rate: Nullable(t.Number()),
  handoff_reasons: t.Object({ live_help: t.Integer(), routing_rule: t.Integer(), low_confidence: t.Integer(), frustration: t.Integer() }),
  tickets: t.Integer(),
  first_response: Percentiles,
  resolution: Percentiles,
  csat: t.Object({ ai: Csat, person: Csat }),
  by_hour: t.Array(t.Integer(), { minItems: 24, maxItems: 24 }),
  knowledge_gaps: t.Null(),
});
const Headline = t.Object({ name: t.String(), current: Nullable(t.Number()), previous: Nullable(t.Number()) });

export function reportRoutes(deps: Deps) {
  return new Elysia({ name: "reports" })
    .get(
      "/api/reports/summary",
      async ({ query, request }) => {
        const { orgId } = await requireMember(deps, request, "inbox:view");
        return buildReport(deps, orgId, query);
      },
      { query: ReportQuery, response: ReportSchema, detail: { tags: ["Reports"], summary: "Conversations, AI resolution (confirmed and assumed), hand-offs and their reasons, response and resolution times, CSAT and volume by hour over a period" } },
    )
    .get(
      "/api/reports/summary.csv",
      async ({ query, request }) => {
        const { orgId } = await requireMember(deps, request, "inbox:view");
        const csv = reportCsv(await buildReport(deps, orgId, query));
        return new Response(csv, { headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": 'attachment; filename="report.csv"' } });
      },
      { query: ReportQuery, detail: { tags: ["Reports"], summary: "The same figures as /api/reports/summary as CSV: one metric,value row each" } },
    )
    .get(
      "/api/reports/overview",
      async ({ request }) => {
        const { orgId } = await requireMember(deps, request, "inbox:view");
        return { headlines: await headlines(deps, orgId) };
      },
      { response: t.Object({ headlines: t.Array(Headline) }), detail: { tags: ["Reports"], summary: "The four headline figures of the last 7 days beside the 7 days before" } },
    );
}
