// Against a real SMTP server: a temporary failure (4xx, or no server at all)
// is retried on the schedule and delivered; a permanent one (5xx) is recorded and never retried;
// a sender that dies mid-batch leaves nothing recorded as sent to be sent again — only the rows it
// had delivered but not yet recorded come back after the lease, with the same Message-ID (the
// documented at-least-once window). Also: two senders at once on one database (PGlite's single
// connection included) deliver each message once, and a sender whose claim was taken over cannot
// record over the new holder.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { enrolCustomer } from "../../src/campaigns/enrolments.ts";
import { createCampaign, findCampaign, setCampaignStatus } from "../../src/campaigns/lifecycle.ts";
import { CAMPAIGN_MAIL_KIND, queueDueSteps } from "../../src/campaigns/progress.ts";
import { listMessages } from "../../src/campaigns/queries.ts";
import { campaignMessages, outbox } from "../../src/db/schema/index.ts";
import { campaignMailHandler } from "../../src/campaigns/mail.ts";
import { MAIL_RETRY_SCHEDULE } from "../../src/outbox/mail-kind.ts";
import { claimDue, OUTBOX_LEASE_MS, recordOutcome, renewClaim } from "../../src/outbox/claim.ts";
import { createSender } from "../../src/compose.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { smtpTransport } from "../../src/mail/smtp.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { freePort } from "../support/process.ts";
import { seedCustomer, seedSeriesOrg, type SeriesOrg, step } from "../campaigns/helpers.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";

let smtp: TestSmtp;
let app: TestApp;
let org: SeriesOrg;
let sender: Sender;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await createTestApp({ SMTP_URL: smtp.url, MAIL_FROM: "news@mail.example.com" });
  org = await seedSeriesOrg(app);
  sender = createSender(app.deps);
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
  await smtp.close();
}, 30_000);

type Json = Record<string, any>;
let n = 0;
async function seriesFor(emails: string[], steps = [step("Only step")]) {
  const acting = { orgId: org.org_id, actor: { kind: "system" as const, name: "test" } };
  const campaign = await createCampaign(app.deps, { ...acting, input: { name: "Failures", slug: `failures-${++n}`, steps } });
  await setCampaignStatus(app.deps, { ...acting, ref: campaign.id, to: "active" });
  const active = (await findCampaign(app.deps, org.org_id, campaign.id))!;
  for (const email of emails)
    await enrolCustomer(app.deps, { ...acting, campaign: active, endUser: await seedCustomer(app, org.org_id, { email }), source: "api" });
  return campaign;
}
// What the dashboard's outbox API shows (GET /api/campaigns/:id/messages).
const messages = async (campaignId: string) => (await listMessages(app.deps, org.org_id, campaignId, {})).messages as Json[];
const receivedBy = (email: string) => smtp.received.filter((m) => m.to.includes(email));

