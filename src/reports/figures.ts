// The figures of a report, each from one SQL query over what is stored: conversations (with the
// facts their messages left on them, src/conversations/report-facts.ts), tickets, their replies,
// history and ratings.
// The definitions are in docs/decisions.md "Reports: what each figure counts"; the same SQL runs on
// PostgreSQL and PGlite. Times are milliseconds, rates are fractions of 1, hours of the day are
// counted in the filter's time zone (UTC unless one is given).
import { type SQL, sql } from "drizzle-orm";
import { queryRows } from "../db/client.ts";
import type { Deps } from "../deps.ts";
import type { BusinessHours } from "../kit/business-hours.ts";
import { businessSpans, percentileCont } from "./business-time.ts";

export interface ReportFilter {
  orgId: string;
  since: Date;
  until: Date;
  /** The AI agent that answered the conversation. */
  agentId?: string;
  /** A ticket's source (`chat`, `widget`, `email`, `api`, `mcp`); conversations are the `chat` channel. */
  channel?: string;
  /** The member a ticket is assigned to. */
  memberId?: string;
  /** The org's business hours, for first responses counted in them; null or absent when none are set. */
  businessHours?: BusinessHours | null;
  /** The IANA time zone the hours of `by_hour` are counted in (checked by the caller: src/reports/zone.ts); default UTC. */
  timeZone?: string;
}

export interface Percentiles {
  count: number;
  median_ms: number | null;
  p90_ms: number | null;
}

export interface CsatFigure {
  count: number;
  average: number | null;
  /** The share of ratings of 4 or 5. */
  satisfied_rate: number | null;
}

export interface Figures {
  conversations: number;
  ai_resolved_confirmed: number;
  ai_resolved_assumed: number;
  handed_off: number;
  handoff_reasons: { live_help: number; routing_rule: number; low_confidence: number; frustration: number };
  tickets: number;
  first_response: Percentiles;
  /** The same first responses counted in the org's business hours; null when it has none set. */
  first_response_business_hours: Percentiles | null;
  resolution: Percentiles;
  csat: { ai: CsatFigure; person: CsatFigure };
  by_hour: number[];
}

export function conversationScope(f: ReportFilter, alias: string): SQL {
  const c = sql.raw(alias);
  return sql`${c}.org_id = ${f.orgId} and ${c}.created_at >= ${f.since.toISOString()}::timestamptz and ${c}.created_at < ${f.until.toISOString()}::timestamptz${
    f.agentId ? sql` and ${c}.agent_id = ${f.agentId}` : sql``
  }${f.channel !== undefined && f.channel !== "chat" ? sql` and false` : sql``}`;
}

export function ticketScope(f: ReportFilter, column: "created_at" | "csat_at"): SQL {
  return sql`t.org_id = ${f.orgId} and t.${sql.raw(column)} >= ${f.since.toISOString()}::timestamptz
    and t.${sql.raw(column)} < ${f.until.toISOString()}::timestamptz${
      f.channel ? sql` and t.source = ${f.channel}` : sql``
    }${f.memberId ? sql` and t.assignee_member_id = ${f.memberId}` : sql``}${
      f.agentId
        ? sql` and exists (select 1 from conversations ac where ac.org_id = t.org_id and ac.id = t.conversation_id and ac.agent_id = ${f.agentId})`
        : sql``
    }`;
}

/**
 * The judgements over one conversation row `c`, as `count(*) filter (where …)` conditions (shared
 * with the breakdown by language, src/reports/languages.ts). Assumed: never handed off, no
 * feedback, and either a quiet answer no customer message took back within 7 days, or an answer
 * still unanswered 24 h on.
 */
export function outcomes(now: string) {
  return {
    confirmed: sql`c.helpful and not (c.routed or c.ticket_id is not null)`,
    assumed: sql`not (c.routed or c.ticket_id is not null) and c.helpful is null and (
        case when c.quiet_answer_at is not null then c.quiet_ended_at > c.quiet_answer_at + interval '7 days'
          else c.open_answer_at + interval '24 hours' <= ${now}::timestamptz end)`,
    handedOff: sql`c.routed or c.ticket_id is not null`,
  };
}

export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/**
 * One row per conversation: the judgement's inputs are kept on it as messages are written
 * (src/conversations/report-facts.ts), so this reads no message. Assumed: never handed off, no
 * feedback, and either a quiet answer no customer message took back within 7 days, or an answer
 * still unanswered 24 h on.
 */
async function conversationFigures(deps: Pick<Deps, "db" | "now">, f: ReportFilter) {
  const judged = outcomes(deps.now().toISOString());
  const [row] = await queryRows<Record<string, unknown>>(
    deps.db,
    sql`select count(*)::int as conversations,
      count(*) filter (where ${judged.confirmed})::int as confirmed,
      count(*) filter (where ${judged.assumed})::int as assumed,
      count(*) filter (where ${judged.handedOff})::int as handed_off,
      ${sql.join(
        Array.from({ length: 24 }, (_, h) => sql`count(*) filter (where hour = ${sql.raw(String(h))})::int as ${sql.raw(`h${h}`)}`),
        sql`, `,
      )}
    from (select c.*, extract(hour from c.created_at at time zone ${f.timeZone ?? "UTC"})::int as hour
      from conversations c where ${conversationScope(f, "c")}) c`,
  );
  return {
    conversations: num(row?.conversations),
    confirmed: num(row?.confirmed),
    assumed: num(row?.assumed),
    handedOff: num(row?.handed_off),
    byHour: Array.from({ length: 24 }, (_, h) => num(row?.[`h${h}`])),
  };
}

