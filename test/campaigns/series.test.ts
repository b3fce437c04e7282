// A real SMTP server on loopback receives the steps of a three-step series
// at the right times (the test moves the clock), with the right variables, the RFC 8058
// unsubscribe headers, and both a text and an HTML part.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createSender } from "../../src/compose.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";

let smtp: TestSmtp;
let app: TestApp;
let sender: Sender;
let auth: Record<string, string>;

beforeAll(async () => {
  smtp = await startSmtp();
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

test("three steps arrive at their times with variables, unsubscribe headers and both parts", async () => {
  const customer = await app.request("/api/customers", {
    headers: auth,
    json: { external_id: "u-ada", email: "ada@example.com", name: "Ada <b>Lovelace</b>", traits: { plan: "pro", seats: 3 } },
  });
  expect(customer.status).toBe(201);
  const created = await app.request("/api/campaigns", {
    headers: auth,
    json: {
      name: "Welcome",
      slug: "welcome",
      sender: { name: "Acme Team", reply_to: "help@acme.example" },
      steps: [
        {
          delay_seconds: 0,
          subject: "Welcome, {{first_name}}",
          body: 'Hi **{{name}}**, you are on {{traits.plan}} with {{traits.seats}} seats at {{company.name | "your company"}}.',
        },
        { delay_seconds: 60, delay_from: "previous", subject: "Tips for {{traits.plan}}", body: "Step two for {{email}}." },
        { delay_seconds: 3600, delay_from: "enrolment", subject: "One hour in", body: 'Hello {{traits.missing | "there"}}.' },
      ],
    },
  });
  expect(created.status).toBe(201);
  const campaign = (await created.json()) as any;
  expect(campaign.status).toBe("draft");
  expect((await app.request("/api/campaigns/welcome/activate", { method: "POST", headers: auth })).status).toBe(200);
  const enrolled = await app.request("/api/campaigns/welcome/enrolments", { headers: auth, json: { customer_id: "u-ada" } });
  expect(enrolled.status).toBe(201);

  await sender.tick();
  expect(smtp.received).toHaveLength(1);
  const first = smtp.received[0]!;
  expect(first.to).toEqual(["ada@example.com"]);
  expect(first.from).toBe("news@mail.example.com");
  expect(first.headers.get("from")).toContain("Acme Team");
  expect(first.headers.get("reply-to")).toContain("help@acme.example");
  expect(first.headers.get("subject")).toBe("Welcome, Ada");
  expect(first.contentType).toStartWith("multipart/alternative");
  const unsubscribe = first.headers.get("list-unsubscribe")!;
  expect(unsubscribe).toMatch(/^<http:\/\/localhost:3000\/u\/[A-Za-z0-9_-]{43}>$/);
  expect(first.headers.get("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
  expect(first.headers.get("message-id")).toMatch(/^<[0-9a-f-]{36}@mail\.example\.com>$/);
  const text = first.parts.get("text/plain")!;
  const html = first.parts.get("text/html")!;
  expect(text).toContain("Hi **Ada <b>Lovelace</b>**, you are on pro with 3 seats at your company.");
  expect(text).toContain(`Unsubscribe: ${unsubscribe.slice(1, -1)}`);
  // Markdown rendered; the variable escaped, never markup.
  expect(html).toContain("<strong>Ada &#60;b&#62;Lovelace&#60;/b&#62;</strong>");
  expect(html).not.toContain("<b>Lovelace");
  expect(html).toContain(`href="${unsubscribe.slice(1, -1)}"`);

  // Step two: 60 s after the first.
  app.clock.advance(59_000);
  await sender.tick();
  expect(smtp.received).toHaveLength(1);
  app.clock.advance(1_000);
  await sender.tick();
  expect(smtp.received).toHaveLength(2);
  expect(smtp.received[1]!.headers.get("subject")).toBe("Tips for pro");
  expect(smtp.received[1]!.parts.get("text/plain")).toContain("Step two for ada@example.com.");

  // Step three: an hour after enrolment.
  app.clock.advance(3600_000 - 61_000);
  await sender.tick();
  expect(smtp.received).toHaveLength(2);
  app.clock.advance(1_000);
  await sender.tick();
  expect(smtp.received).toHaveLength(3);
  expect(smtp.received[2]!.parts.get("text/plain")).toContain("Hello there.");
  // Every message has its own Message-ID and unsubscribe token.
  expect(new Set(smtp.received.map((m) => m.headers.get("message-id"))).size).toBe(3);
  expect(new Set(smtp.received.map((m) => m.headers.get("list-unsubscribe"))).size).toBe(3);

  // Nothing more, ever: the enrolment is complete and the outbox shows three sent messages.
  app.clock.advance(86_400_000);
  await sender.tick();
  expect(smtp.received).toHaveLength(3);
  const messages = (await (await app.request(`/api/campaigns/${campaign.id}/messages`, { headers: auth })).json()) as any;
  expect(messages.messages.map((m: any) => m.status)).toEqual(["sent", "sent", "sent"]);
  expect(messages.messages.map((m: any) => m.message_id).sort()).toEqual(smtp.received.map((m) => m.headers.get("message-id")).sort());
  const enrolments = (await (await app.request(`/api/campaigns/${campaign.id}/enrolments`, { headers: auth })).json()) as any;
  expect(enrolments.enrolments[0].state).toBe("completed");
}, 30_000);
