// The inbound SMTP listener under hostile input, spoken to over a bare socket (docs/interface.md H: never an
// open relay; RFC 1870 SIZE; RFC 5321). Unknown, forged or expired reply addresses, foreign
// domains and unknown local parts are refused at RCPT TO with 550; commands out of order get 503;
// the size limit holds at its boundary (MAIL FROM SIZE= and DATA) with 552; a bare LF never ends
// DATA (no smuggled second message); 8-bit headers are read; recipients stop at 100 (452), and
// guessed ones after MAX_RCPT_FAILURES refusals (421, connection closed); a
// 50 MB DATA is refused and the listener goes on serving. Nothing refused is stored.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { count, eq } from "drizzle-orm";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { ticketInboundEmails, ticketReplyTokens, tickets } from "../../src/db/schema/index.ts";
import { createTicket } from "../../src/inbox/tickets.ts";
import { startInboundSmtp, type InboundSmtp, MAX_RECIPIENTS } from "../../src/mail-in/smtp.ts";
import { MAX_RCPT_FAILURES } from "../../src/mail-in/smtp-guard.ts";
import { REPLY_TOKEN_TTL_DAYS } from "../../src/inbox/reply-mail.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { freePort } from "../support/process.ts";
import { seedCustomer, seedInboxOrg, type InboxOrg } from "../inbox/helpers.ts";
import { INBOUND_DOMAIN, emailEnv } from "../support/email.ts";
import { rawSmtp } from "../support/raw-smtp.ts";

const LIMIT = 20_000;
let app: TestApp;
let inbound: InboundSmtp;
let org: InboxOrg;
let ticketId: string;

beforeAll(async () => {
  const port = freePort();
  app = await createTestApp(emailEnv("smtp://127.0.0.1:9", { INBOUND_SMTP_PORT: String(port), INBOUND_MAX_MESSAGE_BYTES: String(LIMIT) }));
  inbound = await startInboundSmtp(app.deps, port, "127.0.0.1");
  org = await seedInboxOrg(app);
  const auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  expect((await app.request("/api/email/settings", { method: "PUT", headers: auth, json: { support_alias: "help" } })).status).toBe(200);
  const customer = await seedCustomer(app, org.org_id, { email: "c@customer.example" });
  ticketId = (
    await createTicket(app.deps, {
      orgId: org.org_id,
      actor: { kind: "customer", endUserId: customer.id },
      input: { subject: "S", message: "M", customerId: customer.id, source: "api" },
    })
  ).id;
}, 60_000);
afterAll(async () => {
  await inbound.close();
  await app.close();
});

/** A reply token as the reply mail mints it, stored hashed, issued at the app clock's now. */
async function token(): Promise<string> {
  const raw = randomBytes(16).toString("hex");
  const now = app.clock.now;
  await app.deps.db.insert(ticketReplyTokens).values({
    tokenHash: sha256Hex(raw),
    orgId: org.org_id,
    ticketId,
    endUserId: null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + REPLY_TOKEN_TTL_DAYS * 86_400_000),
  });
  return `reply+${raw}@${INBOUND_DOMAIN}`;
}

const stored = async () => (await app.deps.db.select({ n: count() }).from(ticketInboundEmails))[0]!.n;

async function session() {
  const s = await rawSmtp(inbound.port);
  expect(s.greeting).toStartWith("220 ");
  expect(await s.send("EHLO client.example")).toContain("250");
  return s;
}

const code = (reply: string) => Number(reply.slice(-200).match(/(?:^|\r\n)(\d{3}) [^\r\n]*\r\n$/)?.[1]);

/** A message of exactly `size` bytes as smtp-server counts them (CRLF line ends, before the final dot). */
function sized(
  size: number,
  headers = `From: s@example.org\r\nTo: help@${INBOUND_DOMAIN}\r\nSubject: size\r\nMessage-ID: <${crypto.randomUUID()}@example.org>\r\n\r\n`,
): string {
  const filler = size - headers.length - 2;
  const line = "x".repeat(76);
  let body = "";
  while (body.length + line.length + 2 <= filler) body += `${line}\r\n`;
  body += "y".repeat(filler - body.length);
  return `${headers}${body}\r\n`;
}

