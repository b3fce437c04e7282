// GET /api/reports/summary (JSON), /api/reports/summary.csv and /api/reports/overview: the figures of
// the Reports page, role inbox:view, always within the member's org (README "Reports").
import { Elysia, type Static, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import { hasRole } from "../auth/roles.ts";
import type { Deps } from "../deps.ts";
import { mediaResponse } from "../http/media-response.ts";
import type { BusinessHours } from "../kit/business-hours.ts";
import { buildReport, headlines, reportCsv } from "./report.ts";
import { ZONE_MAX } from "./zone.ts";

const Uuid = t.String({ format: "uuid", maxLength: 36 });
const DateTime = t.String({ minLength: 10, maxLength: 40, description: "An ISO 8601 date or date-time." });
export const ReportQuery = t.Object({
  period: t.Optional(
    t.Union(
      ["today", "7d", "30d", "90d", "custom"].map((p) => t.Literal(p)),
      { description: "A preset ending now (default 7d), or custom with since (and until)." },
    ),
  ),
  since: t.Optional(DateTime),
  until: t.Optional(DateTime),
  agent: t.Optional(Uuid),
  channel: t.Optional(t.Union(["chat", "widget", "email", "api", "mcp"].map((c) => t.Literal(c)))),
  member: t.Optional(Uuid),
  tz: t.Optional(
    t.String({
      minLength: 1,
      maxLength: ZONE_MAX,
      description: "The IANA time zone by_hour is counted in, e.g. Europe/Paris (default UTC); an offset such as +05:30 is refused.",
    }),
  ),
});

const Nullable = (s: ReturnType<typeof t.Number>) => t.Union([s, t.Null()]);
const Percentiles = t.Object({ count: t.Integer(), median_ms: Nullable(t.Number()), p90_ms: Nullable(t.Number()) });
const Csat = t.Object({ count: t.Integer(), average: Nullable(t.Number()), satisfied_rate: Nullable(t.Number()) });
const Gap = t.Object({
  terms: t.Array(t.String()),
  count: t.Integer(),
  questions: t.Array(t.String()),
  last_asked_at: t.String(),
  write_article_url: t.String(),
});
const ReportSchema = t.Object({
  period: t.Object({ preset: t.String(), since: t.String(), until: t.String() }),
  filters: t.Object({ agent: t.Union([t.String(), t.Null()]), channel: t.Union([t.String(), t.Null()]), member: t.Union([t.String(), t.Null()]) }),
  time_zone: t.String({ description: "The IANA time zone by_hour is counted in (the tz parameter; UTC by default)." }),
  conversations: t.Integer(),
  ai_resolved_confirmed: t.Integer(),
  ai_resolved_assumed: t.Integer(),
  ai_resolution_rate: t.Object({ confirmed: Nullable(t.Number()), assumed: Nullable(t.Number()), total: Nullable(t.Number()) }),
  handed_off: t.Integer(),
  handoff_rate: Nullable(t.Number()),
  handoff_reasons: t.Object({ live_help: t.Integer(), routing_rule: t.Integer(), low_confidence: t.Integer(), frustration: t.Integer() }),
  tickets: t.Integer(),
  first_response: Percentiles,
  first_response_business_hours: t.Union([Percentiles, t.Null()], {
    description: "First responses counted in the org's business hours; null when none are set.",
  }),
  resolution: Percentiles,
  csat: t.Object({ ai: Csat, person: Csat }),
  by_hour: t.Array(t.Integer(), { minItems: 24, maxItems: 24, description: "Conversations by hour of the day, 00 to 23, in time_zone." }),
  knowledge_gaps: t.Union([t.Array(Gap), t.Null()], { description: "The period's top knowledge gaps; null unless the member also has knowledge:manage." }),
  help_centre: t.Object(
    {
      article_views: t.Integer({ description: "Views of public articles, all time." }),
      helpful_votes: t.Integer({ description: '"Was this article helpful?" answered Yes, all time.' }),
      not_helpful_votes: t.Integer({ description: "Answered No, all time." }),
      searches_without_result: t.Integer({ description: "Help centre searches (pages and widget) that found no article in the period." }),
      top_searches_without_result: t.Array(t.Object({ query: t.String(), count: t.Integer(), last_searched_at: t.String() }), {
        description: "The period's most frequent searches without a result, case folded.",
      }),
    },
    { description: "The public help centre." },
  ),
  by_language: t.Array(
    t.Object({
      language: t.String({ description: "ISO 639-1, or unknown" }),
      conversations: t.Integer(),
      ai_resolved_confirmed: t.Integer(),
      ai_resolved_assumed: t.Integer(),
      handed_off: t.Integer(),
      tickets: t.Integer(),
    }),
    {
      description:
        "The period's conversations (with the same AI-resolution and hand-off judgements) by the customer's language, and its tickets by theirs; unknown when not known; most conversations first.",
    },
  ),
});
const Headline = t.Object({ name: t.String(), current: Nullable(t.Number()), previous: Nullable(t.Number()) });

/** What the org's rooms above this floor tell a report (injected by src/app.ts). */
export interface ReportLookups {
  /** The org's business hours (src/orgs/business-hours.ts). */
  businessHours(orgId: string): Promise<BusinessHours | null>;
}

async function report(
  deps: Pick<Deps, "config" | "db" | "knowledge" | "now" | "statements">,
  lookups: ReportLookups,
  request: Request,
  query: Static<typeof ReportQuery>,
) {
  const { orgId, roles } = await requireMember(deps, request, "inbox:view");
  return buildReport(deps, orgId, query, { businessHours: await lookups.businessHours(orgId), gaps: hasRole(roles, "knowledge:manage") });
}

export function reportRoutes(deps: Pick<Deps, "config" | "db" | "knowledge" | "now" | "statements">, lookups: ReportLookups) {
  return new Elysia({ name: "reports" })
    .get("/api/reports/summary", ({ query, request }) => report(deps, lookups, request, query), {
      query: ReportQuery,
      response: ReportSchema,
      detail: {
        tags: ["Reports"],
        summary:
          "Conversations, AI resolution (confirmed and assumed), hand-offs and their reasons, response times (calendar and business hours) and resolution times, CSAT, volume by hour, the top knowledge gaps and a breakdown by language over a period",
      },
    })
    .get(
      "/api/reports/summary.csv",
      async ({ query, request }) => {
        const csv = reportCsv(await report(deps, lookups, request, query));
        return new Response(csv, { headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": 'attachment; filename="report.csv"' } });
      },
      {
        query: ReportQuery,
        detail: {
          tags: ["Reports"],
          summary: "The same figures as /api/reports/summary as CSV: one metric,value row each",
          responses: mediaResponse(
            'CSV (RFC 4180), UTF-8, a header row `metric,value` and one row per figure; Content-Disposition: attachment; filename="report.csv"',
            ["text/csv"],
          ),
        },
      },
    )
    .get(
      "/api/reports/overview",
      async ({ request }) => {
        const { orgId } = await requireMember(deps, request, "inbox:view");
        return { headlines: await headlines(deps, orgId) };
      },
      {
        response: t.Object({ headlines: t.Array(Headline) }),
        detail: { tags: ["Reports"], summary: "The four headline figures of the last 7 days beside the 7 days before" },
      },
    );
}
