// A report: the period (a preset or a custom range), the filters, the figures and the rates made
// from them, and the same figures as CSV. The overview compares the last 7 days with the 7 before.
import { helpCentreTotals, type MissedSearch, missedSearches } from "../knowledge/help-signals.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import type { BusinessHours } from "../kit/business-hours.ts";
import { type CsvValue, csvDocument } from "../kit/csv.ts";
import { isUuid } from "../kit/ids.ts";
import { type GapGroup, knowledgeGaps } from "../knowledge/gaps.ts";
import { type Figures, figures, type ReportFilter } from "./figures.ts";
import { figuresByLanguage, type LanguageFigures } from "./languages.ts";
import { reportZone, zoneError } from "./zone.ts";

export const PRESETS = ["today", "7d", "30d", "90d", "custom"] as const;
export type Preset = (typeof PRESETS)[number];
const DAY = 24 * 3600 * 1000;
/** The longest custom range. */
export const MAX_RANGE_DAYS = 366;

export interface PeriodInput {
  period?: string;
  since?: string;
  until?: string;
}

function date(path: string, value: string): Date {
  const parsed = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(parsed.getTime()))
    throw AppError.badRequest(`${path.slice(1)} must be an ISO 8601 date.`, [{ path, message: "must be an ISO 8601 date or date-time" }]);
  return parsed;
}

/** The period's bounds, [since, until): a preset ends with now included; `today` starts at midnight UTC. */
export function periodOf(input: PeriodInput, now: Date): { preset: Preset; since: Date; until: Date } {
  const preset = (input.period ?? (input.since || input.until ? "custom" : "7d")) as Preset;
  if (!PRESETS.includes(preset))
    throw AppError.badRequest("period must be one of today, 7d, 30d, 90d, custom.", [
      { path: "/period", message: "must be one of today, 7d, 30d, 90d, custom" },
    ]);
  if (preset === "custom") {
    if (!input.since) throw AppError.badRequest("since is required for a custom period.", [{ path: "/since", message: "is required for a custom period" }]);
    const since = date("/since", input.since);
    const until = input.until ? date("/until", input.until) : now;
    if (until.getTime() <= since.getTime()) throw AppError.badRequest("until must be after since.", [{ path: "/until", message: "must be after since" }]);
    if (until.getTime() - since.getTime() > MAX_RANGE_DAYS * DAY)
      throw AppError.badRequest(`A period spans at most ${MAX_RANGE_DAYS} days.`, [
        { path: "/until", message: `must be at most ${MAX_RANGE_DAYS} days after since` },
      ]);
    return { preset, since, until };
  }
  // A preset includes this very moment: its exclusive end is 1 ms after now.
  const until = new Date(now.getTime() + 1);
  if (preset === "today") return { preset, since: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())), until };
  const days = Number(preset.slice(0, -1));
  return { preset, since: new Date(now.getTime() - days * DAY), until };
}

const rate = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

export interface Report extends Figures {
  period: { preset: Preset; since: string; until: string };
  filters: { agent: string | null; channel: string | null; member: string | null };
  /** The IANA time zone `by_hour` is counted in. */
  time_zone: string;
  ai_resolution_rate: { confirmed: number | null; assumed: number | null; total: number | null };
  handoff_rate: number | null;
  /**
   * The period's top knowledge gaps (src/knowledge/gaps.ts): questions the AI could not answer with
   * confidence, grouped; null when the reader may not see them (they need knowledge:manage as well).
   */
  knowledge_gaps: GapGroup[] | null;
  /** The public help centre (src/knowledge/help-signals.ts): views and votes are all-time totals, searches without a result the period's. */
  help_centre: HelpCentreFigures;
  /** The period's conversations and tickets by the customer's language ("unknown" when not known): src/reports/languages.ts. */
  by_language: LanguageFigures[];
}

export type HelpCentreFigures = Awaited<ReturnType<typeof helpCentreTotals>> & { top_searches_without_result: MissedSearch[] };

export const CHANNELS = ["chat", "widget", "email", "api", "mcp"] as const;

