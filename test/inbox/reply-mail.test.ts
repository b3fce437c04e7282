// A person's reply reaches the customer by email (README "Email channel"): through the outbox to a
// real SMTP server on loopback, from "<person> at <org>", threaded with In-Reply-To/References on
// the ticket's earlier messages the customer has as email, with a Reply-To that routes back (its token stored only hashed),
// and DKIM-signed so that mailauth validates the signature. Notes and AI replies are never emailed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { createSender } from "../../src/compose.ts";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { outbox, ticketReplyTokens } from "../../src/db/schema/index.ts";
import { addTicketMessage, createTicket } from "../../src/inbox/tickets.ts";
import { REPLY_MAIL_KIND } from "../../src/inbox/reply-mail.ts";
import { smtpTransport } from "../../src/mail/smtp.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { seedCustomer, seedInboxOrg, type InboxOrg } from "./helpers.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";
import { INBOUND_DOMAIN, MAIL_FROM, emailEnv, verifyDkim } from "../support/email.ts";

let smtp: TestSmtp;
let app: TestApp;
let sender: Sender;
let org: InboxOrg;
let auth: Record<string, string>;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await createTestApp(emailEnv(smtp.url));
  org = await seedInboxOrg(app);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  sender = createSender(app.deps);
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
  await smtp.close();
});

const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email));
const ids = (header: string | undefined) => (header ?? "").split(/\s+/).filter(Boolean);

