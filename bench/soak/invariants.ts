// What must hold after the soak, checked against the database and what the receivers recorded:
// every acknowledged write stored, every enrolment's step mailed exactly once, every webhook
// delivery received, and the outbox empty. The request bound and the resource figures are
// checked in report.ts from the load's own records.
import { createHash } from "node:crypto";
import postgres from "postgres";
import type { FaultWindow } from "./faults.ts";
import type { Acks } from "./load.ts";
import type { HookReceiver, MailReceiver } from "./receivers.ts";
import type { SoakOrg } from "./setup.ts";

export interface Check {
  name: string;
  held: boolean;
  detail: string;
}

const missingOf = (wanted: string[], found: Iterable<string>) => {
  const have = new Set(found);
  return wanted.filter((w) => !have.has(w));
};

/**
 * A process killed (kill -9, or a crash) after the receiver answered and before it recorded the
 * answer delivers again: a duplicate whose first delivery landed in the 20 s before such an exit
 * is the documented at-least-once case (README "Webhooks").
 */
function inKillWindow(at: number, windows: FaultWindow[], start: number) {
  return windows.some((w) => /^(kill -9|crash)/.test(w.name) && at - start >= w.start - 20_000 && at - start <= w.end);
}

export async function checkInvariants(
  url: string,
  org: SoakOrg,
  acks: Acks,
  smtp: MailReceiver,
  hooks: HookReceiver[],
  windows: FaultWindow[],
  startEpoch: number,
): Promise<Check[]> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const checks: Check[] = [];
  try {
    const written = async (name: string, wanted: string[], query: (ids: string[]) => Promise<{ id: string }[]>) => {
      const found = wanted.length === 0 ? [] : (await query(wanted)).map((r) => r.id);
      const missing = missingOf(wanted, found);
      checks.push({
        name: `acknowledged ${name} stored`,
        held: missing.length === 0,
        detail: `${wanted.length - missing.length} of ${wanted.length}${missing.length ? `; missing e.g. ${missing.slice(0, 3).join(", ")}` : ""}`,
      });
    };
    const hashes = new Map(acks.chatSessions.map((s) => [createHash("sha256").update(s).digest("hex"), s]));
    await written(
      "chat sessions (chat and stream)",
      [...hashes.keys()],
      (ids) => sql`select session_hash as id from conversations where session_hash = any(${ids}) and message_count > 0`,
    );
    await written("identified customers", acks.identified, (ids) => sql`select id::text as id from end_users where id = any(${ids}::uuid[])`);
    await written(
      "events",
      acks.events,
      (ids) => sql`select properties->>'soak_id' as id from customer_events where org_id = ${org.orgId} and properties->>'soak_id' = any(${ids})`,
    );
    await written(
      "series enrolments",
      acks.enrolled,
      (ids) => sql`select end_user_id::text as id from campaign_enrolments where campaign_id = ${org.campaignId} and end_user_id = any(${ids}::uuid[])`,
    );
    await written("tickets", acks.tickets, (ids) => sql`select id::text as id from tickets where id = any(${ids}::uuid[])`);
    await written("ticket replies and notes", acks.messages, (ids) => sql`select id::text as id from ticket_messages where id = any(${ids}::uuid[])`);

    // Mail: every enrolment has its one step queued, and that message reached SMTP exactly once.
    const rows = await sql<{ enrolment: string; outbox: string | null; status: string | null }[]>`
      select e.id::text as enrolment, m.outbox_id::text as outbox, o.status
      from campaign_enrolments e left join campaign_messages m on m.enrolment_id = e.id left join outbox o on o.id = m.outbox_id
      where e.campaign_id = ${org.campaignId}`;
    const byOutbox = new Map<string, number>();
    for (const [id, count] of smtp.accepted) {
      const m = /<([0-9a-f-]{36})@/.exec(id);
      if (m) byOutbox.set(m[1]!, count);
    }
    const notQueued = rows.filter((r) => r.outbox === null).length;
    const notMailed = rows.filter((r) => r.outbox !== null && !byOutbox.has(r.outbox)).length;
    const twice = rows.filter((r) => r.outbox !== null && (byOutbox.get(r.outbox) ?? 0) > 1).length;
    checks.push({
      name: "every enrolment's step mailed exactly once (by Message-ID)",
      held: notQueued + notMailed + twice === 0 && rows.length >= acks.enrolled.length,
      detail: `${rows.length} enrolments; ${notQueued} not queued, ${notMailed} never accepted by SMTP, ${twice} accepted more than once`,
    });

    // Webhooks: every delivery of the soak's endpoints answered 2xx at least once; duplicates counted.
    const deliveries = await sql<{ id: string; endpoint: string; status: string }[]>`
      select d.id::text as id, d.endpoint_id::text as endpoint, o.status from webhook_deliveries d join outbox o on o.id = d.outbox_id where d.org_id = ${org.orgId}`;
    let lost = 0;
    let dupes = 0;
    let dupesOutside = 0;
    let unverified = 0;
    for (const [i, hook] of hooks.entries()) {
      const ok = new Map<string, number[]>();
      for (const r of hook.receipts) {
        if (!r.verified) unverified++;
        if (r.status < 300) ok.set(r.id, [...(ok.get(r.id) ?? []), r.at]);
      }
      for (const d of deliveries.filter((x) => x.endpoint === org.endpointIds[i])) {
        const times = ok.get(`msg_${d.id.replace(/-/g, "")}`) ?? [];
        if (times.length === 0) lost++;
        if (times.length > 1) {
          dupes += times.length - 1;
          if (!inKillWindow(times[0]!, windows, startEpoch)) dupesOutside += times.length - 1;
        }
      }
    }
    checks.push({
      name: "every webhook event delivered (by webhook-id)",
      held: lost === 0 && unverified === 0 && deliveries.length > 0,
      detail: `${deliveries.length} deliveries to ${hooks.length} receivers; ${lost} never answered 2xx; ${unverified} requests failed signature verification`,
    });
    checks.push({
      name: "webhook duplicates only in the at-least-once window",
      held: dupesOutside === 0,
      detail: `${dupes} duplicate 2xx deliveries; ${dupesOutside} outside the 20 s before a kill -9 or a crash`,
    });

    const left = await sql<
      { kind: string; status: string; n: number; error: string | null }[]
    >`select kind, status, count(*)::int as n, max(last_error) as error from outbox where org_id = ${org.orgId} and status not in ('sent', 'held') group by kind, status`;
    checks.push({
      name: "outbox drained (nothing pending, failed or stuck)",
      held: left.length === 0,
      detail:
        left.length === 0
          ? "every row sent"
          : left.map((r) => `${r.kind} ${r.status}: ${r.n}${r.error ? ` (last error: ${r.error.slice(0, 120)})` : ""}`).join(", "),
    });
  } finally {
    await sql.end({ timeout: 2 });
  }
  return checks;
}

/** Rows still to deliver, and enrolments whose next step is not yet queued: zero when drained. */
export async function pendingWork(sql: postgres.Sql, orgId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select (select count(*) from outbox where org_id = ${orgId} and status in ('pending', 'sending', 'parked'))::int
         + (select count(*) from campaign_enrolments where org_id = ${orgId} and state = 'active' and wake_at is not null)::int as n`;
  return row!.n;
}