async function handoffReasons(deps: Pick<Deps, "db">, f: ReportFilter) {
  const rows = await queryRows<{ reason: string; n: number }>(
    deps.db,
    sql`select t.handoff_reason as reason, count(*)::int as n from tickets t join conversations c on c.org_id = t.org_id and c.id = t.conversation_id
      where t.org_id = ${f.orgId} and t.handoff_reason is not null and ${conversationScope(f, "c")} group by t.handoff_reason`,
  );
  const reasons = { live_help: 0, routing_rule: 0, low_confidence: 0, frustration: 0 };
  for (const r of rows) if (r.reason in reasons) reasons[r.reason as keyof typeof reasons] = num(r.n);
  return reasons;
}

function scopedTickets(f: ReportFilter): SQL {
  return sql`select t.id, t.created_at,
        (select min(m.created_at) from ticket_messages m where m.ticket_id = t.id and m.kind = 'reply'
          and m.author_kind in ('member', 'token') and m.created_at > t.created_at) as first_reply,
        (select min(h.created_at) from ticket_history h where h.ticket_id = t.id and h.action = 'status'
          and h.after = to_jsonb('resolved'::text)) as resolved
      from tickets t where ${ticketScope(f, "created_at")}`;
}

async function ticketTimes(deps: Pick<Deps, "db">, f: ReportFilter) {
  const [row] = await queryRows<Record<string, unknown>>(
    deps.db,
    sql`with scoped as (${scopedTickets(f)}), times as (
      select extract(epoch from first_reply - created_at)::float8 * 1000 as fr, extract(epoch from resolved - created_at)::float8 * 1000 as rs from scoped
    )
    select (select count(*) from scoped)::int as tickets,
      count(fr)::int as fr_n, percentile_cont(0.5) within group (order by fr)::float8 as fr_median,
      percentile_cont(0.9) within group (order by fr)::float8 as fr_p90,
      count(rs)::int as rs_n, percentile_cont(0.5) within group (order by rs)::float8 as rs_median,
      percentile_cont(0.9) within group (order by rs)::float8 as rs_p90
    from times`,
  );
  return {
    tickets: num(row?.tickets),
    firstResponse: { count: num(row?.fr_n), median_ms: numOrNull(row?.fr_median), p90_ms: numOrNull(row?.fr_p90) },
    resolution: { count: num(row?.rs_n), median_ms: numOrNull(row?.rs_median), p90_ms: numOrNull(row?.rs_p90) },
  };
}

/** First responses counted in the org's business hours; null when it has none set. */
async function businessFirstResponse(deps: Pick<Deps, "db">, f: ReportFilter): Promise<Percentiles | null> {
  if (!f.businessHours) return null;
  const rows = await queryRows<{ a: number; b: number }>(
    deps.db,
    sql`with scoped as (${scopedTickets(f)})
    select (extract(epoch from created_at) * 1000)::float8 as a, (extract(epoch from first_reply) * 1000)::float8 as b
    from scoped where first_reply is not null`,
  );
  const times = businessSpans(
    f.businessHours,
    rows.map((r) => [Math.round(Number(r.a)), Math.round(Number(r.b))]),
  ).sort((x, y) => x - y);
  return { count: times.length, median_ms: percentileCont(times, 0.5), p90_ms: percentileCont(times, 0.9) };
}

async function csat(deps: Pick<Deps, "db">, f: ReportFilter) {
  const rows = await queryRows<{ by: string; n: number; average: number | null; satisfied: number }>(
    deps.db,
    sql`select t.csat_handled_by as by, count(*)::int as n, avg(t.csat_score)::float8 as average, count(*) filter (where t.csat_score >= 4)::int as satisfied
      from tickets t where ${ticketScope(f, "csat_at")} and t.csat_score is not null group by t.csat_handled_by`,
  );
  const figure = (by: string): CsatFigure => {
    const r = rows.find((x) => x.by === by);
    const n = num(r?.n);
    return { count: n, average: n ? Number(r!.average) : null, satisfied_rate: n ? num(r!.satisfied) / n : null };
  };
  return { ai: figure("ai"), person: figure("person") };
}

/** Every figure of one period and filter. */
export async function figures(deps: Pick<Deps, "db" | "now">, f: ReportFilter): Promise<Figures> {
  const [conv, reasons, times, business, rated] = await Promise.all([
    conversationFigures(deps, f),
    handoffReasons(deps, f),
    ticketTimes(deps, f),
    businessFirstResponse(deps, f),
    csat(deps, f),
  ]);
  return {
    conversations: conv.conversations,
    ai_resolved_confirmed: conv.confirmed,
    ai_resolved_assumed: conv.assumed,
    handed_off: conv.handedOff,
    handoff_reasons: reasons,
    tickets: times.tickets,
    first_response: times.firstResponse,
    first_response_business_hours: business,
    resolution: times.resolution,
    csat: rated,
    by_hour: conv.byHour,
  };
}
