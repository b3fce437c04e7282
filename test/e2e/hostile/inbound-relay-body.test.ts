// POST /api/inbound/email reads nothing before it knows the relay is on and the secret is right
// (README "Email channel"): an unauthenticated 24 MiB upload gets its 401 while the client is
// still sending, eight of them leave the process's memory where it was, and with the relay off
// the server-wide body cap stays at the largest other route's (Bun refuses the upload at once).
// The app runs behind a real Bun.serve with the cap src/server.ts gives it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { MAX_BODY_BYTES, serverBodyCap, UPLOAD_BYTES } from "../../../src/http/body.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { INBOUND_DOMAIN, WEBHOOK_SECRET, emailEnv } from "../../support/email.ts";

const HUGE = 24 * 1024 * 1024;

function listen(app: TestApp) {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    maxRequestBodySize: serverBodyCap(app.deps.config.inbound),
    fetch: (request, server) => app.handle(request, server),
  });
}

/**
 * Sends a POST declaring `HUGE` bytes and streams them, and reports the status line and how many
 * body bytes had been handed to the socket when the answer came. A server that reads the body
 * first answers only after all of it; one that answers first answers after the kernel's buffers
 * (a few MiB at most) and closes.
 */
function upload(port: number, auth: string | null): Promise<{ status: number; sentBeforeAnswer: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    let sent = 0;
    let answered: { status: number; sentBeforeAnswer: number } | null = null;
    socket.on("connect", () => {
      socket.write(
        `POST /api/inbound/email HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: message/rfc822\r\nContent-Length: ${HUGE}\r\n${auth ? `Authorization: ${auth}\r\n` : ""}\r\n`,
      );
      const pump = () => {
        while (!answered && sent < HUGE && !socket.destroyed) {
          sent += chunk.length;
          if (!socket.write(chunk)) return void socket.once("drain", pump);
        }
      };
      pump();
    });
    socket.on("data", (data: Buffer) => {
      answered ??= { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data.toString("latin1"))?.[1] ?? 0), sentBeforeAnswer: sent };
      socket.destroy();
      resolve(answered);
    });
    socket.on("error", (error) => (answered ? undefined : reject(error)));
    socket.on("close", () => (answered ? undefined : reject(new Error(`closed without an answer after ${sent} bytes`))));
  });
}

describe("relay on", () => {
  let app: TestApp;
  let server: ReturnType<typeof listen>;
  beforeAll(async () => {
    app = await createTestApp(emailEnv("smtp://127.0.0.1:9", { INBOUND_MAX_MESSAGE_BYTES: String(25 * 1024 * 1024) }));
    server = listen(app);
  }, 60_000);
  afterAll(async () => {
    server.stop(true);
    await app.close();
  });

  test("a 24 MiB body without the secret, or with a wrong one, is refused with 401 before it is read; RSS stays flat over 8", async () => {
    const first = await upload(server.port!, null);
    expect(first.status).toBe(401);
    expect(first.sentBeforeAnswer).toBeLessThan(HUGE / 2);
    Bun.gc(true);
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 8; i++) {
      const refused = await upload(server.port!, i % 2 ? `Bearer ${"x".repeat(WEBHOOK_SECRET.length)}` : null);
      expect([refused.status, refused.sentBeforeAnswer < HUGE / 2]).toEqual([401, true]);
    }
    Bun.gc(true);
    // Reading them would have held 8 × 24 MiB (192 MiB) at some point; refusing first holds none.
    expect((process.memoryUsage().rss - before) / 2 ** 20).toBeLessThan(64);
  }, 60_000);

  test("with the secret, the body is read under INBOUND_MAX_MESSAGE_BYTES and a relayed message still lands", async () => {
    const raw = `From: Ray <ray@example.org>\r\nTo: nobody@${INBOUND_DOMAIN}\r\nSubject: Hi\r\nMessage-ID: <cap-1@example.org>\r\n\r\nHello.\r\n`;
    const res = await fetch(`http://127.0.0.1:${server.port}/api/inbound/email`, {
      method: "POST",
      headers: { authorization: `Bearer ${WEBHOOK_SECRET}`, "content-type": "message/rfc822" },
      body: raw,
    });
    // Read, parsed, and refused for its recipient (no alias here): the body reached the route.
    expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([404, "unknown_recipient"]);
  });
});

describe("relay off", () => {
  let app: TestApp;
  let server: ReturnType<typeof listen>;
  beforeAll(async () => {
    app = await createTestApp({ INBOUND_EMAIL_DOMAIN: INBOUND_DOMAIN });
    server = listen(app);
  }, 60_000);
  afterAll(async () => {
    server.stop(true);
    await app.close();
  });

  test("the server-wide cap is the largest parsed route's, not the relay's", () => {
    // The largest route read before its caller is known stays at 5 MiB; uploads (read only after
    // the member is known) raise what Bun accepts, never what is read unauthenticated.
    expect(serverBodyCap(app.deps.config.inbound)).toBe(Math.max(MAX_BODY_BYTES, UPLOAD_BYTES));
    expect(MAX_BODY_BYTES).toBe(5 * 1024 * 1024);
  });

  test("a 24 MiB body to the relay, and to another route, is refused before it is read", async () => {
    const relay = await upload(server.port!, `Bearer ${WEBHOOK_SECRET}`);
    expect([relay.status === 413 || relay.status === 404, relay.sentBeforeAnswer < HUGE / 2]).toEqual([true, true]);
  }, 60_000);

  test("within the cap, the relay answers 404 (not enabled) without reading the body", async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/api/inbound/email`, {
      method: "POST",
      headers: { authorization: `Bearer ${WEBHOOK_SECRET}` },
      body: "x".repeat(1024),
    });
    expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([404, "not_found"]);
  });
});
