// Dashboard: Reports (role inbox:view) — the figures of GET /api/reports/summary over a period
// and filters chosen in a GET form, read through src/reports/ as the API does; the headline figures
// of the last 7 days beside the 7 before; charts as SVG with their numbers in tables.
import { Elysia, t } from "elysia";
import { listAgents } from "../agents/service.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { type Html, html } from "../html/html.ts";
import type { GapGroup } from "../knowledge/gaps.ts";
import { getBusinessHours } from "../orgs/business-hours.ts";
import { buildReport, type Headline, headlines, type Report } from "../reports/report.ts";
import { field, listTable, select, shellPage, withMember } from "./kit/index.ts";
import { canonicalZone, ZONE_MAX } from "../reports/zone.ts";
import { barChart, busiest, chartTable, columnChart, foldedNumbers } from "./report-charts.ts";
import { languageLabel } from "./language-label.ts";

const pct = (v: number | null) => (v === null ? "—" : `${(v * 100).toFixed(1)}%`);
function duration(ms: number | null): string {
  if (ms === null) return "—";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86400) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}
/** The zones the time-zone field suggests (any IANA name is accepted). */
const ZONES = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")];
const avg = (v: number | null) => (v === null ? "—" : v.toFixed(2));
const REASONS: [keyof Report["handoff_reasons"], string][] = [
  ["live_help", "Asked for a person"],
  ["routing_rule", "Routing rule"],
  ["low_confidence", "Low confidence"],
  ["frustration", "Frustration"],
];
const HEADLINE_LABELS: Record<Headline["name"], [string, (v: number | null) => string]> = {
  conversations: ["Conversations", (v) => (v === null ? "—" : String(v))],
  ai_resolution_rate: ["AI resolution rate", pct],
  first_response_median_ms: ["Median first response", duration],
  csat_satisfied_rate: ["CSAT (4 or 5)", pct],
};

function change(h: Headline): string {
  if (h.current === null || h.previous === null) return "no figure to compare";
  const d = h.current - h.previous;
  const shown =
    h.name === "conversations"
      ? String(Math.abs(d))
      : h.name === "first_response_median_ms"
        ? duration(Math.abs(d))
        : `${(Math.abs(d) * 100).toFixed(1)} points`;
  return d === 0 ? "no change" : `${d > 0 ? "up" : "down"} ${shown} on the 7 days before`;
}

/**
 * Why a young rate is low (docs/decisions.md "Reports: what each figure counts"): an answer is an
 * assumed resolution only once 24 quiet hours have passed, so the newest conversations count as
 * unresolved until then; said next to the figure wherever it is shown.
 */
const AI_RATE_NOTE = "An answer counts as an assumed resolution once 24 hours pass without a reply, so the most recent day’s rate is low until then.";

/** The four headline figures of the last 7 days (the overview shows them too). */
export function headlineCards(list: Headline[]): Html {
  return html`<dl class="cards headlines">${list.map((h) => {
    const [label, format] = HEADLINE_LABELS[h.name];
    const note = h.name === "ai_resolution_rate";
    return html`<div class="panel"><dt>${label}</dt><dd${note ? html` aria-describedby="ai-rate-note"` : ""}><strong>${format(h.current)}</strong> <span class="muted">${change(h)}</span>${note ? html`<p class="hint" id="ai-rate-note">${AI_RATE_NOTE}</p>` : ""}</dd></div>`;
  })}</dl>`;
}

function figuresTable(caption: string, rows: [string, string][]): Html {
  return listTable({ caption, columns: ["Figure", "Value"], rows, row: ([k, v]) => html`<tr><th scope="row">${k}</th><td>${v}</td></tr>`, empty: null });
}

function gapsSection(gaps: GapGroup[]): Html {
  return html`<section aria-labelledby="gaps-h"><h2 id="gaps-h">Top knowledge gaps</h2>
${listTable({
  caption: "Questions the AI could not answer with confidence in this period",
  columns: ["Question", "Times asked", "Last asked", { label: "Action", hidden: true }],
  rows: gaps,
  row: (g) =>
    html`<tr><td>${g.questions[0]}</td><td>${g.count}</td><td><time datetime="${g.last_asked_at}">${g.last_asked_at.slice(0, 16).replace("T", " ")} UTC</time></td><td><a href="${g.write_article_url}">Write an article<span class="sr-only"> answering “${g.questions[0]}”</span></a></td></tr>`,
  empty: "No question went without a confident answer in this period.",
})}</section>`;
}

/** The period by the customer's language (src/reports/languages.ts); "Unknown" when not known. */
function languagesSection(rows: Report["by_language"]): Html {
  return html`<section aria-labelledby="languages-h"><h2 id="languages-h">By language</h2>
${listTable({
  caption: "Conversations and tickets by the customer's language",
  columns: ["Language", "Conversations", "Resolved by the AI (confirmed + assumed)", "Handed off", "Tickets"],
  rows,
  row: (l) =>
    html`<tr><th scope="row">${languageLabel(l.language)}</th><td>${l.conversations}</td><td>${l.ai_resolved_confirmed + l.ai_resolved_assumed}</td><td>${l.handed_off}</td><td>${l.tickets}</td></tr>`,
  empty: "No conversations or tickets in this period.",
})}</section>`;
}

