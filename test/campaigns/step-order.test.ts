// Steps arrive in order (README "Email series"): a customer's step n+1 is never handed to SMTP
// before step n was accepted, even when step n+1 has no delay. A real SMTP server on loopback
// (accepting each message after a short pause, so deliveries overlap) records, in order, every
// recipient it was handed (RCPT TO) and every message it accepted; the sender's pool runs several
// deliveries at once over several connections, as in production.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createSender } from "../../src/compose.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";

const CUSTOMERS = 12;

let smtp: TestSmtp;
let app: TestApp;
let sender: Sender;
let auth: Record<string, string>;

beforeAll(async () => {
  smtp = await startSmtp({ delayMs: 20 });
  app = await createTestApp({ SMTP_URL: smtp.url, MAIL_FROM: "news@mail.example.com" });
  const org = await seedOrg(app);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  sender = createSender(app.deps);
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
  await smtp.close();
});

test(`step 2 with delay 0 is handed to SMTP only after step 1 was accepted, for each of ${CUSTOMERS} customers`, async () => {
  const created = await app.request("/api/campaigns", {
    headers: auth,
    json: {
      name: "Onboarding",
      slug: "onboarding",
      steps: [
        { delay_seconds: 0, subject: "Step 1", body: "First." },
        { delay_seconds: 0, delay_from: "previous", subject: "Step 2", body: "Second." },
      ],
    },
  });
  expect(created.status).toBe(201);
  expect((await app.request("/api/campaigns/onboarding/activate", { method: "POST", headers: auth })).status).toBe(200);
  const addresses: string[] = [];
  for (let i = 0; i < CUSTOMERS; i++) {
    const email = `customer-${i}@example.com`;
    addresses.push(email);
    expect((await app.request("/api/customers", { headers: auth, json: { external_id: `c-${i}`, email, name: `Customer ${i}` } })).status).toBe(201);
    expect((await app.request("/api/campaigns/onboarding/enrolments", { headers: auth, json: { customer_id: `c-${i}` } })).status).toBe(201);
  }

  // The clock does not move: both steps are due at once. A pass ends when its deliveries, and
  // the claims they made room for, have ended; a few passes deliver everything.
  for (let pass = 0; pass < 10 && smtp.received.length < 2 * CUSTOMERS; pass++) await sender.tick();
  expect(smtp.received).toHaveLength(2 * CUSTOMERS);

  const subjectOf = new Map(smtp.received.map((m) => [m.transaction, m.headers.get("subject")]));
  for (const address of addresses) {
    const mine = smtp.events.filter((e) => e.to === address).map((e) => ({ ...e, subject: subjectOf.get(e.transaction) }));
    // Handed step 1, step 1 accepted, then handed step 2, step 2 accepted: nothing else, in this order.
    expect(mine.map((e) => `${e.event} ${e.subject}`)).toEqual(["rcpt Step 1", "accepted Step 1", "rcpt Step 2", "accepted Step 2"]);
  }
}, 60_000);