describe("RCPT TO", () => {
  test("550 for unknown, forged and expired reply addresses, foreign domains and unknown local parts; a live token passes", async () => {
    const live = await token();
    const s = await session();
    expect(code(await s.send("MAIL FROM:<s@example.org>"))).toBe(250);
    const refused = [
      `reply+${randomBytes(16).toString("hex")}@${INBOUND_DOMAIN}`,
      `reply+abc@${INBOUND_DOMAIN}`,
      `reply+${"g".repeat(32)}@${INBOUND_DOMAIN}`,
      `sales@${INBOUND_DOMAIN}`,
      "someone@gmail.example",
      `help@evil.${INBOUND_DOMAIN}`,
      `help@${INBOUND_DOMAIN}.evil.example`,
      `help%evil.example@${INBOUND_DOMAIN}`,
    ];
    for (const address of refused) expect([address, code(await s.send(`RCPT TO:<${address}>`))]).toEqual([address, 550]);
    // A quoted local part with an @ inside is not even an address to the listener: a syntax error.
    expect(code(await s.send(`RCPT TO:<"help@evil.example"@${INBOUND_DOMAIN}>`))).toBe(501);
    expect(code(await s.send(`RCPT TO:<${live}>`))).toBe(250);
    expect(code(await s.send(`RCPT TO:<${live.toUpperCase().replace(INBOUND_DOMAIN.toUpperCase(), INBOUND_DOMAIN)}>`))).toBe(250);
    s.close();
  });

  test("a reply address routes until its lifetime ends, not a millisecond longer", async () => {
    const address = await token();
    const start = app.clock.now.getTime();
    app.clock.advance(REPLY_TOKEN_TTL_DAYS * 86_400_000 - 1);
    const s = await session();
    await s.send("MAIL FROM:<s@example.org>");
    expect(code(await s.send(`RCPT TO:<${address}>`))).toBe(250);
    app.clock.advance(1);
    expect(app.clock.now.getTime() - start).toBe(REPLY_TOKEN_TTL_DAYS * 86_400_000);
    expect(code(await s.send(`RCPT TO:<${address}>`))).toBe(550);
    s.close();
  });

  test("RCPT before MAIL is 503; DATA before RCPT is 503", async () => {
    const s = await session();
    expect(code(await s.send(`RCPT TO:<help@${INBOUND_DOMAIN}>`))).toBe(503);
    expect(code(await s.send("DATA"))).toBe(503);
    s.close();
  });

  test(`guessed recipients: ${MAX_RCPT_FAILURES} refusals with 550, the next 421 and the connection closed`, async () => {
    const s = await session();
    await s.send("MAIL FROM:<s@example.org>");
    const refused: number[] = [];
    for (let i = 0; i < MAX_RCPT_FAILURES; i++) refused.push(code(await s.send(`RCPT TO:<reply+${randomBytes(16).toString("hex")}@${INBOUND_DOMAIN}>`)));
    expect(refused).toEqual(Array(MAX_RCPT_FAILURES).fill(550));
    // Accepted recipients do not count; the next refusal ends the connection.
    expect(code(await s.send(`RCPT TO:<${await token()}>`))).toBe(250);
    expect(code(await s.send(`RCPT TO:<user@elsewhere.example>`))).toBe(421);
    await s.closed;
  });

  test(`valid recipients stop at ${MAX_RECIPIENTS} with 452`, async () => {
    const s = await session();
    await s.send("MAIL FROM:<s@example.org>");
    const valid: number[] = [];
    for (let i = 0; i <= MAX_RECIPIENTS; i++) valid.push(code(await s.send(`RCPT TO:<${await token()}>`)));
    expect(valid.slice(0, MAX_RECIPIENTS).every((c) => c === 250)).toBe(true);
    expect(valid[MAX_RECIPIENTS]).toBe(452);
    s.close();
  }, 60_000);
});

