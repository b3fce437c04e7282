// "Send and resolve" on an email ticket: the reply and the rating email are queued in the same
// second, and the rating email follows the reply — it is handed to SMTP only after the reply was
// accepted (docs/decisions.md "The rating email follows the reply"). The loopback SMTP server takes
// a moment to accept each message, so two messages sent side by side would overlap there.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createSender } from "../../src/compose.ts";
import { addTicketMessage, createTicket, updateTicket } from "../../src/inbox/tickets.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { emailEnv } from "../support/email.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";
import { type InboxOrg, seedCustomer, seedInboxOrg } from "./helpers.ts";

let smtp: TestSmtp;
let app: TestApp;
let sender: Sender;
let org: InboxOrg;

beforeAll(async () => {
  smtp = await startSmtp({ delayMs: 300 });
  app = await createTestApp(emailEnv(smtp.url));
  org = await seedInboxOrg(app);
  sender = createSender(app.deps);
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
  await smtp.close();
});

test("the rating email reaches the SMTP server after the reply, never beside or before it", async () => {
  const member = { kind: "member" as const, memberId: org.admin_id };
  const address = "order@customer.example";
  const customer = await seedCustomer(app, org.org_id, { email: address, name: "Dana" });
  const ticket = await createTicket(app.deps, {
    orgId: org.org_id,
    actor: member,
    input: { subject: "Broken lamp", message: "The lamp arrived broken.", customerId: customer.id, source: "email" },
  });
  // What the dashboard's "Send and resolve" does: the reply, then the status.
  await addTicketMessage(app.deps, { orgId: org.org_id, actor: member, ticketId: ticket.id, kind: "reply", body: "A new lamp is on its way." });
  await updateTicket(app.deps, { orgId: org.org_id, actor: member, ticketId: ticket.id, patch: { status: "resolved" } });
  await sender.tick();

  const mails = smtp.received.filter((m) => m.to.includes(address));
  expect(mails.map((m) => m.headers.get("subject"))).toEqual(["Re: Broken lamp", `Request #${ticket.number} is resolved: how did we do?`]);
  const [reply, rating] = mails.map((m) => m.transaction);
  const events = smtp.events.filter((e) => e.to === address);
  const replyAccepted = events.findIndex((e) => e.event === "accepted" && e.transaction === reply);
  const ratingStarted = events.findIndex((e) => e.event === "rcpt" && e.transaction === rating);
  expect(replyAccepted).toBeGreaterThanOrEqual(0);
  expect(ratingStarted).toBeGreaterThan(replyAccepted);
});
