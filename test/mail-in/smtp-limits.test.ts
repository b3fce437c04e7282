// The SMTP listener against clients that hold connections open (README "Email channel"): the next
// complete line must come within INBOUND_SMTP_COMMAND_SECONDS (a byte now and then does not
// count, in DATA neither), a connection lives at most INBOUND_SMTP_SESSION_SECONDS, and open
// connections are capped in all and per client address. Each limit at its boundary; time is the
// test clock (the listener waits with deps.timers), addresses are other loopback addresses.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInboundSmtp, type InboundSmtp } from "../../src/mail-in/smtp.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { freePort } from "../support/process.ts";
import { seedInboxOrg } from "../inbox/helpers.ts";
import { INBOUND_DOMAIN, emailEnv } from "../support/email.ts";
import { type RawSmtp, rawSmtp } from "../support/raw-smtp.ts";

const COMMAND_MS = 10_000;
const SESSION_MS = 60_000;
let app: TestApp;
let inbound: InboundSmtp;

beforeAll(async () => {
  const port = freePort();
  app = await createTestApp(
    emailEnv("smtp://127.0.0.1:9", {
      INBOUND_SMTP_PORT: String(port),
      INBOUND_SMTP_COMMAND_SECONDS: String(COMMAND_MS / 1000),
      INBOUND_SMTP_SESSION_SECONDS: String(SESSION_MS / 1000),
      INBOUND_SMTP_MAX_CONNECTIONS: "6",
      INBOUND_SMTP_MAX_CONNECTIONS_PER_ADDRESS: "3",
    }),
  );
  inbound = await startInboundSmtp(app.deps, port, "127.0.0.1");
  const org = await seedInboxOrg(app);
  const auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  expect((await app.request("/api/email/settings", { method: "PUT", headers: auth, json: { support_alias: "help" } })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await inbound.close();
  await app.close();
});

const code = (reply: string) => Number(reply.match(/(?:^|\r\n)(\d{3}) [^\r\n]*\r\n$/)?.[1]);

/** Lets the listener read what was written and answer (real sockets; the clock is the test's). */
const settle = () => Bun.sleep(50);

async function open(localAddress?: string): Promise<RawSmtp & { greeting: string }> {
  return rawSmtp(inbound.port, localAddress);
}

/** Closes `clients` and waits until the listener has counted them out. */
async function closeAll(clients: RawSmtp[]) {
  for (const c of clients) c.close();
  await Promise.all(clients.map((c) => c.closed));
  await settle();
}

describe("INBOUND_SMTP_COMMAND_SECONDS", () => {
  test("a line begun and not finished: open 1 ms before the limit, 421 and closed at it", async () => {
    const s = await open();
    expect(code(s.greeting)).toBe(220);
    await s.write("EH");
    await settle();
    app.clock.advance(COMMAND_MS - 1);
    await s.write("L"); // a byte does not restart the count
    await settle();
    expect(s.isClosed()).toBe(false);
    app.clock.advance(1);
    expect(await s.reply()).toContain("421 4.4.2 command time limit");
    await s.closed;
  });

  test("each complete line restarts the count", async () => {
    const s = await open();
    app.clock.advance(COMMAND_MS - 1);
    expect(code(await s.send("EHLO client.example"))).toBe(250);
    app.clock.advance(COMMAND_MS - 1);
    expect(code(await s.send("NOOP"))).toBe(250);
    app.clock.advance(1);
    await settle();
    expect(s.isClosed()).toBe(false);
    app.clock.advance(COMMAND_MS - 1);
    expect(await s.reply()).toContain("421 4.4.2 command time limit");
    await s.closed;
  });

  test("in DATA too: a line trickled a byte at a time is cut at the limit", async () => {
    const s = await open();
    await s.send("EHLO client.example");
    await s.send("MAIL FROM:<s@example.org>");
    expect(code(await s.send(`RCPT TO:<help@${INBOUND_DOMAIN}>`))).toBe(250);
    expect(code(await s.send("DATA"))).toBe(354);
    await s.write("Subject: slow\r\n\r\nx");
    await settle();
    for (let i = 0; i < 9; i++) {
      app.clock.advance(1_000);
      await s.write("x");
    }
    await settle();
    app.clock.advance(999);
    await settle();
    expect(s.isClosed()).toBe(false);
    app.clock.advance(1);
    expect(await s.reply()).toContain("421 4.4.2 command time limit");
    await s.closed;
  });
});

describe("INBOUND_SMTP_SESSION_SECONDS", () => {
  test("a client that keeps sending lines is closed when the session reaches its limit, not 1 ms before", async () => {
    const s = await open();
    expect(code(await s.send("EHLO client.example"))).toBe(250);
    for (let elapsed = 0; elapsed + 9_000 < SESSION_MS; elapsed += 9_000) {
      app.clock.advance(9_000);
      expect(code(await s.send("NOOP"))).toBe(250);
    }
    // 54 s have passed; 5,999 ms more is 1 ms short of the session limit.
    app.clock.advance(SESSION_MS - 54_000 - 1);
    await settle();
    expect(s.isClosed()).toBe(false);
    app.clock.advance(1);
    expect(await s.reply()).toContain("421 4.4.2 session time limit");
    await s.closed;
  });
});

describe("connection caps", () => {
  test("INBOUND_SMTP_MAX_CONNECTIONS_PER_ADDRESS: the 3rd from one address is served, the 4th gets 421; one closed makes room", async () => {
    const clients = [await open(), await open(), await open()];
    expect(clients.map((c) => code(c.greeting))).toEqual([220, 220, 220]);
    const fourth = await open();
    expect(fourth.greeting).toContain("421 4.7.0 too many connections from your address");
    await fourth.closed;
    // Another address is not affected.
    const other = await open("127.0.0.2");
    expect(code(other.greeting)).toBe(220);
    await closeAll([clients[0]!]);
    const again = await open();
    expect(code(again.greeting)).toBe(220);
    await closeAll([clients[1]!, clients[2]!, other, again]);
  });

  test("INBOUND_SMTP_MAX_CONNECTIONS: the 6th connection in all is served, the 7th gets 421", async () => {
    const clients: (RawSmtp & { greeting: string })[] = [];
    for (const address of ["127.0.0.3", "127.0.0.3", "127.0.0.4", "127.0.0.4", "127.0.0.5", "127.0.0.5"]) clients.push(await open(address));
    expect(clients.map((c) => code(c.greeting))).toEqual([220, 220, 220, 220, 220, 220]);
    const seventh = await open("127.0.0.6");
    expect(seventh.greeting).toContain("421");
    await seventh.closed;
    await closeAll(clients);
    const after = await open("127.0.0.6");
    expect(code(after.greeting)).toBe(220);
    await closeAll([after]);
  });
});
