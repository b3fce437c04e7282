// Reports over a seeded dataset with known answers (docs/decisions.md "Reports: what each figure
// counts"): AI resolutions confirmed and assumed, including the 24-hour quiet rule (by moving the
// clock) and the 7-day reopen rule at their boundaries; hand-offs of each reason; tickets with known
// first-response and resolution times; ratings by people and by the AI; the CSV; the overview.
// Conversations are written through the transcript and feedback, which keep the facts the report
// reads (src/conversations/report-facts.ts); the migration's backfill must arrive at the same facts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.ts";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { recordFeedback } from "../../src/conversations/feedback.ts";
import { BACKFILL_SQL } from "../../src/conversations/report-facts.ts";
import { storeCustomerMessage, storeReply } from "../../src/conversations/transcript.ts";
import { migrationFiles } from "../../src/db/migrations/index.ts";
import { conversations } from "../../src/db/schema/index.ts";
import { rateTicket } from "../../src/inbox/csat.ts";
import { addTicketMessage, createTicket, updateTicket } from "../../src/inbox/ticket-writes.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { addMember, type InboxOrg, seedInboxOrg } from "../inbox/helpers.ts";
import { rejectionOf } from "../support/settle.ts";

const H = 3600_000;
const D = 24 * H;
const B = Date.parse("2026-01-05T10:00:00.000Z");
const T = B + 1000; // every seeded answer's time
const LATE = B + 8 * D; // the conversation whose 24-hour boundary the clock crosses
let app: TestApp;
let org: InboxOrg;
let admin: string;

type Msg = { role: "customer" | "agent"; text: string; at: number; status?: "complete" | "failed"; helpful?: boolean };
const AGENT = crypto.randomUUID();
/** A conversation written as the chat writes one: each message through the transcript, each "Did that help?" through feedback. */
async function conversation(createdAt: number, messages: Msg[], handoff?: { reason: "live_help" | "routing_rule" | "low_confidence" | "frustration" }) {
  const id = crypto.randomUUID();
  const [row] = await app.deps.db
    .insert(conversations)
    .values({
      id,
      orgId: org.org_id,
      sessionHash: sha256Hex(id),
      anonymous: true,
      routed: handoff !== undefined,
      createdAt: new Date(createdAt),
      updatedAt: new Date(createdAt),
    })
    .returning();
  for (const m of messages) {
    at(m.at);
    if (m.role === "customer") await storeCustomerMessage(app.deps, row!, { text: m.text, images: [], mode: "chat" });
    else
      await storeReply(app.deps, row!, {
        text: m.text,
        agentId: AGENT,
        actions: [],
        sources: [],
        confidence: 0.9,
        routing: null,
        status: m.status ?? "complete",
      });
    if (m.helpful !== undefined) {
      at(m.at + 1000);
      await recordFeedback(app.deps, { orgId: org.org_id, conversationId: id, helpful: m.helpful });
    }
  }
  return id;
}
const at = (ms: number) => {
  app.clock.now = new Date(ms);
};
const q = (text = "How do I reset my password?"): Msg => ({ role: "customer", text, at: B });
const a = (extra: Partial<Msg> = {}): Msg => ({ role: "agent", text: "Open Settings, then Security, then Reset password.", at: T, ...extra });
const member = () => ({ kind: "member" as const, memberId: org.admin_id });
const ticketIds: string[] = [];

