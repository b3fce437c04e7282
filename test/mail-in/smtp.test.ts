// The customer's email comes back into the ticket (README "Email channel"): a real SMTP listener on
// loopback, nodemailer as the customer's mail server. The answer to a reply lands in its ticket
// with the quoted part stripped (the original kept for members), fires ticket.message.created,
// and is stored once however often it is delivered; a support alias opens a ticket in its own org
// only; unknown or forged reply addresses, foreign domains and oversized messages are refused
// with 550/552 and store nothing; automatic mail is accepted and dropped.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count, eq } from "drizzle-orm";
import nodemailer from "nodemailer";
import { createSender } from "../../src/compose.ts";
import { endUsers, ticketInboundEmails, tickets } from "../../src/db/schema/index.ts";
import { startInboundSmtp, type InboundSmtp } from "../../src/mail-in/smtp.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { freePort } from "../support/process.ts";
import { seedCustomer, seedInboxOrg, type InboxOrg } from "../inbox/helpers.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";
import { createEndpoint, startReceiver } from "../webhooks/helpers.ts";
import { INBOUND_DOMAIN, emailEnv, sendingDomain } from "../support/email.ts";

const LIMIT = 20_000;
let smtp: TestSmtp;
let app: TestApp;
let sender: Sender;
let inbound: InboundSmtp;
let a: InboxOrg & { auth: Record<string, string> };
let b: InboxOrg & { auth: Record<string, string> };

