// Anyone who has a reply address can write to it (README "Email channel"): the message lands on
// the ticket, and members see who really sent it — marked when it was not the customer's address,
// on the ticket page and in the original's API.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { ticketReplyTokens } from "../../src/db/schema/index.ts";
import { createTicket } from "../../src/inbox/tickets.ts";
import { REPLY_TOKEN_TTL_DAYS } from "../../src/inbox/reply-mail.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member } from "../dashboard/helpers.ts";
import { seedCustomer } from "../inbox/helpers.ts";
import { INBOUND_DOMAIN, WEBHOOK_SECRET, emailEnv } from "../support/email.ts";

let app: TestApp;
let admin: Member;
let ticketId: string;
let customerId: string;

beforeAll(async () => {
  app = await createTestApp(emailEnv("smtp://127.0.0.1:9"));
  admin = await adminOf(app);
  customerId = (await seedCustomer(app, admin.orgId, { email: "dana@customer.example", name: "Dana" })).id;
  ticketId = (
    await createTicket(app.deps, {
      orgId: admin.orgId,
      actor: { kind: "customer", endUserId: customerId },
      input: { subject: "Order", message: "Where is it?", customerId, source: "api" },
    })
  ).id;
}, 60_000);
afterAll(() => app.close());

/** A reply address as the reply mail mints it (stored hashed). */
async function replyAddress(): Promise<string> {
  const raw = randomBytes(16).toString("hex");
  const now = app.clock.now;
  await app.deps.db.insert(ticketReplyTokens).values({
    tokenHash: sha256Hex(raw),
    orgId: admin.orgId,
    ticketId,
    endUserId: customerId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + REPLY_TOKEN_TTL_DAYS * 86_400_000),
  });
  return `reply+${raw}@${INBOUND_DOMAIN}`;
}

async function send(from: string, id: string): Promise<{ ticket_id: string; message_id: string }> {
  const raw = `From: ${from}\r\nTo: ${await replyAddress()}\r\nSubject: Re: Order\r\nMessage-ID: <${id}@example.org>\r\n\r\nA message from ${from}.\r\n`;
  const res = await app.request("/api/inbound/email", {
    method: "POST",
    headers: { authorization: `Bearer ${WEBHOOK_SECRET}`, "content-type": "message/rfc822" },
    body: raw,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: { ticket_id: string; message_id: string }[] }).results[0]!;
}

test("a stranger writing to the customer's reply address is shown as the sender and marked; the customer is not", async () => {
  const stranger = await send("Mallory <mallory@attacker.example>", "stranger-1");
  const customer = await send("Dana <DANA@customer.example>", "customer-1");
  expect([stranger.ticket_id, customer.ticket_id]).toEqual([ticketId, ticketId]);
  const original = async (messageId: string) =>
    (await (await get(app, admin, `/api/tickets/${ticketId}/messages/${messageId}/email`)).json()) as { from: string; from_customer: boolean };
  expect(await original(stranger.message_id)).toMatchObject({ from: "mallory@attacker.example", from_customer: false });
  expect(await original(customer.message_id)).toMatchObject({ from: "dana@customer.example", from_customer: true });

  const page = await (await get(app, admin, `/dashboard/inbox/${ticketId}`)).text();
  const article = (text: string) => page.split("<article").find((a) => a.includes(text)) ?? "";
  const fromStranger = article("A message from Mallory");
  expect(fromStranger).toContain("Not the customer's address");
  expect(fromStranger).toContain("mallory@attacker.example");
  const fromCustomer = article("A message from Dana");
  expect(fromCustomer).toContain("By email from dana@customer.example");
  expect(fromCustomer).not.toContain("Not the customer");
});
