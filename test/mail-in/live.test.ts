// The customer's email answer reaches the widget that follows the conversation (README "Email
// channel", "Live conversation"): a chat handed to a person, the person's reply emailed while the
// customer is away, the customer's answer sent by SMTP to the reply address — and the widget's
// event stream, opened afterwards from its cursor, gets that answer as the customer's message.
import { afterAll, beforeAll, expect, test } from "bun:test";
import nodemailer from "nodemailer";
import { createSender } from "../../src/compose.ts";
import { startInboundSmtp, type InboundSmtp } from "../../src/mail-in/smtp.ts";
import { REPLY_SEEN_GRACE_MS } from "../../src/inbox/reply-mail.ts";
import { addTicketMessage } from "../../src/inbox/tickets.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { chatJson, type ChatOrg, seedChatOrg } from "../support/chat.ts";
import { emailEnv } from "../support/email.ts";
import { freePort } from "../support/process.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";
import { readEvents } from "../support/sse.ts";

let smtp: TestSmtp;
let app: TestApp;
let sender: Sender;
let inbound: InboundSmtp;
let org: ChatOrg;

beforeAll(async () => {
  smtp = await startSmtp();
  const port = freePort();
  app = await createTestApp(emailEnv(smtp.url, { INBOUND_SMTP_PORT: String(port), NODE_ENV: "development" }));
  inbound = await startInboundSmtp(app.deps, port, "127.0.0.1");
  sender = createSender(app.deps);
  org = await seedChatOrg(app, { docs: false });
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await inbound.close();
  await app.close();
  await smtp.close();
});

test("an email answer to a person's reply reaches the widget's event stream as the customer's message", async () => {
  const widget = { authorization: `Bearer ${org.widget_key}` };
  expect((await app.request("/api/sdk/users/identify", { headers: widget, json: { user_id: "mail-1", email: "ria@customer.example" } })).status).toBe(200);
  const handed = await chatJson(app, org, { message: "I want to talk to a person", user_id: "mail-1" });
  const sessionId = handed.session_id as string;
  const ticketId = handed.routing.ticket_id as string;

  // The person answers while nobody follows the conversation: the reply is emailed.
  const [member] = await app.deps.db.query.members.findMany({ limit: 1 });
  await addTicketMessage(app.deps, {
    orgId: org.org_id,
    actor: { kind: "member", memberId: member!.id },
    ticketId,
    kind: "reply",
    body: "Hi Ria, which plan are you on?",
  });
  app.clock.advance(REPLY_SEEN_GRACE_MS); // no widget received it meanwhile
  await sender.tick();
  const sent = smtp.received.find((m) => m.to.includes("ria@customer.example"));
  expect(sent).toBeDefined();
  const replyTo = sent!.headers.get("reply-to")!;
  expect(replyTo).toMatch(/^reply\+[0-9a-f]+@/);

  // The widget comes back and follows the conversation from its cursor.
  const view = (await (await app.request(`/api/sdk/conversations/${sessionId}`, { headers: { ...widget, "x-user-id": "mail-1" } })).json()) as {
    last_event_id: string;
  };
  const stream = await app.request(`/api/sdk/conversations/${sessionId}/events`, {
    headers: { ...widget, "x-user-id": "mail-1", "last-event-id": view.last_event_id },
  });
  expect(stream.status).toBe(200);
  const events = readEvents(stream);

  // The customer answers by email; the quoted part stays out.
  const raw = [
    "From: Ria <ria@customer.example>",
    `To: ${replyTo}`,
    "Subject: Re: your question",
    "Message-ID: <ria-1@customer.example>",
    `In-Reply-To: ${sent!.headers.get("message-id")}`,
    "Date: Thu, 26 Nov 2026 10:00:00 +0000",
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "",
    "The Team plan.",
    "",
    "On Thu, 26 Nov 2026 at 09:00, Support wrote:",
    "> Hi Ria, which plan are you on?",
    "",
  ].join("\r\n");
  const client = nodemailer.createTransport({ host: "127.0.0.1", port: inbound.port, secure: false, ignoreTLS: true });
  try {
    expect((await client.sendMail({ envelope: { from: "ria@customer.example", to: [replyTo] }, raw })).accepted).toEqual([replyTo]);
  } finally {
    client.close();
  }
  const arrived = await events.waitFor((e) => e.event === "message");
  expect(JSON.parse(arrived.data)).toMatchObject({ kind: "customer", text: "The Team plan." });
  events.close();
}, 60_000);
