// Who sent an emailed message, carried on the message itself (README "Email channel"): the ticket
// JSON and the `ticket.message.created` webhook say `email_from` and `from_customer`, so a stranger
// writing to a customer's reply address is not taken for the customer by an API client or a webhook
// receiver. A From header proves nothing: `from_customer` only compares it with the customer's
// address, and `verified` stays false.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { createSender } from "../../src/compose.ts";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { ticketReplyTokens } from "../../src/db/schema/index.ts";
import { createTicket } from "../../src/inbox/tickets.ts";
import { REPLY_TOKEN_TTL_DAYS } from "../../src/inbox/reply-mail.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { INBOUND_DOMAIN, WEBHOOK_SECRET, emailEnv } from "../support/email.ts";
import { type SeriesOrg, seedSeriesOrg } from "../campaigns/helpers.ts";
import { seedCustomer } from "../inbox/helpers.ts";
import { createEndpoint, type Receiver, startReceiver } from "../webhooks/helpers.ts";

let app: TestApp;
let org: SeriesOrg;
let sender: Sender;
let receiver: Receiver;
let ticketId: string;
let customerId: string;

beforeAll(async () => {
  // Development: the webhook receiver is on loopback.
  app = await createTestApp({ ...emailEnv("smtp://127.0.0.1:9"), NODE_ENV: "development" });
  org = await seedSeriesOrg(app);
  sender = createSender(app.deps, { transport: null });
  receiver = startReceiver(app);
  await createEndpoint(app, org.auth, receiver, ["ticket.message.created"]);
  customerId = (await seedCustomer(app, org.org_id, { email: "dana@customer.example", name: "Dana" })).id;
  ticketId = (
    await createTicket(app.deps, {
      orgId: org.org_id,
      actor: { kind: "customer", endUserId: customerId },
      input: { subject: "Order", message: "Where is it?", customerId, source: "api" },
    })
  ).id;
}, 60_000);
afterAll(async () => {
  await sender.stop();
  receiver.close();
  await app.close();
});

async function send(from: string, id: string): Promise<{ ticket_id: string; message_id: string }> {
  const raw = randomBytes(16).toString("hex");
  const now = app.clock.now;
  await app.deps.db.insert(ticketReplyTokens).values({
    tokenHash: sha256Hex(raw),
    orgId: org.org_id,
    ticketId,
    endUserId: customerId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + REPLY_TOKEN_TTL_DAYS * 86_400_000),
  });
  const mail = `From: ${from}\r\nTo: reply+${raw}@${INBOUND_DOMAIN}\r\nSubject: Re: Order\r\nMessage-ID: <${id}@example.org>\r\n\r\nA message from ${from}.\r\n`;
  const res = await app.request("/api/inbound/email", {
    method: "POST",
    headers: { authorization: `Bearer ${WEBHOOK_SECRET}`, "content-type": "message/rfc822" },
    body: mail,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: { ticket_id: string; message_id: string }[] }).results[0]!;
}

type Msg = { id: string; author: { kind: string }; verified: boolean | null; email_from: string | null; from_customer: boolean | null };

test("the ticket JSON and the webhook carry the sender of an emailed message; other messages say null", async () => {
  const stranger = await send("Mallory <mallory@attacker.example>", "json-stranger");
  const customer = await send("Dana <DANA@customer.example>", "json-customer");

  const detail = (await (await app.request(`/api/tickets/${ticketId}`, { headers: org.auth })).json()) as { messages: Msg[] };
  const byId = new Map(detail.messages.map((m) => [m.id, m]));
  expect(byId.get(stranger.message_id)).toMatchObject({
    author: { kind: "customer" },
    verified: false,
    email_from: "mallory@attacker.example",
    from_customer: false,
  });
  expect(byId.get(customer.message_id)).toMatchObject({ email_from: "dana@customer.example", from_customer: true, verified: false });
  // The first message came through the API, not by email.
  expect(detail.messages[0]).toMatchObject({ email_from: null, from_customer: null });

  await sender.tick();
  const hooks = receiver.received.filter((r) => r.json.type === "ticket.message.created").map((r) => r.json.data.message as Msg);
  expect(hooks.find((m) => m.id === stranger.message_id)).toMatchObject({ email_from: "mallory@attacker.example", from_customer: false });
  expect(hooks.find((m) => m.id === customer.message_id)).toMatchObject({ email_from: "dana@customer.example", from_customer: true });
});
