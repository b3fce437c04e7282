// Reports (README "Reports"): BENCH_REPORT_CONVERSATIONS generated conversations (default 100,000)
// over the last 90 days — two messages each, a yes on every fifth answer, one in ten handed to a
// person with a ticket, its reply, its resolution and, for half of them, a rating; the org has
// business hours (Monday to Friday, 09:00–18:00 in Paris), and the report facts are backfilled as the
// migration that added them does — then
// GET /api/reports/summary?period=90d and the Reports page over the same period, each requested
// BENCH_REPORT_RUNS times (default 20) after two warm-up requests, through the app's own handler
// in this process: p50/p99 per engine. Printed, never asserted.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { createAppHandler } from "../../src/app.ts";
import { backfillReportFacts } from "../../src/conversations/report-facts.ts";
import { type Db, queryRows } from "../../src/db/client.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { setBusinessHours } from "../../src/orgs/business-hours.ts";
import { createOrg } from "../../src/orgs/service.ts";
import { openServices } from "../../src/server.ts";
import { fixed, printTable } from "../report.ts";
import type { BenchContext } from "../runner.ts";

const COUNT = Number(process.env.BENCH_REPORT_CONVERSATIONS || 100_000);
const RUNS = Number(process.env.BENCH_REPORT_RUNS || 20);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}

export async function seed(db: Db, orgId: string, memberId: string) {
  const span = 90 * 86_400;
  await db.execute(sql`insert into conversations (id, org_id, session_hash, anonymous, routed, created_at, updated_at)
    select gen_random_uuid(), ${orgId}, md5(random()::text || g::text), true, g % 10 = 0, now() - make_interval(secs => (g * 7919) % ${span}), now() - make_interval(secs => (g * 7919) % ${span})
    from generate_series(1, ${COUNT}) g`);
  await db.execute(sql`insert into conversation_messages (id, org_id, conversation_id, role, text, created_at)
    select gen_random_uuid(), ${orgId}, c.id, 'customer', 'How do I reset my password?', c.created_at from conversations c where c.org_id = ${orgId}`);
  await db.execute(sql`insert into conversation_messages (id, org_id, conversation_id, role, text, helpful, helpful_at, created_at)
    select gen_random_uuid(), ${orgId}, c.id, 'agent', 'Open Settings, then Security.', case when random() < 0.2 then true end, c.created_at + interval '1 minute', c.created_at + interval '2 seconds'
    from conversations c where c.org_id = ${orgId}`);
  await db.execute(sql`insert into tickets (org_id, number, subject, status, source, conversation_id, handoff_reason, assignee_member_id, created_at, updated_at, csat_score, csat_handled_by, csat_at)
    select ${orgId}, row_number() over (order by c.created_at), 'Help', 'resolved', 'chat', c.id,
      (array['live_help', 'routing_rule', 'low_confidence', 'frustration'])[1 + (row_number() over (order by c.created_at)) % 4], ${memberId}, c.created_at, c.created_at,
      case when random() < 0.5 then 1 + floor(random() * 5)::int end, 'person', c.created_at + interval '2 hours'
    from conversations c where c.org_id = ${orgId} and c.routed`);
  await db.execute(sql`update tickets t set csat_handled_by = null, csat_at = null where t.org_id = ${orgId} and t.csat_score is null`);
  await db.execute(sql`update conversations c set ticket_id = t.id from tickets t where t.org_id = ${orgId} and t.conversation_id = c.id`);
  await db.execute(sql`insert into ticket_messages (org_id, ticket_id, kind, body, author_kind, author_member_id, created_at)
    select ${orgId}, t.id, 'reply', 'On it.', 'member', ${memberId}, t.created_at + make_interval(secs => 60 + (t.number * 37) % 3600) from tickets t where t.org_id = ${orgId}`);
  await db.execute(sql`insert into ticket_history (org_id, ticket_id, actor_kind, actor_member_id, action, before, after, created_at)
    select ${orgId}, t.id, 'member', ${memberId}, 'status', to_jsonb('open'::text), to_jsonb('resolved'::text), t.created_at + make_interval(secs => 600 + (t.number * 53) % 86400) from tickets t where t.org_id = ${orgId}`);
  // The facts the transcript keeps as messages are written (src/conversations/report-facts.ts), here
  // filled by the statement the migration that added them runs over existing rows: timed apart.
  const backfill = performance.now();
  await backfillReportFacts(db);
  backfillMs = performance.now() - backfill;
  await db.execute(sql`analyze`);
}

/** How long the last seed's backfill of the report facts took (the migration's cost at this size). */
let backfillMs = 0;

async function measure(label: string, env: Record<string, string>): Promise<string[][]> {
  const config = loadConfig({
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    BASE_URL: "http://localhost:3000",
    SECRET_KEY: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64"),
    ...env,
  });
  const { deps, close } = await openServices(config, createLogger("warn"));
  try {
    const password = `pw-${crypto.randomUUID()}`;
    const org = await createOrg(deps, { name: "Bench", adminEmail: "bench@example.com", adminPassword: password });
    const [member] = await queryRows<{ id: string }>(deps.db, sql`select id from members where email = 'bench@example.com'`);
    const memberId = member!.id;
    // Business hours set, so the report also counts first responses in them (a pass over the calendar).
    const weekday: [string, string][] = [["09:00", "18:00"]];
    await setBusinessHours(
      deps,
      org.org_id,
      { kind: "member", memberId },
      { time_zone: "Europe/Paris", weekly: { mon: weekday, tue: weekday, wed: weekday, thu: weekday, fri: weekday }, holidays: [] },
    );
    const seeding = performance.now();
    await seed(deps.db, org.org_id, memberId);
    console.log(
      `${label}: ${COUNT} conversations seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s, of which the report facts' backfill ${(backfillMs / 1000).toFixed(1)} s`,
    );
    const handle = createAppHandler(deps);
    const signIn = await handle(
      new Request("http://localhost:3000/api/auth/session", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "bench@example.com", password }),
      }),
    );
    const { token } = (await signIn.json()) as { token: string };
    const rows: string[][] = [];
    for (const [name, path] of [
      ["GET /api/reports/summary?period=90d", "/api/reports/summary?period=90d"],
      ["GET /dashboard/reports?period=90d", "/dashboard/reports?period=90d"],
    ] as const) {
      const times: number[] = [];
      for (let i = 0; i < RUNS + 2; i++) {
        const began = performance.now();
        const res = await handle(new Request(`http://localhost:3000${path}`, { headers: { authorization: `Bearer ${token}` } }));
        await res.text();
        if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
        if (i >= 2) times.push(performance.now() - began);
      }
      times.sort((a, b) => a - b);
      rows.push([label, name, fixed(percentile(times, 0.5), 0), fixed(percentile(times, 0.99), 0)]);
    }
    return rows;
  } finally {
    await close();
  }
}

export async function reports(context: BenchContext): Promise<void> {
  const rows: string[][] = [];
  if ("url" in context.pg) rows.push(...(await measure("PostgreSQL", { DATABASE_URL: context.pg.url })));
  else console.log(`reports on PostgreSQL skipped: ${context.pg.skipped}`);
  rows.push(...(await measure("PGlite", { DATA_DIR: mkdtempSync(join(tmpdir(), "svc-bench-reports-")) })));
  printTable(`Reports over ${COUNT} conversations (${RUNS} requests each, in process)`, ["engine", "request", "p50 ms", "p99 ms"], rows);
}