describe("SMTP failures", () => {
  test("a 451 is retried after the first backoff and then delivered", async () => {
    const c = await seriesFor(["temp@example.com"]);
    smtp.refuse("temp@example.com", 451);
    await sender.tick();
    expect(receivedBy("temp@example.com")).toHaveLength(0);
    const [pending] = await messages(c.id);
    expect(pending).toMatchObject({ status: "pending", attempts: 1 });
    expect(pending!.reason).toContain("451");
    app.clock.advance(MAIL_RETRY_SCHEDULE[0] * 1000 - 1000);
    await sender.tick();
    expect(receivedBy("temp@example.com")).toHaveLength(0);
    app.clock.advance(1000);
    await sender.tick();
    expect(receivedBy("temp@example.com")).toHaveLength(1);
    expect(await messages(c.id)).toEqual([expect.objectContaining({ status: "sent", attempts: 2, reason: null })]);
  });

  test("a 550 is recorded with its reason and never retried", async () => {
    const c = await seriesFor(["perm@example.com"]);
    smtp.refuse("perm@example.com", 550);
    await sender.tick();
    const [failed] = await messages(c.id);
    expect(failed).toMatchObject({ status: "failed", attempts: 1 });
    expect(failed!.reason).toContain("550");
    app.clock.advance(2 * 86_400_000);
    await sender.tick();
    expect(receivedBy("perm@example.com")).toHaveLength(0);
    expect((await messages(c.id))[0]).toMatchObject({ status: "failed", attempts: 1 });
  });

  test("temporary failures are retried on the whole schedule, then the message fails naming the attempts", async () => {
    const c = await seriesFor(["always-busy@example.com"]);
    smtp.refuse("always-busy@example.com", 452, MAIL_RETRY_SCHEDULE.length + 1);
    await sender.tick();
    for (const wait of MAIL_RETRY_SCHEDULE) {
      app.clock.advance(wait * 1000);
      await sender.tick();
    }
    const [failed] = await messages(c.id);
    expect(failed).toMatchObject({ status: "failed", attempts: MAIL_RETRY_SCHEDULE.length + 1 });
    expect(failed!.reason).toStartWith(`gave up after ${MAIL_RETRY_SCHEDULE.length + 1} attempts`);
    expect(receivedBy("always-busy@example.com")).toHaveLength(0);
  }, 30_000);

  test("no server listening is a temporary failure", async () => {
    const down = createSender(app.deps, { transport: smtpTransport({ smtpUrl: `smtp://127.0.0.1:${freePort()}` }) });
    const c = await seriesFor(["down@example.com"]);
    await down.tick();
    await down.stop();
    const [pending] = await messages(c.id);
    expect(pending).toMatchObject({ status: "pending", attempts: 1 });
    expect(pending!.reason).toContain("connection");
    app.clock.advance(MAIL_RETRY_SCHEDULE[0] * 1000);
    await sender.tick();
    expect(receivedBy("down@example.com")).toHaveLength(1);
  });
});