async function report(query: string, token = admin) {
  const response = await app.request(`/api/reports/summary?period=custom&since=2026-01-05T00:00:00Z&until=2026-01-15T00:00:00Z${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, any>;
}

beforeAll(async () => {
  app = await createTestApp();
  org = await seedInboxOrg(app);
  admin = await signIn(app, org.admin_email, org.password);
  await conversation(B, [q(), a({ helpful: true })]); // confirmed
  await conversation(B, [q(), a()]); // assumed
  await conversation(B, [q(), a(), { role: "customer", text: "Thanks!", at: T + H }]); // a thanks is no new question: assumed
  await conversation(B, [q("hi"), a({ text: "Hello! How can I help?" })]); // a greeting answered: not substantive
  await conversation(B, [
    q(),
    a(),
    { role: "customer", text: "And what about two-factor codes?", at: T + D },
    { role: "agent", text: "", at: T + D + 1000, status: "failed" },
  ]); // a question at 24 h exactly
  await conversation(B, [
    q(),
    a(),
    { role: "customer", text: "It still fails", at: T + 7 * D },
    { role: "agent", text: "Try clearing cookies.", at: T + 7 * D + 1000 },
  ]); // reopened at 7 days exactly
  await conversation(B, [
    q(),
    a(),
    { role: "customer", text: "It still fails", at: T + 7 * D + 1 },
    { role: "agent", text: "Try clearing cookies.", at: T + 7 * D + 1000 },
  ]); // 1 ms after: a new matter
  await conversation(B, [q(), a({ helpful: false })]); // "no": neither
  const reasons = ["live_help", "routing_rule", "low_confidence", "frustration"] as const;
  const replyAfter = [60, 120, 300, null];
  const resolveAfter = [600, 1200, null, null];
  for (const [i, reason] of reasons.entries()) {
    const start = B + H + i * H;
    const conversationId = await conversation(B, [q("I want a person")], { reason });
    at(start);
    const ticket = await createTicket(app.deps, {
      orgId: org.org_id,
      actor: { kind: "customer", endUserId: null, sessionId: conversationId },
      input: { subject: "Help", message: "I want a person", source: "chat", conversationId, chatReason: reason },
    });
    ticketIds.push(ticket.id);
    if (replyAfter[i] !== null) {
      at(start + replyAfter[i]! * 1000);
      await addTicketMessage(app.deps, { orgId: org.org_id, actor: member(), ticketId: ticket.id, kind: "reply", body: "On it." });
    }
    if (resolveAfter[i] !== null) {
      at(start + resolveAfter[i]! * 1000);
      await updateTicket(app.deps, { orgId: org.org_id, actor: member(), ticketId: ticket.id, patch: { status: "resolved" } });
    }
  }
  // A ticket only the AI answered, resolved and rated 4.
  at(B + 6 * H);
  const aiTicket = await createTicket(app.deps, {
    orgId: org.org_id,
    actor: { kind: "agent", agentId: null },
    input: { subject: "Invoice", message: "Where is my invoice?", source: "api" },
  });
  await updateTicket(app.deps, { orgId: org.org_id, actor: { kind: "agent", agentId: null }, ticketId: aiTicket.id, patch: { status: "resolved" } });
  ticketIds.push(aiTicket.id);
  at(B + 7 * H);
  await rateTicket(app.deps, { orgId: org.org_id, ticketId: ticketIds[0]!, score: 5, comment: "Quick and kind" });
  await rateTicket(app.deps, { orgId: org.org_id, ticketId: ticketIds[1]!, score: 2 });
  await rateTicket(app.deps, { orgId: org.org_id, ticketId: aiTicket.id, score: 4 });
  await conversation(LATE, [
    { role: "customer", text: "Can I export my data?", at: LATE },
    { role: "agent", text: "Yes: Settings, then Export.", at: LATE + 1000 },
  ]);
}, 240_000);
afterAll(() => app.close());

describe("GET /api/reports/summary", () => {
  test("one millisecond before 24 quiet hours the latest answer is not yet assumed resolved", async () => {
    at(LATE + 1000 + D - 1);
    const r = await report("");
    expect(r.conversations).toBe(13);
    expect(r.ai_resolved_confirmed).toBe(1);
    expect(r.ai_resolved_assumed).toBe(3);
  });

  test("at 24 quiet hours it is; every other figure is the seeded one", async () => {
    at(LATE + 1000 + D);
    const r = await report("");
    expect(r.conversations).toBe(13);
    expect(r.ai_resolved_confirmed).toBe(1);
    expect(r.ai_resolved_assumed).toBe(4);
    expect(r.ai_resolution_rate).toEqual({ confirmed: 1 / 13, assumed: 4 / 13, total: 5 / 13 });
    expect(r.handed_off).toBe(4);
    expect(r.handoff_rate).toBe(4 / 13);
    expect(r.handoff_reasons).toEqual({ live_help: 1, routing_rule: 1, low_confidence: 1, frustration: 1 });
    expect(r.tickets).toBe(5);
    expect(r.first_response).toEqual({ count: 3, median_ms: 120_000, p90_ms: 264_000 });
    expect(r.resolution).toEqual({ count: 3, median_ms: 600_000, p90_ms: 1_080_000 }); // 0 (the AI ticket), 600 s and 1200 s
    expect(r.csat).toEqual({ person: { count: 2, average: 3.5, satisfied_rate: 0.5 }, ai: { count: 1, average: 4, satisfied_rate: 1 } });
    expect(r.by_hour[10]).toBe(13);
    expect(r.by_hour.reduce((s: number, n: number) => s + n, 0)).toBe(13);
    expect(r.first_response_business_hours).toBeNull(); // no business hours set
    // Every answer was confident; the one the customer marked "No" is the period's only gap.
    expect(r.knowledge_gaps.map((g: { questions: string[]; count: number }) => [g.questions, g.count])).toEqual([[["How do I reset my password?"], 1]]);
  });

  test("filters: another channel has no conversations; a member's tickets only", async () => {
    const email = await report("&channel=email");
    expect(email.conversations).toBe(0);
    expect(email.tickets).toBe(0);
    const api = await report("&channel=api");
    expect(api.tickets).toBe(1);
    expect(api.csat.ai.count).toBe(1);
    expect((await report(`&member=${crypto.randomUUID()}`)).tickets).toBe(0);
  });

  test("the CSV carries the same figures", async () => {
    const response = await app.request("/api/reports/summary.csv?period=custom&since=2026-01-05T00:00:00Z&until=2026-01-15T00:00:00Z", {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toStartWith("text/csv");
    const rows = new Map(
      (await response.text())
        .trim()
        .split("\r\n")
        .map((line) => line.split(",") as [string, string]),
    );
    expect(rows.get("conversations")).toBe("13");
    expect(rows.get("ai_resolved_assumed")).toBe("4");
    expect(rows.get("handoff_reason_frustration")).toBe("1");
    expect(rows.get("first_response_median_ms")).toBe("120000");
    expect(rows.get("csat_person_average")).toBe("3.5");
    expect(rows.get("conversations_hour_10")).toBe("13");
  });

  test("hours of the day in the time zone asked for (tz), UTC by default; anything but an IANA name is a 400", async () => {
    expect((await report("")).time_zone).toBe("UTC");
    const kolkata = await report("&tz=Asia/Kolkata"); // 10:00 UTC is 15:30 there
    expect(kolkata.time_zone).toBe("Asia/Kolkata");
    expect(kolkata.by_hour[15]).toBe(13);
    expect(kolkata.by_hour[10]).toBe(0);
    expect(kolkata.conversations).toBe(13);
    expect((await report("&tz=america/new_york")).by_hour[5]).toBe(13); // January: UTC-5; the name's spelling canonical
    expect((await report("&tz=America/Argentina/ComodRivadavia")).by_hour[7]).toBe(13);
    const csv = await (
      await app.request("/api/reports/summary.csv?period=custom&since=2026-01-05T00:00:00Z&until=2026-01-15T00:00:00Z&tz=Asia/Kolkata", {
        headers: { authorization: `Bearer ${admin}` },
      })
    ).text();
    expect(csv).toContain("\r\ntime_zone,Asia/Kolkata\r\n");
    expect(csv).toContain("\r\nconversations_hour_15,13\r\n");
    // US/Pacific-New: a name Intl still knows and the database's tz data no longer has (removed in 2020b).
    for (const tz of ["+05:30", "-03:00", "Nowhere/Land", "UTC+5", "US/Pacific-New", "x".repeat(64), "x".repeat(65), ""]) {
      const response = await app.request(`/api/reports/summary?period=7d&tz=${encodeURIComponent(tz)}`, { headers: { authorization: `Bearer ${admin}` } });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { details?: { path: string }[] } }).error.details?.[0]?.path).toBe("/tz");
    }
  });

  test("bad periods are 400s; no session is 401", async () => {
    const bad = (q: string) => app.request(`/api/reports/summary?${q}`, { headers: { authorization: `Bearer ${admin}` } });
    expect((await bad("period=week")).status).toBe(400);
    expect((await bad("period=custom")).status).toBe(400);
    expect((await bad("period=custom&since=nonsense-date")).status).toBe(400);
    expect((await bad("period=custom&since=2026-01-05&until=2026-01-04")).status).toBe(400);
    expect((await bad("period=custom&since=2025-01-01&until=2026-01-02T00:00:00.001Z")).status).toBe(400); // 366 days and 1 ms
    expect((await bad("period=custom&since=2025-01-01&until=2026-01-02")).status).toBe(200); // 366 days
    expect((await app.request("/api/reports/summary")).status).toBe(401);
    expect((await bad("agent=not-a-uuid")).status).toBe(400);
    expect((await bad("channel=fax")).status).toBe(400);
    // The page answers the same mistakes with the form and the reason, never a 5xx.
    const page = await app.request("/dashboard/reports?agent=not-a-uuid&channel=fax&period=custom&since=x", { headers: { authorization: `Bearer ${admin}` } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('role="alert"');
  });
});

describe("ratings", () => {
  test("a second rating changes nothing", async () => {
    const again = await rateTicket(app.deps, { orgId: org.org_id, ticketId: ticketIds[0]!, score: 1 });
    expect(again).toMatchObject({ score: 5, comment: "Quick and kind", handled_by: "person", recorded: false });
  });
  test("an open ticket cannot be rated", async () => {
    expect(await rejectionOf(rateTicket(app.deps, { orgId: org.org_id, ticketId: ticketIds[2]!, score: 3 }))).toMatchObject({ status: 409 });
  });
});

describe("GET /api/reports/overview", () => {
  test("the last 7 days beside the 7 before", async () => {
    at(B + 7 * D);
    const response = await app.request("/api/reports/overview", { headers: { authorization: `Bearer ${admin}` } });
    expect(response.status).toBe(200);
    const { headlines } = (await response.json()) as { headlines: { name: string; current: number | null; previous: number | null }[] };
    const byName = Object.fromEntries(headlines.map((h) => [h.name, h]));
    expect(byName.conversations).toEqual({ name: "conversations", current: 12, previous: 0 });
    expect(byName.first_response_median_ms!.current).toBe(120_000);
    expect(byName.csat_satisfied_rate!.current).toBeCloseTo(2 / 3, 10);
  });
});

describe("the report facts", () => {
  const facts = () =>
    queryRows<Record<string, unknown>>(
      app.deps.db,
      sql`select id, quiet_answer_at, quiet_ended_at, open_answer_at, last_turn_greeting, helpful from conversations where org_id = ${org.org_id} order by id`,
    );

  test("the migration backfills exactly what the writes kept", async () => {
    const statement = migrationFiles
      .find((m) => m.tag.endsWith("_report_facts"))!
      .sql.split("--> statement-breakpoint")
      .at(-1)!;
    expect(statement.replace(/^--.*$/gm, "").trim()).toBe(BACKFILL_SQL);
    const written = await facts();
    expect(written.filter((r) => r.quiet_answer_at !== null).length).toBe(2); // the two reopened ones
    expect(written.filter((r) => r.helpful !== null).length).toBe(2);
    await app.deps.db.execute(
      sql`update conversations set quiet_answer_at = null, quiet_ended_at = null, open_answer_at = null, last_turn_greeting = false, helpful = null where org_id = ${org.org_id}`,
    );
    await app.deps.db.execute(sql.raw(statement));
    expect(await facts()).toEqual(written);
  });
});

describe("business hours and knowledge gaps", () => {
  // Another org, open Monday to Friday 09:00–18:00 in Paris (UTC+1 in January), whose three tickets'
  // first responses cross a weekend, a night and nothing.
  let other: InboxOrg;
  let otherAdmin: string;
  const Z = (iso: string) => Date.parse(iso);
  beforeAll(async () => {
    other = await seedInboxOrg(app);
    otherAdmin = await signIn(app, other.admin_email, other.password);
    const weekday: [string, string][] = [["09:00", "18:00"]];
    const put = await app.request("/api/business-hours", {
      method: "PUT",
      headers: { authorization: `Bearer ${otherAdmin}`, "content-type": "application/json" },
      body: JSON.stringify({
        business_hours: { time_zone: "Europe/Paris", weekly: { mon: weekday, tue: weekday, wed: weekday, thu: weekday, fri: weekday }, holidays: [] },
      }),
    });
    expect(put.status).toBe(200);
    const spans = [
      ["2026-01-09T16:30:00Z", "2026-01-12T08:30:00Z"], // Friday 17:30 to Monday 09:30 in Paris: 30 + 30 min
      ["2026-01-06T21:00:00Z", "2026-01-07T08:15:00Z"], // Tuesday 22:00 to Wednesday 09:15: 15 min
      ["2026-01-07T10:00:00Z", "2026-01-07T10:02:00Z"], // within hours: 2 min
    ];
    for (const [created, replied] of spans) {
      at(Z(created!));
      const ticket = await createTicket(app.deps, {
        orgId: other.org_id,
        actor: { kind: "agent", agentId: null },
        input: { subject: "Invoice", message: "Where is my invoice?", source: "api" },
      });
      at(Z(replied!));
      await addTicketMessage(app.deps, {
        orgId: other.org_id,
        actor: { kind: "member", memberId: other.admin_id },
        ticketId: ticket.id,
        kind: "reply",
        body: "Here it is.",
      });
    }
    // Two questions the AI answered without confidence in the period, one after it.
    for (const [when, question] of [
      ["2026-01-08T12:00:00Z", "Can I pay by bank transfer from Ireland?"],
      ["2026-01-09T12:00:00Z", "Does a bank transfer from Ireland cost extra?"],
      ["2026-01-15T12:00:00Z", "Do you ship parcels to Iceland?"],
    ] as const) {
      const id = crypto.randomUUID();
      const [row] = await app.deps.db
        .insert(conversations)
        .values({ id, orgId: other.org_id, sessionHash: sha256Hex(id), anonymous: true, createdAt: new Date(Z(when)), updatedAt: new Date(Z(when)) })
        .returning();
      at(Z(when));
      await storeCustomerMessage(app.deps, row!, { text: question, images: [], mode: "chat" });
      at(Z(when) + 1000);
      await storeReply(app.deps, row!, {
        text: "I am not sure.",
        agentId: AGENT,
        actions: [],
        sources: [],
        confidence: 0.2,
        routing: null,
        status: "complete",
      });
    }
    at(Z("2026-01-20T00:00:00Z"));
    otherAdmin = await signIn(app, other.admin_email, other.password); // a session of the clock's day
  }, 240_000);

  test("first responses in calendar time and in business hours, median and 90th percentile", async () => {
    const r = await report("", otherAdmin);
    expect(r.first_response).toEqual({ count: 3, median_ms: 40_500_000, p90_ms: 192_420_000 }); // 2 min, 11 h 15 min, 64 h
    expect(r.first_response_business_hours).toEqual({ count: 3, median_ms: 900_000, p90_ms: 3_060_000 }); // 2, 15 and 60 min
    const csv = await (
      await app.request("/api/reports/summary.csv?period=custom&since=2026-01-05T00:00:00Z&until=2026-01-15T00:00:00Z", {
        headers: { authorization: `Bearer ${otherAdmin}` },
      })
    ).text();
    expect(csv).toContain("\r\nfirst_response_business_hours_median_ms,900000\r\n");
    expect(csv).toContain("\r\nfirst_response_business_hours_p90_ms,3060000\r\n");
    expect(csv).toContain("\r\nknowledge_gap_1_count,2\r\n");
  });

  test("the period's knowledge gaps, for members who may manage knowledge", async () => {
    const r = await report("", otherAdmin);
    expect(r.knowledge_gaps).toHaveLength(1);
    expect(r.knowledge_gaps[0]).toMatchObject({
      count: 2,
      questions: ["Does a bank transfer from Ireland cost extra?", "Can I pay by bank transfer from Ireland?"],
    });
    expect((await report("&channel=email", otherAdmin)).knowledge_gaps).toEqual([]);
    const viewer = await addMember(app, other.org_id, ["inbox:view"]);
    const seen = await report("", viewer.token);
    expect(seen.knowledge_gaps).toBeNull();
    expect(seen.first_response_business_hours!.median_ms).toBe(900_000);
  });
});
