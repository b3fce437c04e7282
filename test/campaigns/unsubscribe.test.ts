// docs/interface.md F: the link of a received message shows a confirmation page
// on GET (and unsubscribes no one: scanners prefetch), a one-click POST with no session and no
// cookie unsubscribes at once (form-encoded or empty body), and the customer
// then gets nothing more from any campaign of the org — queued messages included.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { enrolCustomer } from "../../src/campaigns/enrolments.ts";
import { createCampaign, findCampaign, setCampaignStatus } from "../../src/campaigns/lifecycle.ts";
import { queueDueSteps } from "../../src/campaigns/progress.ts";
import { listMessages } from "../../src/campaigns/queries.ts";
import { activityLog, mailUnsubscribes, mailUnsubscribeTokens } from "../../src/db/schema/index.ts";
import { createSender } from "../../src/compose.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { PAGE_CSP } from "../../src/html/html.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { seedCustomer, seedSeriesOrg, type SeriesOrg, step } from "./helpers.ts";
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

const acting = () => ({ orgId: org.org_id, actor: { kind: "system" as const, name: "test" } });
async function activeSeries(slug: string, steps: ReturnType<typeof step>[]) {
  const c = await createCampaign(app.deps, { ...acting(), input: { name: `Series ${slug}`, slug, steps } });
  await setCampaignStatus(app.deps, { ...acting(), ref: c.id, to: "active" });
  return (await findCampaign(app.deps, org.org_id, c.id))!;
}

test("GET confirms without unsubscribing; a one-click POST with no session stops every campaign's mail", async () => {
  const customer = await seedCustomer(app, org.org_id, { email: "grace@example.com", name: "Grace" });
  const other = await seedCustomer(app, org.org_id, { email: "other@example.com" });
  const welcome = await activeSeries("welcome-u", [step("W1"), step("W2", 60), step("W3", 120)]);
  const news = await activeSeries("news-u", [step("N1", 30), step("N2", 30)]);
  for (const campaign of [welcome, news])
    for (const endUser of [customer, other]) await enrolCustomer(app.deps, { ...acting(), campaign, endUser, source: "api" });
  await sender.tick();
  const first = smtp.received.find((m) => m.to.includes("grace@example.com"))!;
  expect(first.headers.get("subject")).toBe("W1");
  const url = first.headers.get("list-unsubscribe")!.slice(1, -1);
  const path = new URL(url).pathname;

  // GET: a confirmation page under the strict CSP, the address masked; nothing changes.
  for (let i = 0; i < 3; i++) {
    const page = await app.request(path);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toBe(PAGE_CSP);
    const body = await page.text();
    expect(body).toContain('<form method="post">');
    expect(body).toContain("g***@example.com");
  }
  expect(await app.deps.db.select().from(mailUnsubscribes)).toHaveLength(0);

  // Queue N1 for both customers (due in 30 s) so the unsubscribe has something queued to cancel.
  app.clock.advance(30_000);
  await queueDueSteps(app.deps);

  // POST, as a mailbox provider sends it (RFC 8058 section 3.2): no cookie, no Origin, no session.
  const res = await app.handle(
    new Request(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click" }),
  );
  expect(res.status).toBe(200);
  expect(await res.text()).toContain("You are unsubscribed");
  expect(await app.deps.db.select().from(mailUnsubscribes).where(eq(mailUnsubscribes.endUserId, customer.id))).toHaveLength(1);
  // The queued N1 is cancelled, not sent.
  const queued = await listMessages(app.deps, org.org_id, news.id, { customerId: customer.id });
  expect(queued.messages.map((m) => [m.subject, m.status, m.reason])).toEqual([["N1", "cancelled", "customer unsubscribed"]]);

  // Nothing more, ever, from either campaign; the other customer carries on.
  for (let i = 0; i < 5; i++) {
    app.clock.advance(60_000);
    await sender.tick();
  }
  const toGrace = smtp.received.filter((m) => m.to.includes("grace@example.com")).map((m) => m.headers.get("subject"));
  expect(toGrace).toEqual(["W1"]);
  const toOther = smtp.received.filter((m) => m.to.includes("other@example.com")).map((m) => m.headers.get("subject"));
  expect(toOther.sort()).toEqual(["N1", "N2", "W1", "W2", "W3"]);
  // Enrolling again changes nothing: the state says why.
  const again = await enrolCustomer(app.deps, { ...acting(), campaign: welcome, endUser: customer, source: "api" });
  expect(again.enrolment.state).toBe("unsubscribed");
  app.clock.advance(3600_000);
  await sender.tick();
  expect(smtp.received.filter((m) => m.to.includes("grace@example.com"))).toHaveLength(1);

  // The same link again (here with no body at all) is harmless; GET now says so.
  const twice = await app.request(path, { method: "POST" });
  expect(twice.status).toBe(200);
  expect(await (await app.request(path)).text()).toContain("You are unsubscribed");
  const logged = await app.deps.db.select().from(activityLog).where(eq(activityLog.action, "campaign.unsubscribed"));
  expect(logged).toHaveLength(1);
  expect(logged[0]).toMatchObject({ actorKind: "customer", objectId: customer.id });
}, 30_000);

test("tokens are stored hashed, and an unknown, malformed or over-long token is a 404 page", async () => {
  const rows = await app.deps.db.select().from(mailUnsubscribeTokens);
  expect(rows.length).toBeGreaterThan(0);
  const urls = smtp.received.map((m) => m.headers.get("list-unsubscribe")!.slice(1, -1));
  const tokens = urls.map((u) => u.split("/u/")[1]!);
  for (const row of rows) expect(tokens).not.toContain(row.tokenHash);
  for (const token of ["A".repeat(43), "short", "x".repeat(128)]) {
    for (const method of ["GET", "POST"]) {
      const res = await app.request(`/u/${token}`, { method });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-security-policy")).toBe(PAGE_CSP);
    }
  }
  expect((await app.request(`/u/${"x".repeat(129)}`, { method: "POST" })).status).toBeGreaterThanOrEqual(400);
});