async function reportPage(deps: Deps, request: Request, query: Record<string, string | undefined>) {
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
    const hours = (report?.by_hour ?? []).map((value, h) => ({ label: `${String(h).padStart(2, "0")}:00`, value }));
    const zoneName = report?.time_zone === "UTC" ? "UTC" : `${report?.time_zone ?? zone} time`;
    const reasons = REASONS.map(([key, label]) => ({ label, value: report?.handoff_reasons[key] ?? 0 }));
    const body = html`<h1>Reports</h1>
<section aria-labelledby="last7-h"><h2 id="last7-h">Last 7 days</h2>${headlineCards(top)}</section>
<form method="get" action="/dashboard/reports" class="toolbar" aria-label="Choose the period">
${select({
  name: "period",
  label: "Period",
  value: input.period ?? "7d",
  options: [
    { value: "today", label: "Today" },
    { value: "7d", label: "Last 7 days" },
    { value: "30d", label: "Last 30 days" },
    { value: "90d", label: "Last 90 days" },
    { value: "custom", label: "Custom" },
  ],
})}
${field({ name: "since", label: "From (custom)", type: "date", value: input.since?.slice(0, 10) })}
${field({ name: "until", label: "To (custom, exclusive)", type: "date", value: input.until?.slice(0, 10) })}
${select({ name: "agent", label: "Agent", value: input.agent ?? "", options: [{ value: "", label: "All agents" }, ...agents.map((a) => ({ value: a.id, label: a.name }))] })}
${select({ name: "channel", label: "Channel", value: input.channel ?? "", options: [{ value: "", label: "All channels" }, ...["chat", "widget", "email", "api", "mcp"].map((c) => ({ value: c, label: c }))] })}
${field({ name: "tz", label: "Time zone of the hours", value: zone, maxLength: ZONE_MAX, attrs: { list: "zones", autocomplete: "off" } })}
<datalist id="zones">${ZONES.map((z) => html`<option value="${z}"></option>`)}</datalist>
<button type="submit" class="secondary">Show</button> <a href="/api/reports/summary.csv${qs ? `?${qs}` : ""}">Download CSV</a>
</form>
${problem ? html`<p class="error" role="alert">${problem}</p>` : ""}
${
  report
    ? html`<section aria-labelledby="ai-h"><h2 id="ai-h">Conversations and the AI</h2>
${figuresTable("Conversations and AI resolution", [
  ["Conversations", String(report.conversations)],
  ["Resolved by the AI, confirmed (the customer said it helped)", `${report.ai_resolved_confirmed} (${pct(report.ai_resolution_rate.confirmed)})`],
  [
    "Resolved by the AI, assumed (no hand-off, no reply within 24 h, no reopen within 7 days)",
    `${report.ai_resolved_assumed} (${pct(report.ai_resolution_rate.assumed)})`,
  ],
  ["Handed to people", `${report.handed_off} (${pct(report.handoff_rate)})`],
])}
<p class="muted">An answer counts as an assumed resolution once 24 hours pass without a reply, so the rate of the last 24 hours is low until then.</p></section>
<section aria-labelledby="reasons-h"><h2 id="reasons-h">Hand-off reasons</h2>${barChart({ title: "Hand-offs by reason", bars: reasons })}${chartTable("Hand-offs by reason", ["Reason", "Tickets"], reasons)}</section>
<section aria-labelledby="times-h"><h2 id="times-h">Tickets</h2>
${figuresTable("Ticket times", [
  ["Tickets", String(report.tickets)],
  [`First response by a person, median (${report.first_response.count} answered)`, duration(report.first_response.median_ms)],
  ["First response by a person, 90th percentile", duration(report.first_response.p90_ms)],
  [`Time to resolution, median (${report.resolution.count} resolved)`, duration(report.resolution.median_ms)],
  ["Time to resolution, 90th percentile", duration(report.resolution.p90_ms)],
  ...(report.first_response_business_hours
    ? ([
        ["First response by a person in business hours, median", duration(report.first_response_business_hours.median_ms)],
        ["First response by a person in business hours, 90th percentile", duration(report.first_response_business_hours.p90_ms)],
      ] as [string, string][])
    : []),
])}
<p class="muted">${
        report.first_response_business_hours
          ? "Times are calendar time; first responses are also counted in business hours, when people are there (Settings, Business hours)."
          : html`Times are calendar time. With <a href="/dashboard/settings/hours">business hours</a> set, first responses are also counted in them.`
      }</p></section>
<section aria-labelledby="csat-h"><h2 id="csat-h">Customer satisfaction</h2>
${figuresTable("CSAT", [
  [
    "Ratings of tickets people answered",
    `${report.csat.person.count} · average ${avg(report.csat.person.average)} · ${pct(report.csat.person.satisfied_rate)} rated 4 or 5`,
  ],
  [
    "Ratings of tickets only the AI answered",
    `${report.csat.ai.count} · average ${avg(report.csat.ai.average)} · ${pct(report.csat.ai.satisfied_rate)} rated 4 or 5`,
  ],
])}</section>
${report.knowledge_gaps ? gapsSection(report.knowledge_gaps) : ""}
${languagesSection(report.by_language)}
<section aria-labelledby="hours-h"><h2 id="hours-h">Conversations by hour of day (${zoneName})</h2>
${columnChart({ title: `Conversations by hour of day, ${zoneName}`, bars: hours, tick: 3, describedBy: "hours-busiest" })}
<p class="muted" id="hours-busiest">${busiest(hours, ["conversation", "conversations"])}</p>
${foldedNumbers("The numbers by hour", `Conversations by hour of day, ${zoneName}`, ["Hour", "Conversations"], hours)}</section>`
    : ""
}`;
    return shellPage(ctx, { title: "Reports", active: "reports", body });
  });
}

export function reportPages(deps: Deps) {
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
