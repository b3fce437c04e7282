// The figures of one report: conversations and the AI, hand-off reasons (a chart and its table),
// ticket times, customer satisfaction, the top knowledge gaps, by language, and by hour of day in
// the viewer's time zone (a chart, its busiest hours in words, its numbers folded under it).
import { type Html, html } from "../../html/html.ts";
import type { GapGroup } from "../../knowledge/gaps.ts";
import type { Report } from "../../reports/report.ts";
import { listTable } from "../kit/table.ts";
import { languageLabel } from "../kit/language-label.ts";
import { barChart, busiest, chartTable, columnChart, foldedNumbers } from "./report-charts.ts";
import { avg, duration, pct } from "./report-headlines.ts";

const REASONS: [keyof Report["handoff_reasons"], string][] = [
  ["live_help", "Asked for a person"],
  ["routing_rule", "Routing rule"],
  ["low_confidence", "Low confidence"],
  ["frustration", "Frustration"],
];

function figuresTable(caption: string, rows: [string, string][]): Html {
  return listTable({ caption, columns: ["Figure", "Value"], rows, row: ([k, v]) => html`<tr><th scope="row">${k}</th><td>${v}</td></tr>`, empty: null });
}

function gapsSection(gaps: GapGroup[]): Html {
  const row = (g: GapGroup) =>
    html`<tr><td>${g.questions[0]}</td><td>${g.count}</td>\
<td><time datetime="${g.last_asked_at}">${g.last_asked_at.slice(0, 16).replace("T", " ")} UTC</time></td>\
<td><a href="${g.write_article_url}">Write an article<span class="sr-only"> answering “${g.questions[0]}”</span></a></td></tr>`;
  return html`<section aria-labelledby="gaps-h"><h2 id="gaps-h">Top knowledge gaps</h2>
${listTable({
  caption: "Questions the AI could not answer with confidence in this period",
  columns: ["Question", "Times asked", "Last asked", { label: "Action", hidden: true }],
  rows: gaps,
  row,
  empty: "No question went without a confident answer in this period.",
})}</section>`;
}

/** The period by the customer's language (src/reports/languages.ts); "Unknown" when not known. */
function languagesSection(rows: Report["by_language"]): Html {
  const row = (l: Report["by_language"][number]) =>
    html`<tr><th scope="row">${languageLabel(l.language)}</th><td>${l.conversations}</td>\
<td>${l.ai_resolved_confirmed + l.ai_resolved_assumed}</td><td>${l.handed_off}</td><td>${l.tickets}</td></tr>`;
  return html`<section aria-labelledby="languages-h"><h2 id="languages-h">By language</h2>
${listTable({
  caption: "Conversations and tickets by the customer's language",
  columns: ["Language", "Conversations", "Resolved by the AI (confirmed + assumed)", "Handed off", "Tickets"],
  rows,
  row,
  empty: "No conversations or tickets in this period.",
})}</section>`;
}

function aiSection(report: Report): Html {
  return html`<section aria-labelledby="ai-h"><h2 id="ai-h">Conversations and the AI</h2>
${figuresTable("Conversations and AI resolution", [
  ["Conversations", String(report.conversations)],
  ["Resolved by the AI, confirmed (the customer said it helped)", `${report.ai_resolved_confirmed} (${pct(report.ai_resolution_rate.confirmed)})`],
  [
    "Resolved by the AI, assumed (no hand-off, no reply within 24 h, no reopen within 7 days)",
    `${report.ai_resolved_assumed} (${pct(report.ai_resolution_rate.assumed)})`,
  ],
  ["Handed to people", `${report.handed_off} (${pct(report.handoff_rate)})`],
])}
<p class="muted">An answer counts as an assumed resolution once 24 hours pass without a reply, \
so the rate of the last 24 hours is low until then.</p></section>`;
}

function reasonsSection(report: Report): Html {
  const reasons = REASONS.map(([key, label]) => ({ label, value: report.handoff_reasons[key] ?? 0 }));
  return html`<section aria-labelledby="reasons-h"><h2 id="reasons-h">Hand-off reasons</h2>\
${barChart({ title: "Hand-offs by reason", bars: reasons })}${chartTable("Hand-offs by reason", ["Reason", "Tickets"], reasons)}</section>`;
}

function ticketsSection(report: Report): Html {
  const inHours = report.first_response_business_hours;
  const rows: [string, string][] = [
    ["Tickets", String(report.tickets)],
    [`First response by a person, median (${report.first_response.count} answered)`, duration(report.first_response.median_ms)],
    ["First response by a person, 90th percentile", duration(report.first_response.p90_ms)],
    [`Time to resolution, median (${report.resolution.count} resolved)`, duration(report.resolution.median_ms)],
    ["Time to resolution, 90th percentile", duration(report.resolution.p90_ms)],
    ...(inHours
      ? ([
          ["First response by a person in business hours, median", duration(inHours.median_ms)],
          ["First response by a person in business hours, 90th percentile", duration(inHours.p90_ms)],
        ] as [string, string][])
      : []),
  ];
  const note = inHours
    ? "Times are calendar time; first responses are also counted in business hours, when people are there (Settings, Business hours)."
    : html`Times are calendar time. With <a href="/dashboard/settings/hours">business hours</a> set, first responses are also counted in them.`;
  return html`<section aria-labelledby="times-h"><h2 id="times-h">Tickets</h2>
${figuresTable("Ticket times", rows)}
<p class="muted">${note}</p></section>`;
}

function csatSection(report: Report): Html {
  const { person, ai } = report.csat;
  return html`<section aria-labelledby="csat-h"><h2 id="csat-h">Customer satisfaction</h2>
${figuresTable("CSAT", [
  ["Ratings of tickets people answered", `${person.count} · average ${avg(person.average)} · ${pct(person.satisfied_rate)} rated 4 or 5`],
  ["Ratings of tickets only the AI answered", `${ai.count} · average ${avg(ai.average)} · ${pct(ai.satisfied_rate)} rated 4 or 5`],
])}</section>`;
}

function hoursSection(report: Report, zone: string): Html {
  const hours = report.by_hour.map((value, h) => ({ label: `${String(h).padStart(2, "0")}:00`, value }));
  const zoneName = report.time_zone === "UTC" ? "UTC" : `${report.time_zone ?? zone} time`;
  const title = `Conversations by hour of day, ${zoneName}`;
  return html`<section aria-labelledby="hours-h"><h2 id="hours-h">Conversations by hour of day (${zoneName})</h2>
${columnChart({ title, bars: hours, tick: 3, describedBy: "hours-busiest" })}
<p class="muted" id="hours-busiest">${busiest(hours, ["conversation", "conversations"])}</p>
${foldedNumbers("The numbers by hour", title, ["Hour", "Conversations"], hours)}</section>`;
}

/** Every figure of `report`; `zone` names the hours' zone when the report does not. */
export function ReportFigures(report: Report, zone: string): Html {
  return html`${aiSection(report)}
${reasonsSection(report)}
${ticketsSection(report)}
${csatSection(report)}
${report.knowledge_gaps ? gapsSection(report.knowledge_gaps) : ""}
${languagesSection(report.by_language)}
${hoursSection(report, zone)}`;
}