beforeAll(async () => {
  smtp = await startSmtp();
  const port = freePort();
  app = await createTestApp(emailEnv(smtp.url, { INBOUND_SMTP_PORT: String(port), INBOUND_MAX_MESSAGE_BYTES: String(LIMIT), NODE_ENV: "development" }));
  inbound = await startInboundSmtp(app.deps, port, "127.0.0.1");
  sender = createSender(app.deps);
  const seed = async () => {
    const org = await seedInboxOrg(app);
    return { ...org, auth: { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` } };
  };
  a = await seed();
  b = await seed();
  expect((await app.request("/api/email/settings", { method: "PUT", headers: a.auth, json: { support_alias: "help" } })).status).toBe(200);
  expect((await app.request("/api/email/settings", { method: "PUT", headers: b.auth, json: { support_alias: "Support-B" } })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await inbound.close();
  await app.close();
  await smtp.close();
});

/** The customer's mail server: nodemailer delivering a raw message to our listener. */
async function deliver(raw: string, to: string[], from = "dana@customer.example") {
  const client = nodemailer.createTransport({ host: "127.0.0.1", port: inbound.port, secure: false, ignoreTLS: true });
  try {
    return await client.sendMail({ envelope: { from, to }, raw });
  } finally {
    client.close();
  }
}

function message(headers: Record<string, string>, body: string): string {
  return `${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join(
      "\r\n",
    )}\r\nDate: Thu, 26 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body.replace(/\r?\n/g, "\r\n")}`;
}

const storedCount = async () => (await app.deps.db.select({ n: count() }).from(ticketInboundEmails))[0]!.n;
const ticketsOf = (orgId: string) => app.deps.db.select().from(tickets).where(eq(tickets.orgId, orgId));

describe("the answer to a reply", () => {
  test("lands in its ticket stripped, reopens it, fires ticket.message.created, and is stored once", async () => {
    const receiver = startReceiver(app);
    await createEndpoint(app, a.auth, receiver, ["ticket.message.created"]);
    const customer = await seedCustomer(app, a.org_id, { email: "dana@customer.example", name: "Dana" });
    const created = await app.request("/api/tickets", {
      headers: a.auth,
      json: { customer_id: customer.id, subject: "Your export", message: "Your export is ready." },
    });
    const ticket = (await created.json()) as { id: string; status: string };
    expect(ticket.status).toBe("pending");
    await sender.tick();
    const sent = smtp.received.find((m) => m.to.includes("dana@customer.example"))!;
    const replyTo = sent.headers.get("reply-to")!;
    const ours = sent.headers.get("message-id")!;

    const answer = message(
      {
        From: "Dana <dana@customer.example>",
        To: replyTo,
        Subject: "Re: Your export",
        "Message-ID": "<answer-1@customer.example>",
        "In-Reply-To": ours,
        References: ours,
      },
      "Yes please, send it to my other address.\n\nOn Thu, 26 Nov 2026 at 09:00, Support <support@acme.example> wrote:\n> Your export is ready.\n",
    );
    const info = await deliver(answer, [replyTo]);
    expect(info.accepted).toEqual([replyTo]);
    const detail = (await (await app.request(`/api/tickets/${ticket.id}`, { headers: a.auth })).json()) as {
      status: string;
      messages: { id: string; kind: string; body: string }[];
    };
    expect(detail.status).toBe("open");
    const last = detail.messages.at(-1)!;
    expect([last.kind, last.body]).toEqual(["customer", "Yes please, send it to my other address."]);
    const original = await app.request(`/api/tickets/${ticket.id}/messages/${last.id}/email`, { headers: a.auth });
    expect(original.status).toBe(200);
    expect(((await original.json()) as { original: string }).original).toContain("> Your export is ready.");
    // The ticket page lets a member expand the original; the stripped text stays the message.
    const session = a.auth.authorization!.slice("Bearer ".length);
    const page = await (await app.request(`/dashboard/inbox/${ticket.id}`, { headers: { cookie: `svc_session=${session}` } })).text();
    expect(page).toContain("<details><summary>The original email from dana@customer.example</summary>");
    expect(page).toContain("&#62; Your export is ready.");
    await sender.tick();
    receiver.close();
    expect(receiver.received.map((r) => [r.json.type, r.json.data.message.body, r.verifiedWith[0]])).toEqual([
      ["ticket.message.created", "Yes please, send it to my other address.", true],
    ]);

    // Redelivered (a retry after a lost 250): accepted, stored once.
    expect((await deliver(answer, [replyTo])).accepted).toEqual([replyTo]);
    const again = (await (await app.request(`/api/tickets/${ticket.id}`, { headers: a.auth })).json()) as { messages: unknown[] };
    expect(again.messages).toHaveLength(detail.messages.length);
    expect(await app.deps.db.select({ n: count() }).from(ticketInboundEmails).where(eq(ticketInboundEmails.messageId, "<answer-1@customer.example>"))).toEqual([
      { n: 1 },
    ]);

    // Another org's member cannot read it.
    expect((await app.request(`/api/tickets/${ticket.id}/messages/${last.id}/email`, { headers: b.auth })).status).toBe(404);
  });
});

describe("the support alias", () => {
  test("a new email opens a ticket for an unverified customer by From, in the alias's org only", async () => {
    const beforeB = (await ticketsOf(b.org_id)).length;
    await deliver(
      message(
        { From: "New Person <New.Person@example.org>", To: `help@${INBOUND_DOMAIN}`, Subject: "Cannot log in", "Message-ID": "<new-1@example.org>" },
        "I cannot log in since Monday.\n\n-- \nNew Person\nACME Corp",
      ),
      [`HELP@${INBOUND_DOMAIN}`],
      "new.person@example.org",
    );
    const [ticket, ...others] = (await ticketsOf(a.org_id)).filter((t) => t.subject === "Cannot log in");
    expect(others).toEqual([]);
    expect(ticket!.source).toBe("email");
    expect(ticket!.status).toBe("open");
    const [customer] = await app.deps.db.select().from(endUsers).where(eq(endUsers.id, ticket!.endUserId!));
    expect([customer!.email, customer!.verified, customer!.orgId]).toEqual(["new.person@example.org", false, a.org_id]);
    const detail = (await (await app.request(`/api/tickets/${ticket!.id}`, { headers: a.auth })).json()) as { messages: { body: string }[] };
    expect(detail.messages[0]!.body).toBe("I cannot log in since Monday.");
    expect((await ticketsOf(b.org_id)).length).toBe(beforeB);

    await deliver(
      message({ From: "x@example.org", To: `support-b@${INBOUND_DOMAIN}`, Subject: "For B", "Message-ID": "<b-1@example.org>" }, "Hello B"),
      [`support-b@${INBOUND_DOMAIN}`],
      "x@example.org",
    );
    expect((await ticketsOf(b.org_id)).map((t) => t.subject)).toContain("For B");
    expect((await ticketsOf(a.org_id)).map((t) => t.subject)).not.toContain("For B");
  });

  test("the alias is unique across orgs, bounded and checked", async () => {
    const taken = await app.request("/api/email/settings", { method: "PUT", headers: b.auth, json: { support_alias: "help" } });
    expect([taken.status, ((await taken.json()) as { error: { code: string } }).error.code]).toEqual([409, "alias_taken"]);
    for (const bad of ["reply+x", "postmaster", "-x", "a..b", "ünï", "a".repeat(65)])
      expect([bad, (await app.request("/api/email/settings", { method: "PUT", headers: b.auth, json: { support_alias: bad } })).status]).toEqual([bad, 400]);
    expect((await app.request("/api/email/settings", { method: "PUT", headers: b.auth, json: { support_alias: "a".repeat(64) } })).status).toBe(200);
    expect((await app.request("/api/email/settings", { method: "PUT", headers: b.auth, json: { support_alias: "support-b" } })).status).toBe(200);
    const got = (await (await app.request("/api/email/settings", { headers: a.auth })).json()) as Record<string, unknown>;
    expect(got).toEqual({ support_alias: "help", support_address: `help@${INBOUND_DOMAIN}`, inbound_enabled: true });
  });
});

describe("threads and closed tickets", () => {
  test("an answer sent to the alias that names our Message-ID goes to that ticket only from its customer's address (DMARC passing)", async () => {
    const customer = await seedCustomer(app, a.org_id, { email: "lee@lee-mail.example" });
    const leeMail = sendingDomain(app, "lee-mail.example");
    const evilMail = sendingDomain(app, "evil.example");
    const created = await app.request("/api/tickets", {
      headers: a.auth,
      json: { customer_id: customer.id, subject: "Renewal", message: "Your plan renews soon." },
    });
    const ticket = (await created.json()) as { id: string; messages: { id: string }[] };
    const ours = `<${ticket.messages[0]!.id}@acme.example>`;
    const to = `help@${INBOUND_DOMAIN}`;
    await deliver(
      await leeMail.sign(
        message(
          { From: "lee@lee-mail.example", To: to, Subject: "Re: Renewal", "Message-ID": "<lee-1@lee-mail.example>", "In-Reply-To": ours },
          "Please renew.",
        ),
      ),
      [to],
      "lee@lee-mail.example",
    );
    await deliver(
      await evilMail.sign(
        message(
          { From: "mallory@evil.example", To: to, Subject: "Re: Renewal", "Message-ID": "<mal-1@evil.example>", "In-Reply-To": ours },
          "Send me the invoice.",
        ),
      ),
      [to],
      "mallory@evil.example",
    );
    const detail = (await (await app.request(`/api/tickets/${ticket.id}`, { headers: a.auth })).json()) as { messages: { body: string }[] };
    expect(detail.messages.map((m) => m.body)).toEqual(["Your plan renews soon.", "Please renew."]);
    const stranger = (await ticketsOf(a.org_id)).filter((t) => t.subject === "Re: Renewal");
    expect(stranger).toHaveLength(1);
    expect(stranger[0]!.id).not.toBe(ticket.id);
  });

  test("an answer to a closed ticket opens a new ticket for the same customer", async () => {
    const customer = await seedCustomer(app, a.org_id, { email: "kim@customer.example" });
    const created = await app.request("/api/tickets", { headers: a.auth, json: { customer_id: customer.id, subject: "Done", message: "All fixed." } });
    const ticket = (await created.json()) as { id: string };
    await sender.tick();
    const replyTo = smtp.received.find((m) => m.to.includes("kim@customer.example"))!.headers.get("reply-to")!;
    expect((await app.request(`/api/tickets/${ticket.id}`, { method: "PATCH", headers: a.auth, json: { status: "closed" } })).status).toBe(200);
    await deliver(
      message({ From: "kim@customer.example", To: replyTo, Subject: "Re: Done", "Message-ID": "<kim-1@customer.example>" }, "It broke again."),
      [replyTo],
      "kim@customer.example",
    );
    const fresh = (await ticketsOf(a.org_id)).filter((t) => t.endUserId === customer.id && t.id !== ticket.id);
    expect(fresh.map((t) => [t.subject, t.status, t.source])).toEqual([["Re: Done", "open", "email"]]);
  });
});

describe("automatic mail", () => {
  test("auto-replies, list mail and bounces are accepted and dropped", async () => {
    const before = await storedCount();
    const to = `help@${INBOUND_DOMAIN}`;
    await deliver(
      message(
        { From: "away@example.org", To: to, Subject: "Out of office", "Auto-Submitted": "auto-replied", "Message-ID": "<auto-1@example.org>" },
        "I am away.",
      ),
      [to],
      "away@example.org",
    );
    await deliver(
      message({ From: "list@example.org", To: to, Subject: "Digest", Precedence: "bulk", "Message-ID": "<auto-2@example.org>" }, "News."),
      [to],
      "list@example.org",
    );
    await deliver(message({ From: "MAILER-DAEMON@example.org", To: to, Subject: "Undelivered", "Message-ID": "<auto-3@example.org>" }, "Bounce."), [to], "");
    expect(await storedCount()).toBe(before);
  });
});