describe("outreach, the customer's answer, a reply", () => {
  test("threaded, signed, answerable", async () => {
    const customer = await seedCustomer(app, org.org_id, { email: "dana@customer.example", name: "Dana" });
    const created = await app.request("/api/tickets", {
      headers: auth,
      json: { customer_id: customer.id, subject: "Your export", message: "Your export is ready." },
    });
    expect(created.status).toBe(201);
    const ticket = (await created.json()) as { id: string; number: number; messages: { id: string }[] };
    await sender.tick();
    const [first, ...more] = mailsTo("dana@customer.example");
    expect(more).toEqual([]);
    expect(first!.from).toBe(MAIL_FROM);
    expect(first!.headers.get("from")).toMatch(/^"?.* at Org \d+"? <support@acme\.example>$/);
    expect(first!.headers.get("subject")).toBe("Your export");
    expect(first!.parts.get("text/plain")).toContain("Your export is ready.");
    expect(first!.parts.get("text/html")).toContain("<p>Your export is ready.</p>");
    const firstId = first!.headers.get("message-id")!;
    expect(firstId).toMatch(/^<[0-9a-f-]{36}@acme\.example>$/);
    expect(first!.headers.has("in-reply-to")).toBe(false);

    // Reply-To routes back; the token is stored only as its SHA-256.
    const replyTo = first!.headers.get("reply-to")!;
    const token = new RegExp(`^reply\\+([0-9a-f]{32})@${INBOUND_DOMAIN.replaceAll(".", "\\.")}$`).exec(replyTo)?.[1];
    expect(token).toBeDefined();
    const stored = await app.deps.db.select().from(ticketReplyTokens).where(eq(ticketReplyTokens.ticketId, ticket.id));
    expect(stored.map((s) => s.tokenHash)).toEqual([sha256Hex(token!)]);
    expect(JSON.stringify(stored)).not.toContain(token!);

    const answer = await addTicketMessage(app.deps, {
      orgId: org.org_id,
      actor: { kind: "customer", endUserId: customer.id },
      ticketId: ticket.id,
      kind: "customer",
      body: "Thanks, where do I find it?",
    });
    const note = await app.request(`/api/tickets/${ticket.id}/notes`, { headers: auth, json: { body: "internal: customer is on the old plan" } });
    expect(note.status).toBe(201);
    const reply = await app.request(`/api/tickets/${ticket.id}/replies`, { headers: auth, json: { body: "Under Settings, then Exports.\n\nBest," } });
    expect(reply.status).toBe(201);
    const replyId = ((await reply.json()) as { id: string }).id;
    await sender.tick();
    const second = mailsTo("dana@customer.example")[1]!;
    expect(mailsTo("dana@customer.example")).toHaveLength(2);
    expect(second.headers.get("subject")).toBe("Re: Your export");
    expect(second.headers.get("message-id")).toBe(`<${replyId}@acme.example>`);
    // The customer's answer came another way than email, so the thread is the one email they have.
    expect(second.headers.get("in-reply-to")).toBe(firstId);
    expect(ids(second.headers.get("references"))).toEqual([firstId]);
    expect(second.raw).not.toContain(answer.id);
    // The reply only: no note, no earlier message.
    expect(second.raw).not.toContain("old plan");
    expect(second.parts.get("text/plain")).not.toContain("Your export is ready");
    expect(second.parts.get("text/plain")).toContain("to stop them");
    expect(second.headers.get("reply-to")).not.toBe(replyTo);

    for (const mail of [first!, second]) {
      const [verdict, ...others] = await verifyDkim(mail.raw);
      expect(others).toEqual([]);
      expect(verdict!.result).toBe("pass");
      expect(verdict!.domain).toBe("acme.example");
    }
    // The verifier can fail: a changed body or signed header breaks the signature.
    const [body] = await verifyDkim(second.raw.replace("Under Settings", "Under Billing"));
    expect(body!.result).not.toBe("pass");
    const [header] = await verifyDkim(second.raw.replace("Subject: Re: Your export", "Subject: Re: Your invoice"));
    expect(header!.result).toBe("fail");
  });

  test("an AI agent's reply and a customer's message send nothing; a customer without an address is held", async () => {
    const toCustomers = () => smtp.received.filter((m) => !m.to.includes(org.admin_email)).length;
    const before = toCustomers();
    const nobody = await seedCustomer(app, org.org_id, { name: "No Address" });
    const ticket = await createTicket(app.deps, {
      orgId: org.org_id,
      actor: { kind: "customer", endUserId: nobody.id },
      input: { subject: "Help", message: "Hi", customerId: nobody.id, source: "api" },
    });
    await addTicketMessage(app.deps, { orgId: org.org_id, actor: { kind: "agent", agentId: null }, ticketId: ticket.id, kind: "reply", body: "AI here" });
    const reply = await app.request(`/api/tickets/${ticket.id}/replies`, { headers: auth, json: { body: "A person here" } });
    expect(reply.status).toBe(201);
    await sender.tick();
    expect(toCustomers()).toBe(before);
    const rows = await app.deps.db
      .select({ status: outbox.status, lastError: outbox.lastError })
      .from(outbox)
      .where(and(eq(outbox.orgId, org.org_id), eq(outbox.kind, REPLY_MAIL_KIND), eq(outbox.status, "held")));
    expect(rows).toEqual([{ status: "held", lastError: "not sent: customer has no email address" }]);
  });
});

describe("DKIM on every email", () => {
  test("any message through the transport (a campaign's too) is signed over the threading and unsubscribe headers", async () => {
    const transport = smtpTransport(app.deps.config)!;
    await transport.send({
      from: { name: "Acme", address: MAIL_FROM },
      to: "reader@customer.example",
      subject: "News",
      text: "Hello",
      html: "<p>Hello</p>",
      messageId: "<n1@acme.example>",
      headers: { "List-Unsubscribe": "<https://acme.example/u/x>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    });
    transport.close();
    const [verdict] = await verifyDkim(mailsTo("reader@customer.example")[0]!.raw);
    expect(verdict!.result).toBe("pass");
    expect(verdict!.headers.map((h) => h.toLowerCase())).toEqual(
      expect.arrayContaining(["from", "to", "subject", "date", "message-id", "list-unsubscribe", "list-unsubscribe-post"]),
    );
  });
});
