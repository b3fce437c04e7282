// The one mail handler (src/outbox/mail-kind.ts; README "Email channel") for each of the four kinds
// of email — a person's ticket reply, a member's notice, a series step, an opt-in confirmation —
// against a real SMTP server on loopback: held without SMTP, a 4xx retried on the one schedule
// (MAIL_RETRY_SCHEDULE) and then delivered, a 5xx failed and never retried; what is delivered
// carries a Message-ID of the one shape, a clean display name and a DKIM signature that verifies.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { enrolCustomer } from "../../src/campaigns/enrolments.ts";
import { createCampaign, findCampaign, setCampaignStatus } from "../../src/campaigns/lifecycle.ts";
import { OPT_IN_MAIL_KIND, requestByEmail } from "../../src/campaigns/opt-in.ts";
import { CAMPAIGN_MAIL_KIND } from "../../src/campaigns/progress.ts";
import { createSender } from "../../src/compose.ts";
import { orgs, outbox } from "../../src/db/schema/index.ts";
import { MEMBER_NOTICE_KIND } from "../../src/inbox/member-notices.ts";
import { REPLY_MAIL_KIND } from "../../src/inbox/reply-mail.ts";
import { createTicket } from "../../src/inbox/tickets.ts";
import { MAIL_RETRY_SCHEDULE, NO_SMTP_REASON } from "../../src/outbox/mail-kind.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { emailEnv, verifyDkim } from "../support/email.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";
import { seedCustomer, seedSeriesOrg, type SeriesOrg, step } from "../campaigns/helpers.ts";

let smtp: TestSmtp;
let app: TestApp;
let org: SeriesOrg;
let sender: Sender;
let unsent: Sender;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await createTestApp(emailEnv(smtp.url));
  org = await seedSeriesOrg(app);
  // A hostile organisation name: the From display name is cleaned of what could break the header.
  await app.deps.db.update(orgs).set({ name: 'Acme "Support"\r\nBcc: <x@evil.example>' }).where(eq(orgs.id, org.org_id));
  sender = createSender(app.deps);
  unsent = createSender(app.deps, { transport: null }); // what the server runs without SMTP_URL
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await unsent.stop();
  await app.close();
  await smtp.close();
});

const acting = () => ({ orgId: org.org_id, actor: { kind: "system" as const, name: "test" } });
let n = 0;

/** Each kind: queue one email to a fresh address (returned), through the feature's own write. */
const kinds: { kind: string; queue(): Promise<string> }[] = [
  {
    kind: REPLY_MAIL_KIND,
    async queue() {
      const customer = await seedCustomer(app, org.org_id, { email: `reply${++n}@customer.example` });
      const res = await app.request("/api/tickets", { headers: org.auth, json: { customer_id: customer.id, subject: "Your export", message: "It is ready." } });
      expect(res.status).toBe(201);
      return customer.email!;
    },
  },
  {
    kind: MEMBER_NOTICE_KIND,
    async queue() {
      // A fresh org per case: its admin is the one member told.
      const other = await seedSeriesOrg(app);
      const customer = await seedCustomer(app, other.org_id, { email: `asker${++n}@customer.example` });
      await createTicket(app.deps, {
        orgId: other.org_id,
        actor: { kind: "customer", endUserId: customer.id },
        input: { subject: "Help", message: "Hi there", customerId: customer.id, source: "api" },
      });
      return other.admin_email;
    },
  },
  {
    kind: CAMPAIGN_MAIL_KIND,
    async queue() {
      const campaign = await createCampaign(app.deps, { ...acting(), input: { name: "Kinds", slug: `kinds-${++n}`, steps: [step("Welcome")] } });
      await setCampaignStatus(app.deps, { ...acting(), ref: campaign.id, to: "active" });
      const customer = await seedCustomer(app, org.org_id, { email: `reader${n}@customer.example` });
      await enrolCustomer(app.deps, { ...acting(), campaign: (await findCampaign(app.deps, org.org_id, campaign.id))!, endUser: customer, source: "api" });
      return customer.email!;
    },
  },
  {
    kind: OPT_IN_MAIL_KIND,
    async queue() {
      const campaign = await createCampaign(app.deps, { ...acting(), input: { name: "Opt in", slug: `opt-in-${++n}`, steps: [step("Welcome")] } });
      await setCampaignStatus(app.deps, { ...acting(), ref: campaign.id, to: "active" });
      const email = `new${n}@customer.example`;
      await requestByEmail(app.deps, { orgId: org.org_id, campaign: (await findCampaign(app.deps, org.org_id, campaign.id))!, email });
      return email;
    },
  },
];

const rowsTo = async (kind: string) => app.deps.db.select().from(outbox).where(eq(outbox.kind, kind)).orderBy(outbox.seq);
const latest = async (kind: string) => (await rowsTo(kind)).at(-1)!;
const receivedBy = (email: string) => smtp.received.filter((m) => m.to.includes(email));

describe.each(kinds)("$kind", ({ kind, queue }) => {
  test("held without SMTP, with the reason; nothing sent", async () => {
    const to = await queue();
    await unsent.tick();
    expect(await latest(kind)).toMatchObject({ status: "held", lastError: NO_SMTP_REASON, attempts: 1 });
    await sender.tick();
    expect(receivedBy(to)).toEqual([]);
  });

  test("a 4xx is retried after each wait of the one schedule, then delivered signed, with the row's Message-ID", async () => {
    const to = await queue();
    smtp.refuse(to, 451, 3);
    await sender.tick();
    for (const wait of MAIL_RETRY_SCHEDULE.slice(0, 3)) {
      const row = await latest(kind);
      expect(row).toMatchObject({ status: "pending" });
      expect(row.lastError).toContain("451");
      expect(row.runAt.getTime() - app.deps.now().getTime()).toBe(wait * 1000);
      app.clock.advance(wait * 1000 - 1000);
      await sender.tick();
      expect(receivedBy(to)).toEqual([]);
      app.clock.advance(1000);
      await sender.tick();
    }
    const row = await latest(kind);
    expect(row).toMatchObject({ status: "sent", attempts: 4 });
    const [mail, ...more] = receivedBy(to);
    expect(more).toEqual([]);
    expect(mail!.headers.get("message-id")).toMatch(/^<[0-9a-f-]{36}@acme\.example>$/);
    if (kind !== REPLY_MAIL_KIND) expect(mail!.headers.get("message-id")).toBe(`<${row.id}@acme.example>`);
    expect(mail!.headers.get("from")).toEndWith("<support@acme.example>");
    expect(mail!.raw.slice(0, mail!.raw.indexOf("\r\n\r\n"))).not.toMatch(/^Bcc:/im);
    const [verdict] = await verifyDkim(mail!.raw);
    expect(verdict!.result).toBe("pass");
  });

  test("a 5xx fails the row at once and it is never retried", async () => {
    const to = await queue();
    smtp.refuse(to, 550);
    await sender.tick();
    const row = await latest(kind);
    expect(row).toMatchObject({ status: "failed", attempts: 1 });
    expect(row.lastError).toContain("550");
    app.clock.advance(2 * 86_400_000);
    await sender.tick();
    expect(receivedBy(to)).toEqual([]);
    expect(
      (
        await app.deps.db
          .select()
          .from(outbox)
          .where(and(eq(outbox.id, row.id)))
      )[0],
    ).toMatchObject({ status: "failed", attempts: 1 });
  });
});