/** How many knowledge-gap groups a report lists. */
export const REPORT_GAPS = 10;

export interface ReportOptions {
  /** The org's business hours (read by the caller through src/orgs/): first responses are also counted in them. */
  businessHours?: BusinessHours | null;
  /** Whether the reader may see the knowledge gaps (knowledge:manage): else `knowledge_gaps` is null. */
  gaps?: boolean;
}

export async function buildReport(
  deps: Pick<Deps, "db" | "knowledge" | "now" | "statements">,
  orgId: string,
  input: PeriodInput & { agent?: string; channel?: string; member?: string; tz?: string },
  options: ReportOptions = {},
): Promise<Report> {
  const period = periodOf(input, deps.now());
  const timeZone = reportZone(input.tz);
  for (const key of ["agent", "member"] as const)
    if (input[key] !== undefined && !isUuid(input[key])) throw AppError.badRequest(`${key} must be a UUID.`, [{ path: `/${key}`, message: "must be a UUID" }]);
  if (input.channel !== undefined && !(CHANNELS as readonly string[]).includes(input.channel))
    throw AppError.badRequest(`channel must be one of ${CHANNELS.join(", ")}.`, [{ path: "/channel", message: `must be one of ${CHANNELS.join(", ")}` }]);
  const filter: ReportFilter = {
    orgId,
    since: period.since,
    until: period.until,
    agentId: input.agent,
    channel: input.channel,
    memberId: input.member,
    businessHours: options.businessHours ?? null,
    timeZone,
  };
  // Gaps are chat questions: another channel has none; the agent and member filters do not narrow them.
  const gaps = !options.gaps
    ? Promise.resolve(null)
    : input.channel !== undefined && input.channel !== "chat"
      ? Promise.resolve([])
      : knowledgeGaps(deps, orgId, { days: (period.until.getTime() - period.since.getTime()) / DAY, limit: REPORT_GAPS, until: period.until });
  const [f, knowledge_gaps, help, missed, by_language] = await Promise.all([
    figures(deps, filter).catch((error: unknown) => {
      throw zoneError(error) ?? error;
    }),
    gaps,
    helpCentreTotals(deps, orgId, period.since, period.until),
    missedSearches(deps, orgId, period.since, period.until, REPORT_GAPS),
    figuresByLanguage(deps, filter),
  ]);
  return {
    period: { preset: period.preset, since: period.since.toISOString(), until: period.until.toISOString() },
    filters: { agent: input.agent ?? null, channel: input.channel ?? null, member: input.member ?? null },
    time_zone: timeZone,
    ...f,
    ai_resolution_rate: {
      confirmed: rate(f.ai_resolved_confirmed, f.conversations),
      assumed: rate(f.ai_resolved_assumed, f.conversations),
      total: rate(f.ai_resolved_confirmed + f.ai_resolved_assumed, f.conversations),
    },
    handoff_rate: rate(f.handed_off, f.conversations),
    knowledge_gaps,
    help_centre: { ...help, top_searches_without_result: missed },
    by_language,
  };
}

export interface Headline {
  name: "conversations" | "ai_resolution_rate" | "first_response_median_ms" | "csat_satisfied_rate";
  current: number | null;
  previous: number | null;
}

/** The four headline figures of the last 7 days beside the 7 before. */
export async function headlines(deps: Pick<Deps, "db" | "knowledge" | "now" | "statements">, orgId: string): Promise<Headline[]> {
  const now = deps.now();
  const [cur, prev] = await Promise.all([
    buildReport(deps, orgId, { period: "custom", since: new Date(now.getTime() - 7 * DAY).toISOString(), until: now.toISOString() }),
    buildReport(deps, orgId, {
      period: "custom",
      since: new Date(now.getTime() - 14 * DAY).toISOString(),
      until: new Date(now.getTime() - 7 * DAY).toISOString(),
    }),
  ]);
  const satisfied = (r: Report) => {
    const n = r.csat.ai.count + r.csat.person.count;
    return n === 0 ? null : ((r.csat.ai.satisfied_rate ?? 0) * r.csat.ai.count + (r.csat.person.satisfied_rate ?? 0) * r.csat.person.count) / n;
  };
  return [
    { name: "conversations", current: cur.conversations, previous: prev.conversations },
    { name: "ai_resolution_rate", current: cur.ai_resolution_rate.total, previous: prev.ai_resolution_rate.total },
    { name: "first_response_median_ms", current: cur.first_response.median_ms, previous: prev.first_response.median_ms },
    { name: "csat_satisfied_rate", current: satisfied(cur), previous: satisfied(prev) },
  ];
}

