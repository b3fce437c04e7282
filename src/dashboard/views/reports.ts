// The Reports page: the last 7 days' headline figures, the GET form choosing the period, agent,
// channel and the hours' time zone (with the CSV of the same choice), what was wrong with the
// choice, then the report's figures.
import { html } from "../../html/html.ts";
import type { Headline, Report } from "../../reports/report.ts";
import { field, select } from "../kit/fields.ts";
import { headlineCards } from "./report-headlines.ts";
import { ReportFigures } from "./report-figures.ts";

export interface ReportsProps {
  headlines: Headline[];
  /** The form's choice as asked. */
  input: { period?: string; since?: string; until?: string; agent?: string; channel?: string };
  /** The hours' zone: the one asked for, else the org's business-hours zone, else UTC. */
  zone: string;
  zones: readonly string[];
  zoneMax: number;
  agents: { id: string; name: string }[];
  /** The CSV's query string (the same choice). */
  csvQuery: string;
  report: Report | null;
  /** Why no report (a choice the service refused). */
  problem: string | null;
}

const PERIODS = [
  { value: "today", label: "Today" },
  { value: "7d", label: "Last 7 days" },
  { value: "30d", label: "Last 30 days" },
  { value: "90d", label: "Last 90 days" },
  { value: "custom", label: "Custom" },
];
const CHANNELS = ["chat", "widget", "email", "api", "mcp"];

function choice(p: ReportsProps) {
  const { input } = p;
  const agents = [{ value: "", label: "All agents" }, ...p.agents.map((a) => ({ value: a.id, label: a.name }))];
  const channels = [{ value: "", label: "All channels" }, ...CHANNELS.map((c) => ({ value: c, label: c }))];
  const zone = field({ name: "tz", label: "Time zone of the hours", value: p.zone, maxLength: p.zoneMax, attrs: { list: "zones", autocomplete: "off" } });
  return html`<form method="get" action="/dashboard/reports" class="toolbar" aria-label="Choose the period">
${select({ name: "period", label: "Period", value: input.period ?? "7d", options: PERIODS })}
${field({ name: "since", label: "From (custom)", type: "date", value: input.since?.slice(0, 10) })}
${field({ name: "until", label: "To (custom, exclusive)", type: "date", value: input.until?.slice(0, 10) })}
${select({ name: "agent", label: "Agent", value: input.agent ?? "", options: agents })}
${select({ name: "channel", label: "Channel", value: input.channel ?? "", options: channels })}
${zone}
<datalist id="zones">${p.zones.map((z) => html`<option value="${z}"></option>`)}</datalist>
<button type="submit" class="secondary">Show</button> <a href="/api/reports/summary.csv${p.csvQuery ? `?${p.csvQuery}` : ""}">Download CSV</a>
</form>`;
}

export function ReportsPage(p: ReportsProps) {
  return html`<h1>Reports</h1>
<section aria-labelledby="last7-h"><h2 id="last7-h">Last 7 days</h2>${headlineCards(p.headlines)}</section>
${choice(p)}
${p.problem ? html`<p class="error" role="alert">${p.problem}</p>` : ""}
${p.report ? ReportFigures(p.report, p.zone) : ""}`;
}
