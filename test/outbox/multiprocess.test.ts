// With real server processes on one PostgreSQL: two instances deliver
// every due message of 200 enrolments exactly once between them; and an instance killed (SIGKILL)
// mid-batch and restarted sends nothing twice that it had recorded as sent. PGlite is
// single-process (the same guarantees are shown in-process in failures.test.ts), so this runs on
// the PostgreSQL pass only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { inArray, sql } from "drizzle-orm";
import { enrolCustomer } from "../../src/campaigns/enrolments.ts";
import { createCampaign, findCampaign, setCampaignStatus } from "../../src/campaigns/lifecycle.ts";
import { campaignMessages, endUsers, outbox } from "../../src/db/schema/index.ts";
import { engine } from "../support/db.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { type RunningServer, startServer } from "../support/process.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";

if (engine !== "postgres") console.log("test/outbox/multiprocess.test.ts: PostgreSQL only (set TEST_DATABASE_URL); skipped on PGlite");

describe.skipIf(engine !== "postgres")("sender processes on one PostgreSQL", () => {
  let app: TestApp;
  let orgId: string;
  const servers: RunningServer[] = [];
  const smtps: TestSmtp[] = [];

  beforeAll(async () => {
    app = await createTestApp();
    orgId = (await seedOrg(app)).org_id;
  }, 60_000);
  afterAll(async () => {
    for (const s of servers) if (s.proc.exitCode === null) await s.stop();
    for (const s of smtps) await s.close();
    await app.close();
  }, 60_000);

  const env = (smtp: TestSmtp, from: string) => ({
    DATABASE_URL: app.database.url!,
    SECRET_KEY: app.deps.config.secretKey!.toString("base64"),
    SEED_DEMO: "0",
    LOG_LEVEL: "warn",
    SMTP_URL: smtp.url,
    MAIL_FROM: from,
  });

  async function seriesWith(slug: string, customers: number) {
    const acting = { orgId, actor: { kind: "system" as const, name: "test" } };
    const c = await createCampaign(app.deps, {
      ...acting,
      input: { name: slug, slug, steps: [{ delay_seconds: 0, subject: "Hello {{name}}", body: "Welcome." }] },
    });
    await setCampaignStatus(app.deps, { ...acting, ref: c.id, to: "active" });
    const campaign = (await findCampaign(app.deps, orgId, c.id))!;
    const users = await app.deps.db
      .insert(endUsers)
      .values(Array.from({ length: customers }, (_, i) => ({ orgId, email: `${slug}-${i}@example.com`, name: `Customer ${i}`, verified: true })))
      .returning();
    // Enrolled "now" by the test's clock, which started at the real time the servers use.
    for (const endUser of users) await enrolCustomer(app.deps, { ...acting, campaign, endUser, source: "api" });
    return campaign;
  }

  async function until(what: string, check: () => boolean | Promise<boolean>, ms = 120_000) {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${await stateOfThings()}`);
      await Bun.sleep(200);
    }
  }

  /** What a timeout shows: the outbox rows by state (with their errors) and the end of each server's log. */
  async function stateOfThings(): Promise<string> {
    const rows = await app.deps.db
      .select({ status: outbox.status, attempts: outbox.attempts, lastError: outbox.lastError, n: sql<number>`count(*)::int` })
      .from(outbox)
      .groupBy(outbox.status, outbox.attempts, outbox.lastError);
    const logs = servers.map((s, i) => `server ${i} (exit ${s.proc.exitCode}): ${s.stderr().slice(-1500)}${s.stdout().slice(-1500)}`);
    return [JSON.stringify(rows), ...logs].join("\n");
  }

  test("two instances deliver every message of 200 enrolments exactly once", async () => {
    const smtp = await startSmtp();
    smtps.push(smtp);
    servers.push(await startServer(env(smtp, "one@mail.example.com")), await startServer(env(smtp, "two@mail.example.com")));
    await seriesWith("pair", 200);
    await until("200 messages", () => smtp.received.length >= 200);
    await Bun.sleep(3000); // a duplicate would arrive within a few ticks
    expect(smtp.received).toHaveLength(200);
    expect(new Set(smtp.received.map((m) => m.headers.get("message-id"))).size).toBe(200);
    expect(new Set(smtp.received.map((m) => m.to[0])).size).toBe(200);
    // Both instances took part (the envelope sender says which one sent).
    const bySender = Map.groupBy(smtp.received, (m) => m.from);
    expect([...bySender.keys()].sort()).toEqual(["one@mail.example.com", "two@mail.example.com"]);
    for (const s of servers.splice(0)) await s.stop();
  }, 180_000);

  test("killed mid-batch and restarted: nothing recorded as sent is sent again", async () => {
    const smtp = await startSmtp({ delayMs: 40 });
    smtps.push(smtp);
    const first = await startServer(env(smtp, "crash@mail.example.com"));
    servers.push(first);
    const campaign = await seriesWith("crash", 60);
    await until("a batch under way", () => smtp.received.length >= 15);
    first.proc.kill("SIGKILL");
    await first.proc.exited;
    const rows = await app.deps.db
      .select({ id: outbox.id, status: outbox.status })
      .from(outbox)
      .where(
        inArray(
          outbox.id,
          app.deps.db.select({ id: campaignMessages.outboxId }).from(campaignMessages).where(sql`${campaignMessages.campaignId} = ${campaign.id}`),
        ),
      );
    const recordedSent = rows.filter((r) => r.status === "sent").map((r) => `<${r.id}@mail.example.com>`);
    expect(recordedSent.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.status !== "sent")).toBe(true); // it really died mid-batch
    // The dead instance's claims would be taken over when their lease (5 minutes) runs out; the
    // test makes them run out now instead of waiting.
    await app.deps.db.update(outbox).set({ lockedUntil: sql`now()` }).where(sql`${outbox.status} = 'sending'`);
    servers.push(await startServer(env(smtp, "crash@mail.example.com")));
    // A bound for a stall, not a speed: a message caught by the kill may wait out one retry (30 s).
    await until("every message delivered", async () => new Set(smtp.received.map((m) => m.headers.get("message-id"))).size >= 60, 240_000);
    await Bun.sleep(3000);
    const counts = new Map<string, number>();
    for (const m of smtp.received) counts.set(m.headers.get("message-id")!, (counts.get(m.headers.get("message-id")!) ?? 0) + 1);
    expect(counts.size).toBe(60);
    for (const id of recordedSent) expect([id, counts.get(id)]).toEqual([id, 1]);
    // Only a message in flight at the kill (accepted, not yet recorded) may arrive twice: the
    // at-least-once window, at most one message per concurrent delivery (4).
    const twice = [...counts].filter(([, n]) => n > 1);
    expect(twice.length).toBeLessThanOrEqual(4);
    for (const [, n] of twice) expect(n).toBe(2);
  }, 300_000);
});
