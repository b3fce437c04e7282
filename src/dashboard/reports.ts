// Dashboard: Reports (role inbox:view) — the figures of GET /api/reports/summary over a period
// and filters chosen in a GET form, read through src/reports/ as the API does; the headline figures
// of the last 7 days beside the 7 before; charts as SVG with their numbers in tables.
import { Elysia, t } from "elysia";
import { listAgents } from "../agents/service.ts";
import { AppError } from "../errors.ts";
import { getBusinessHours } from "../orgs/business-hours.ts";
import { buildReport, headlines, type Report } from "../reports/report.ts";
import { type DashboardDeps, shellPage, withMember } from "./kit/index.ts";
import { canonicalZone, ZONE_MAX } from "../reports/zone.ts";
import { ReportsPage } from "./views/reports.ts";

/** The zones the time-zone field suggests (any IANA name is accepted). */
const ZONES = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")];

async function reportPage(deps: DashboardDeps, request: Request, query: Record<string, string | undefined>) {
  return withMember(deps, request, "inbox:view", async (ctx) => {
    const input = {
      period: query.period || undefined,
      since: query.since || undefined,
      until: query.until || undefined,
      agent: query.agent || undefined,
      channel: query.channel || undefined,
    };
    const businessHours = await getBusinessHours(deps, ctx.orgId);
    // The hours in the viewer's zone: the one asked for, else the org's business-hours zone, else UTC.
    const tz = query.tz || undefined;
    const zone = tz ?? (businessHours ? canonicalZone(businessHours.time_zone) : null) ?? "UTC";
    let report: Report | null = null;
    let problem: string | null = null;
    try {
      report = await buildReport(deps, ctx.orgId, { ...input, tz: zone }, { businessHours, gaps: ctx.can("knowledge:manage") });
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 400) throw error;
      problem = error.message;
    }
    const [top, agents] = await Promise.all([headlines(deps, ctx.orgId), listAgents(deps, ctx.orgId)]);
    const qs = new URLSearchParams(Object.entries({ ...input, tz: zone }).filter((e): e is [string, string] => e[1] !== undefined)).toString();
    const body = ReportsPage({ headlines: top, input, zone, zones: ZONES, zoneMax: ZONE_MAX, agents, csvQuery: qs, report, problem });
    return shellPage(ctx, { title: "Reports", active: "reports", body });
  });
}

export function reportPages(deps: DashboardDeps) {
  const q = t.Object({
    period: t.Optional(t.String({ maxLength: 10 })),
    since: t.Optional(t.String({ maxLength: 40 })),
    until: t.Optional(t.String({ maxLength: 40 })),
    agent: t.Optional(t.String({ maxLength: 36 })),
    channel: t.Optional(t.String({ maxLength: 10 })),
    tz: t.Optional(t.String({ maxLength: ZONE_MAX })),
  });
  return new Elysia({ name: "dashboard-reports" }).get("/dashboard/reports", ({ request, query }) => reportPage(deps, request, query), { query: q });
}