describe("size (RFC 1870)", () => {
  test("MAIL FROM SIZE= and DATA: at the limit accepted, one byte over 552 and nothing stored", async () => {
    const s = await session();
    expect(code(await s.send(`MAIL FROM:<s@example.org> SIZE=${LIMIT + 1}`))).toBe(552);
    expect(code(await s.send(`MAIL FROM:<s@example.org> SIZE=${LIMIT}`))).toBe(250);
    expect(code(await s.send(`RCPT TO:<help@${INBOUND_DOMAIN}>`))).toBe(250);
    expect(code(await s.send("DATA"))).toBe(354);
    const before = await stored();
    expect(code(await s.send(`${sized(LIMIT + 1)}.\r\n`, true))).toBe(552);
    expect(await stored()).toBe(before);
    await s.send("MAIL FROM:<s@example.org>");
    await s.send(`RCPT TO:<help@${INBOUND_DOMAIN}>`);
    await s.send("DATA");
    expect(code(await s.send(`${sized(LIMIT)}.\r\n`, true))).toBe(250);
    expect(await stored()).toBe(before + 1);
    s.close();
  });

  test("a 50 MB DATA is refused with 552 and the listener goes on serving", async () => {
    const before = await stored();
    const s = await session();
    await s.send("MAIL FROM:<s@example.org>");
    await s.send(`RCPT TO:<help@${INBOUND_DOMAIN}>`);
    expect(code(await s.send("DATA"))).toBe(354);
    const chunk = Buffer.from(`${"z".repeat(1022)}\r\n`.repeat(1024));
    await s.write(`From: s@example.org\r\nTo: help@${INBOUND_DOMAIN}\r\nSubject: big\r\n\r\n`);
    for (let i = 0; i < 50; i++) await s.write(chunk);
    expect(code(await s.send(".\r\n", true))).toBe(552);
    s.close();
    expect(await stored()).toBe(before);
    const next = await session();
    expect(code(await next.send("NOOP"))).toBe(250);
    next.close();
  }, 60_000);
});

describe("line ends and bytes", () => {
  test("a bare LF never ends DATA: one message, with the would-be second one inside it", async () => {
    const before = await stored();
    const s = await session();
    await s.send("MAIL FROM:<s@example.org>");
    await s.send(`RCPT TO:<help@${INBOUND_DOMAIN}>`);
    await s.send("DATA");
    const smuggled = `From: s@example.org\r\nTo: help@${INBOUND_DOMAIN}\r\nSubject: first\r\nMessage-ID: <lf-1@example.org>\r\n\r\nhello\n.\nMAIL FROM:<x@example.org>\nRCPT TO:<help@${INBOUND_DOMAIN}>\nDATA\nSubject: smuggled\n\nsecond\r\n.\r\n`;
    expect(code(await s.send(smuggled, true))).toBe(250);
    s.close();
    expect(await stored()).toBe(before + 1);
    const all = await app.deps.db.select({ subject: tickets.subject }).from(tickets).where(eq(tickets.orgId, org.org_id));
    expect(all.map((t) => t.subject)).toContain("first");
    expect(all.map((t) => t.subject)).not.toContain("smuggled");
  });

  test("commands ended by a bare LF get an answer, never a crash", async () => {
    const s = await rawSmtp(inbound.port);
    const reply = await s.send("EHLO lf.example\n", true);
    expect([250, 500, 501]).toContain(code(reply));
    s.close();
    const next = await session();
    expect(code(await next.send("NOOP"))).toBe(250);
    next.close();
  });

  test("8-bit headers (UTF-8 and stray Latin-1) are read and stored as text", async () => {
    const s = await session();
    await s.send("MAIL FROM:<s@example.org> BODY=8BITMIME");
    await s.send(`RCPT TO:<help@${INBOUND_DOMAIN}>`);
    await s.send("DATA");
    const head = Buffer.concat([
      Buffer.from(
        `From: =?utf-8?q?Zo=C3=AB?= <zoe@example.org>\r\nTo: help@${INBOUND_DOMAIN}\r\nMessage-ID: <8bit-1@example.org>\r\nSubject: Grüße – ça marche\r\nX-Latin: `,
      ),
      Buffer.from([0xe9, 0xe8]),
      Buffer.from("\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nÇa va très bien.\r\n.\r\n"),
    ]);
    await s.write(head);
    expect(code(await s.reply())).toBe(250);
    s.close();
    const [ticket] = await app.deps.db.select().from(tickets).where(eq(tickets.subject, "Grüße – ça marche"));
    expect(ticket?.orgId).toBe(org.org_id);
  });
});