describe("crash and concurrency", () => {
  test("a sender dies mid-batch: rows it recorded as sent are never sent again; the others are delivered after the lease", async () => {
    const emails = Array.from({ length: 10 }, (_, i) => `crash${i}@example.com`);
    const c = await seriesFor(emails);
    expect(await queueDueSteps(app.deps)).toBe(10);
    // The doomed sender claims everything, delivers five, records three, and dies.
    const transport = smtpTransport(app.deps.config)!;
    const handler = campaignMailHandler(app.deps, transport);
    const claimed = await claimDue(app.deps, [CAMPAIGN_MAIL_KIND], 10);
    expect(claimed).toHaveLength(10);
    for (const row of claimed.slice(0, 5)) expect(await handler.deliver(row)).toEqual({ kind: "sent" });
    for (const row of claimed.slice(0, 3)) expect(await recordOutcome(app.deps, row, handler, { kind: "sent" })).toBe(true);
    transport.close();
    const recorded = new Set(claimed.slice(0, 3).map((r) => r.id));

    // Within the lease, another sender leaves the dead one's rows alone.
    await sender.tick();
    expect(emails.flatMap(receivedBy)).toHaveLength(5);
    app.clock.advance(OUTBOX_LEASE_MS);
    await sender.tick();
    const counts = new Map<string, number>();
    for (const mail of emails.flatMap(receivedBy)) counts.set(mail.headers.get("message-id")!, (counts.get(mail.headers.get("message-id")!) ?? 0) + 1);
    const idOf = (rowId: string) => `<${rowId}@mail.example.com>`;
    for (const row of claimed) {
      const expected = recorded.has(row.id) ? 1 : claimed.indexOf(row) < 5 ? 2 : 1;
      expect([row.id, counts.get(idOf(row.id))]).toEqual([row.id, expected]);
    }
    expect((await messages(c.id)).every((m) => m.status === "sent")).toBe(true);
    // The three recorded rows were claimed once; the others twice.
    const attempts = await app.deps.db
      .select({ id: outbox.id, attempts: outbox.attempts })
      .from(outbox)
      .innerJoin(campaignMessages, eq(campaignMessages.outboxId, outbox.id))
      .where(eq(campaignMessages.campaignId, c.id));
    for (const row of attempts) expect(row.attempts).toBe(recorded.has(row.id) ? 1 : 2);
  }, 30_000);

  test("a sender whose lease expired cannot record over the sender that took the row", async () => {
    await seriesFor(["fenced@example.com"]);
    await queueDueSteps(app.deps);
    const handler = campaignMailHandler(app.deps, null);
    const [first] = await claimDue(app.deps, [CAMPAIGN_MAIL_KIND], 1);
    app.clock.advance(OUTBOX_LEASE_MS);
    const [second] = await claimDue(app.deps, [CAMPAIGN_MAIL_KIND], 1);
    expect(second!.id).toBe(first!.id);
    expect(await recordOutcome(app.deps, first!, handler, { kind: "failed", reason: "stale" })).toBe(false);
    expect(await recordOutcome(app.deps, second!, handler, { kind: "sent" })).toBe(true);
    const [row] = await app.deps.db.select().from(outbox).where(eq(outbox.id, first!.id));
    expect(row).toMatchObject({ status: "sent", attempts: 2 });
  });

  test("a row that waited in a batch past its lease, and was claimed elsewhere, is not delivered by the first sender", async () => {
    await seriesFor(["waited@example.com"]);
    await queueDueSteps(app.deps);
    const [first] = await claimDue(app.deps, [CAMPAIGN_MAIL_KIND], 1);
    app.clock.advance(OUTBOX_LEASE_MS);
    const [second] = await claimDue(app.deps, [CAMPAIGN_MAIL_KIND], 1);
    expect(second!.id).toBe(first!.id);
    // The first sender reaches the row only now: its claim is gone, so it must not send.
    expect(await renewClaim(app.deps, first!)).toBe(false);
    expect(await renewClaim(app.deps, second!)).toBe(true);
    const [row] = await app.deps.db.select().from(outbox).where(eq(outbox.id, first!.id));
    expect(row!.lockedUntil!.getTime()).toBe(app.clock.now.getTime() + OUTBOX_LEASE_MS);
  });

  test("two senders ticking at once deliver each of 40 messages exactly once", async () => {
    const emails = Array.from({ length: 40 }, (_, i) => `both${i}@example.com`);
    await seriesFor(emails, [step("One"), step("Two", 0)]);
    const other = createSender(app.deps, { batch: 3 });
    const mine = createSender(app.deps, { batch: 3 });
    await Promise.all([other.tick(), mine.tick(), other.tick(), mine.tick()]);
    await Promise.all([other.stop(), mine.stop()]);
    const got = emails.flatMap(receivedBy);
    expect(got).toHaveLength(80);
    expect(new Set(got.map((m) => m.headers.get("message-id"))).size).toBe(80);
  }, 30_000);
});

describe("credentials from SMTP_URL", () => {
  test("the URL's user and password authenticate; wrong ones are a temporary failure (our account, not the message)", async () => {
    const secured = await startSmtp({ auth: { user: "mailer", pass: "s3cr@t" } });
    try {
      const c = await seriesFor(["auth@example.com"]);
      const wrong = createSender(app.deps, { transport: smtpTransport({ smtpUrl: `smtp://mailer:nope@127.0.0.1:${secured.port}` }) });
      await wrong.tick();
      await wrong.stop();
      const [pending] = await messages(c.id);
      expect(pending).toMatchObject({ status: "pending", attempts: 1 });
      expect(pending!.reason).toContain("authentication failed");
      expect(pending!.reason).not.toContain("nope");
      app.clock.advance(MAIL_RETRY_SCHEDULE[0] * 1000);
      const right = createSender(app.deps, {
        transport: smtpTransport({ smtpUrl: `smtp://mailer:${encodeURIComponent("s3cr@t")}@127.0.0.1:${secured.port}` }),
      });
      await right.tick();
      await right.stop();
      expect(secured.received.map((m) => m.to)).toEqual([["auth@example.com"]]);
      expect((await messages(c.id))[0]).toMatchObject({ status: "sent", attempts: 2 });
    } finally {
      await secured.close();
    }
  });
});
