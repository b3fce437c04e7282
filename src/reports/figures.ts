// The figures of a report, each from one SQL query over what is stored: conversations and their
// messages (with the customer's "Did that help?"), tickets, their replies, history and ratings.
// The definitions are in docs/decisions.md "Reports: what each figure counts"; the same SQL runs on
// PostgreSQL and PGlite. Times are milliseconds, rates are fractions of 1, hours are UTC.
import { type SQL, sql } from "drizzle-orm";
import { queryRows } from "../db/client.ts";
import type { Deps } from "../deps.ts";

/** A customer message (or the one an answer replies to) that is only a greeting, a thanks or an ok. */
export const GREETING = "^[[:space:]]*(hi|hello|hey|hiya|yo|good (morning|afternoon|evening)|thanks?( you)?( so much| a lot)?|thx|ty|cheers|ok|okay|great|cool|bye|goodbye)[[:space:][:punct:]]*$";
/** No customer message within this long after the AI's answer: assumed resolved (inclusive). */
export const QUIET_MS = 24 * 3600 * 1000;
/** A customer message within this long after that answer takes the resolution back (inclusive). */
export const REOPEN_MS = 7 * 24 * 3600 * 1000;

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
  resolution: Percentiles;
  csat: { ai: CsatFigure; person: CsatFigure };
  by_hour: number[];
}

function conversationScope(f: ReportFilter, alias: string): SQL {
  const c = sql.raw(alias);
  return sql`${c}.org_id = ${f.orgId} and ${c}.created_at >= ${f.since.toISOString()}::timestamptz and ${c}.created_at < ${f.until.toISOString()}::timestamptz${
    f.agentId ? sql` and ${c}.agent_id = ${f.agentId}` : sql``
  }${f.channel !== undefined && f.channel !== "chat" ? sql` and false` : sql``}`;
}

function ticketScope(f: ReportFilter, column: "created_at" | "csat_at"): SQL {
  return sql`t.org_id = ${f.orgId} and t.${sql.raw(column)} >= ${f.since.toISOString()}::timestamptz and t.${sql.raw(column)} < ${f.until.toISOString()}::timestamptz${
    f.channel ? sql` and t.source = ${f.channel}` : sql``
  }${f.memberId ? sql` and t.assignee_member_id = ${f.memberId}` : sql``}${
    f.agentId ? sql` and exists (select 1 from conversations ac where ac.org_id = t.org_id and ac.id = t.conversation_id and ac.agent_id = ${f.agentId})` : sql``
  }`;
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

async function conversationFigures(deps: Pick<Deps, "db" | "now">, f: ReportFilter) {
  const now = deps.now().toISOString();
  const [row] = await queryRows<Record<string, unknown>>(
    deps.db,
    sql`with conv as (
      select c.id, (c.routed or c.ticket_id is not null) as handed_off from conversations c where ${conversationScope(f, "c")}
    ), msgs as (
      select m.conversation_id, m.role, m.created_at, m.helpful, m.helpful_at,
        (m.role = 'agent' and m.status = 'complete' and m.routing is null and m.text <> ''
          and not coalesce(lag(m.role) over w = 'customer' and lag(m.text) over w ~* ${GREETING}, false)) as substantive,
        min(case when m.role = 'customer' and m.text !~* ${GREETING} then m.created_at end)
          over (w rows between 1 following and unbounded following) as next_customer
      from conversation_messages m join conv on conv.id = m.conversation_id
      where m.org_id = ${f.orgId} and m.role in ('customer', 'agent') and m.created_at <= ${now}::timestamptz
      window w as (partition by m.conversation_id order by m.created_at, m.id)
    ), quiet as (
      select distinct on (conversation_id) conversation_id, created_at, next_customer from msgs
      where substantive and ${now}::timestamptz >= created_at + interval '24 hours'
        and (next_customer is null or next_customer > created_at + interval '24 hours')
      order by conversation_id, created_at
    ), feedback as (
      select distinct on (conversation_id) conversation_id, helpful from msgs
      where helpful is not null order by conversation_id, helpful_at desc
    ), judged as (
      select conv.handed_off, coalesce(fb.helpful, false) and not conv.handed_off as confirmed,
        not conv.handed_off and fb.helpful is null and q.conversation_id is not null
          and (q.next_customer is null or q.next_customer > q.created_at + interval '7 days') as assumed
      from conv left join feedback fb on fb.conversation_id = conv.id left join quiet q on q.conversation_id = conv.id
    )
    select count(*)::int as conversations, count(*) filter (where confirmed)::int as confirmed,
      count(*) filter (where assumed)::int as assumed, count(*) filter (where handed_off)::int as handed_off from judged`,
  );
  return { conversations: num(row?.conversations), confirmed: num(row?.confirmed), assumed: num(row?.assumed), handedOff: num(row?.handed_off) };
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

async function ticketTimes(deps: Pick<Deps, "db">, f: ReportFilter) {
  const [row] = await queryRows<Record<string, unknown>>(
    deps.db,
    sql`with scoped as (
      select t.id, t.created_at,
        (select min(m.created_at) from ticket_messages m where m.ticket_id = t.id and m.kind = 'reply'
          and m.author_kind in ('member', 'token') and m.created_at > t.created_at) as first_reply,
        (select min(h.created_at) from ticket_history h where h.ticket_id = t.id and h.action = 'status'
          and h.after = to_jsonb('resolved'::text)) as resolved
      from tickets t where ${ticketScope(f, "created_at")}
    ), times as (
      select extract(epoch from first_reply - created_at)::float8 * 1000 as fr, extract(epoch from resolved - created_at)::float8 * 1000 as rs from scoped
    )
    select (select count(*) from scoped)::int as tickets,
      count(fr)::int as fr_n, percentile_cont(0.5) within group (order by fr)::float8 as fr_median, percentile_cont(0.9) within group (order by fr)::float8 as fr_p90,
      count(rs)::int as rs_n, percentile_cont(0.5) within group (order by rs)::float8 as rs_median, percentile_cont(0.9) within group (order by rs)::float8 as rs_p90
    from times`,
  );
  return {
    tickets: num(row?.tickets),
    firstResponse: { count: num(row?.fr_n), median_ms: numOrNull(row?.fr_median), p90_ms: numOrNull(row?.fr_p90) },
    resolution: { count: num(row?.rs_n), median_ms: numOrNull(row?.rs_median), p90_ms: numOrNull(row?.rs_p90) },
  };
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

async function byHour(deps: Pick<Deps, "db">, f: ReportFilter) {
  const rows = await queryRows<{ hour: number; n: number }>(
    deps.db,
    sql`select extract(hour from c.created_at at time zone 'UTC')::int as hour, count(*)::int as n from conversations c where ${conversationScope(f, "c")} group by 1`,
  );
  const hours = Array.from({ length: 24 }, () => 0);
  for (const r of rows) hours[num(r.hour)] = num(r.n);
  return hours;
}

/** Every figure of one period and filter. */
export async function figures(deps: Pick<Deps, "db" | "now">, f: ReportFilter): Promise<Figures> {
  const [conv, reasons, times, rated, hours] = await Promise.all([conversationFigures(deps, f), handoffReasons(deps, f), ticketTimes(deps, f), csat(deps, f), byHour(deps, f)]);
  return {
    conversations: conv.conversations,
    ai_resolved_confirmed: conv.confirmed,
    ai_resolved_assumed: conv.assumed,
    handed_off: conv.handedOff,
    handoff_reasons: reasons,
    tickets: times.tickets,
    first_response: times.firstResponse,
    resolution: times.resolution,
    csat: rated,
    by_hour: hours,
  };
}
