// Issue #13 must-show 6: with no SMTP_URL (the embedded default of a fresh clone) mail is rendered
// and kept: the outbox API shows every message with "not sent: no SMTP configured", and nothing
// claims to have been delivered. A customer without an address is held with its own reason.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createSender, type Sender } from "../../src/mail/sender.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { seedCustomer, seedSeriesOrg, type SeriesOrg } from "../campaigns/helpers.ts";

let app: TestApp;
let org: SeriesOrg;
let sender: Sender;

beforeAll(async () => {
  app = await createTestApp();
  expect(app.deps.config.smtpUrl).toBeUndefined();
  org = await seedSeriesOrg(app);
  sender = createSender(app.deps);
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
});

test("the outbox API shows rendered messages with their not-sent reason", async () => {
  const auth = org.auth;
  const withMail = await seedCustomer(app, org.org_id, { email: "kept@example.com", name: "Kept Person", externalId: "u-kept" });
  const noMail = await seedCustomer(app, org.org_id, { email: null, name: "No Address", externalId: "u-nomail" });
  const created = await app.request("/api/campaigns", {
    headers: auth,
    json: { name: "Kept", slug: "kept", steps: [{ delay_seconds: 0, subject: "Hello {{first_name}}", body: "Welcome, *{{name}}*." }, { delay_seconds: 10, subject: "Later", body: "Again." }] },
  });
  expect(created.status).toBe(201);
  expect((await app.request("/api/campaigns/kept/activate", { method: "POST", headers: auth })).status).toBe(200);
  for (const id of ["u-kept", "u-nomail"]) expect((await app.request("/api/campaigns/kept/enrolments", { headers: auth, json: { customer_id: id } })).status).toBe(201);
  await sender.tick();
  app.clock.advance(10_000);
  await sender.tick();

  const res = await app.request(`/api/campaigns/kept/messages?customer=${withMail.id}`, { headers: auth });
  expect(res.status).toBe(200);
  const { messages } = (await res.json()) as { messages: Record<string, any>[] };
  expect(messages.map((m) => [m.subject, m.status, m.reason, m.sent_at])).toEqual([
    ["Later", "held", "not sent: no SMTP configured", null],
    ["Hello Kept", "held", "not sent: no SMTP configured", null],
  ]);
  const hello = messages[1]!;
  expect(hello.to).toBe("kept@example.com");
  expect(hello.text).toContain("Welcome, *Kept Person*.");
  expect(hello.html).toContain("<em>Kept Person</em>");
  expect(hello.message_id).toMatch(/^<[0-9a-f-]{36}@localhost\.localdomain>$/);
  const unaddressed = (await (await app.request(`/api/campaigns/kept/messages?customer=${noMail.id}`, { headers: auth })).json()) as { messages: Record<string, any>[] };
  expect(unaddressed.messages.map((m) => [m.status, m.reason])).toEqual([
    ["held", "not sent: customer has no email address"],
    ["held", "not sent: customer has no email address"],
  ]);
  expect((await (await app.request("/api/campaigns/kept/messages?status=sent", { headers: auth })).json()).messages).toEqual([]);
});
