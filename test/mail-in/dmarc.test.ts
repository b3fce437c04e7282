// Mail to the support alias that names one of our Message-IDs joins that ticket only when its
// sender is authenticated (README "Email channel"): DMARC must pass. A forged From of the
// ticket's customer (no signature, or a signature of another domain) opens a new ticket instead,
// linked for members to the one it claimed to answer; a DNS that does not answer is `temperror`,
// within a time limit, and is not a pass. Both ways in: the SMTP listener and the relay. The
// mail DNS is the test app's (records published by `sendingDomain`).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import nodemailer from "nodemailer";
import { ticketInboundEmails } from "../../src/db/schema/index.ts";
import { startInboundSmtp, type InboundSmtp } from "../../src/mail-in/smtp.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { freePort } from "../support/process.ts";
import { seedCustomer } from "../inbox/helpers.ts";
import { adminOf, get, type Member } from "../dashboard/helpers.ts";
import { INBOUND_DOMAIN, WEBHOOK_SECRET, emailEnv, sendingDomain } from "../support/email.ts";

let app: TestApp;
let inbound: InboundSmtp;
let admin: Member;
let domain: ReturnType<typeof sendingDomain>;
const TO = `help@${INBOUND_DOMAIN}`;

beforeAll(async () => {
  const port = freePort();
  app = await createTestApp(emailEnv("smtp://127.0.0.1:9", { INBOUND_SMTP_PORT: String(port) }));
  inbound = await startInboundSmtp(app.deps, port, "127.0.0.1");
  admin = await adminOf(app);
  expect((await get(app, admin, "/api/email/settings")).status).toBe(200);
  const { signIn } = await import("../support/app.ts");
  const token = await signIn(app, admin.email, admin.password);
  expect(
    (await app.request("/api/email/settings", { method: "PUT", headers: { authorization: `Bearer ${token}` }, json: { support_alias: "help" } })).status,
  ).toBe(200);
  domain = sendingDomain(app, "dana-mail.example");
}, 60_000);
afterAll(async () => {
  await inbound.close();
  await app.close();
});

/** A ticket of Dana's with our first message; its Message-ID is what an answer names. */
async function danasTicket(email: string) {
  const customer = await seedCustomer(app, admin.orgId, { email });
  const { signIn } = await import("../support/app.ts");
  const auth = { authorization: `Bearer ${await signIn(app, admin.email, admin.password)}` };
  const ticket = (await (
    await app.request("/api/tickets", { headers: auth, json: { customer_id: customer.id, subject: "Refund", message: "We can refund it." } })
  ).json()) as { id: string; messages: { id: string }[] };
  return { id: ticket.id, ours: `<${ticket.messages[0]!.id}@acme.example>`, auth };
}

function answer(from: string, id: string, ours: string): string {
  return `From: ${from}\r\nTo: ${TO}\r\nSubject: Re: Refund\r\nDate: Thu, 26 Nov 2026 10:00:00 +0000\r\nMessage-ID: <${id}>\r\nIn-Reply-To: ${ours}\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nPlease send the refund to my new account.\r\n`;
}

async function viaSmtp(raw: string, from: string) {
  const client = nodemailer.createTransport({ host: "127.0.0.1", port: inbound.port, secure: false, ignoreTLS: true });
  try {
    await client.sendMail({ envelope: { from, to: [TO] }, raw });
  } finally {
    client.close();
  }
}

async function viaRelay(raw: string) {
  const res = await app.request("/api/inbound/email", {
    method: "POST",
    headers: { authorization: `Bearer ${WEBHOOK_SECRET}`, "content-type": "message/rfc822" },
    body: raw,
  });
  expect(res.status).toBe(200);
}

const row = async (messageId: string) =>
  (
    await app.deps.db
      .select()
      .from(ticketInboundEmails)
      .where(eq(ticketInboundEmails.messageId, `<${messageId}>`))
  )[0]!;

for (const [path, send] of [
  ["SMTP", viaSmtp],
  ["relay", (raw: string) => viaRelay(raw)],
] as const) {
  const tag = path.toLowerCase();
  describe(`by ${path}`, () => {
    test("DMARC pass: the signed answer from the customer's domain joins the ticket", async () => {
      const ticket = await danasTicket(`dana-${tag}@dana-mail.example`);
      const id = `pass-${tag}@dana-mail.example`;
      await send(await domain.sign(answer(`dana-${tag}@dana-mail.example`, id, ticket.ours)), `dana-${tag}@dana-mail.example`);
      const stored = await row(id);
      expect([stored.dmarc, stored.ticketId, stored.claimedTicketId]).toEqual(["pass", ticket.id, null]);
      expect(stored.authResults).toContain("dkim=pass");
      expect(stored.authResults).toContain("dmarc=pass");
    });

    test("DMARC fail (a forged From, unsigned): a new unverified ticket, linked to the one it claimed", async () => {
      const ticket = await danasTicket(`dana2-${tag}@dana-mail.example`);
      const id = `forged-${tag}@attacker.example`;
      await send(answer(`dana2-${tag}@dana-mail.example`, id, ticket.ours), "mallory@attacker.example");
      const stored = await row(id);
      expect(stored.dmarc).toBe("fail");
      expect(stored.ticketId).not.toBe(ticket.id);
      expect(stored.claimedTicketId).toBe(ticket.id);
      const detail = (await (await app.request(`/api/tickets/${ticket.id}`, { headers: ticket.auth })).json()) as { messages: unknown[] };
      expect(detail.messages).toHaveLength(1);
      const page = await (await get(app, admin, `/dashboard/inbox/${stored.ticketId}`)).text();
      expect(page).toContain("Unverified sender");
      expect(page).toContain(`href="/dashboard/inbox/${ticket.id}"`);
      expect(page).toContain("DMARC fail");
    });
  });
}

test("a DNS that never answers: temperror within the time limit, not threaded", async () => {
  const ticket = await danasTicket("dana3@slow-dns.example");
  const realDns = app.deps.mailDns;
  app.deps.mailDns = () => new Promise(() => {}); // never settles
  try {
    const id = "slow-dns@slow-dns.example";
    await viaRelay(answer("dana3@slow-dns.example", id, ticket.ours));
    const stored = await row(id);
    expect(stored.dmarc).toBe("temperror");
    expect(stored.claimedTicketId).toBe(ticket.id);
  } finally {
    app.deps.mailDns = realDns;
  }
}, 30_000);