/**
 * The report as CSV (RFC 4180): one `metric,value` row per figure, the hours as
 * `conversations_hour_HH` (in `time_zone`), each language as `language_XX_conversations` (and
 * `_ai_resolved_confirmed`, `_ai_resolved_assumed`, `_handed_off`, `_tickets`), each knowledge gap as `knowledge_gap_N_question` and `_count`; a figure
 * that has no value (no business hours set, nothing to measure) is an empty cell. Written by the
 * service's one CSV writer (src/kit/csv.ts), which defuses a question that would start a formula.
 */
export function reportCsv(r: Report): string {
  const rows: [string, CsvValue][] = [
    ["period_since", r.period.since],
    ["period_until", r.period.until],
    ["time_zone", r.time_zone],
    ["conversations", r.conversations],
    ["ai_resolved_confirmed", r.ai_resolved_confirmed],
    ["ai_resolved_assumed", r.ai_resolved_assumed],
    ["ai_resolution_rate_confirmed", r.ai_resolution_rate.confirmed],
    ["ai_resolution_rate_assumed", r.ai_resolution_rate.assumed],
    ["ai_resolution_rate_total", r.ai_resolution_rate.total],
    ["handed_off", r.handed_off],
    ["handoff_rate", r.handoff_rate],
    ...Object.entries(r.handoff_reasons).map(([k, v]) => [`handoff_reason_${k}`, v] as [string, CsvValue]),
    ["tickets", r.tickets],
    ["first_response_count", r.first_response.count],
    ["first_response_median_ms", r.first_response.median_ms],
    ["first_response_p90_ms", r.first_response.p90_ms],
    ["first_response_business_hours_count", r.first_response_business_hours?.count],
    ["first_response_business_hours_median_ms", r.first_response_business_hours?.median_ms],
    ["first_response_business_hours_p90_ms", r.first_response_business_hours?.p90_ms],
    ["resolution_count", r.resolution.count],
    ["resolution_median_ms", r.resolution.median_ms],
    ["resolution_p90_ms", r.resolution.p90_ms],
    ...(["ai", "person"] as const).flatMap(
      (by) =>
        [
          [`csat_${by}_count`, r.csat[by].count],
          [`csat_${by}_average`, r.csat[by].average],
          [`csat_${by}_satisfied_rate`, r.csat[by].satisfied_rate],
        ] as [string, CsvValue][],
    ),
    ...r.by_hour.map((n, h) => [`conversations_hour_${String(h).padStart(2, "0")}`, n] as [string, CsvValue]),
    ["help_centre_article_views", r.help_centre.article_views],
    ["help_centre_helpful_votes", r.help_centre.helpful_votes],
    ["help_centre_not_helpful_votes", r.help_centre.not_helpful_votes],
    ["help_centre_searches_without_result", r.help_centre.searches_without_result],
    ...r.by_language.flatMap((l) =>
      (["conversations", "ai_resolved_confirmed", "ai_resolved_assumed", "handed_off", "tickets"] as const).map(
        (k) => [`language_${l.language}_${k}`, l[k]] as [string, CsvValue],
      ),
    ),
    ...(r.knowledge_gaps ?? []).flatMap(
      (g, i) =>
        [
          [`knowledge_gap_${i + 1}_question`, g.questions[0]],
          [`knowledge_gap_${i + 1}_count`, g.count],
        ] as [string, CsvValue][],
    ),
  ];
  return csvDocument([["metric", "value"], ...rows]);
}
