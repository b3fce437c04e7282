// One email must not freeze the service (README "Email channel"): some of email-reply-parser's
// quote-header patterns take quadratic time, so a few hundred KB of quote-like lines took seconds
// of the HTTP thread. The reply extraction now reads at most REPLY_INPUT_CHARS, on a worker thread
// with a time limit (src/mail-in/reply-thread.ts). Both ways in are tried — the SMTP listener and
// the relay endpoint — with /healthz asked over and over meanwhile.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import nodemailer from "nodemailer";
import { createReplyThread, REPLY_INPUT_CHARS } from "../../../src/mail-in/reply-thread.ts";
import { startInboundSmtp, type InboundSmtp } from "../../../src/mail-in/smtp.ts";
import { createTestApp, signIn, type TestApp } from "../../support/app.ts";
import { freePort } from "../../support/process.ts";
import { seedInboxOrg, type InboxOrg } from "../../inbox/helpers.ts";
import { INBOUND_DOMAIN, WEBHOOK_SECRET, emailEnv } from "../../support/email.ts";

// Lines that start like the Dutch, Polish and Danish quote headers ("Op … schreef", "Dnia …
// pisze", "man. … skrev") but never finish one: each such line makes the pattern scan the rest
// of the text, so the work grows with the square of its size (about 10 s for this much, unbounded).
const LINES = [
  "Op Mon, Jan 1, 2024 at 10:00 AM someone wrote",
  "Dnia Mon, Jan 1, 2024 at 10:00 AM someone wrote",
  "mon. Jan 1, 2024 at 10:00 AM someone wrote",
];
function hostileText(bytes: number): string {
  const parts: string[] = ["Hello, here is my question."];
  for (let size = 0, i = 0; size < bytes; i++) {
    const line = LINES[i % LINES.length]!;
    parts.push(line);
    size += line.length + 2;
  }
  return parts.join("\r\n");
}
const HOSTILE = hostileText(420 * 1024);

let app: TestApp;
let inbound: InboundSmtp;
let org: InboxOrg & { auth: Record<string, string> };

beforeAll(async () => {
  const port = freePort();
  app = await createTestApp(emailEnv("smtp://127.0.0.1:9", { INBOUND_SMTP_PORT: String(port) }));
  inbound = await startInboundSmtp(app.deps, port, "127.0.0.1");
  const seeded = await seedInboxOrg(app);
  org = { ...seeded, auth: { authorization: `Bearer ${await signIn(app, seeded.admin_email, seeded.password)}` } };
  expect((await app.request("/api/email/settings", { method: "PUT", headers: org.auth, json: { support_alias: "help" } })).status).toBe(200);
  await app.deps.replies.visible("warm up the thread"); // the worker's start is not what is measured
}, 60_000);
afterAll(async () => {
  await inbound.close();
  await app.close();
});

function message(id: string): string {
  return `From: Mallory <mallory@attacker.example>\r\nTo: help@${INBOUND_DOMAIN}\r\nSubject: Quotes\r\nMessage-ID: <${id}@attacker.example>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${HOSTILE}\r\n`;
}

/**
 * Runs `work` while asking /healthz every 10 ms (in this process, so on the same event loop as the
 * parser), and returns the longest wait for an answer, counted from when the next question was
 * due: a frozen loop neither sends the next question nor answers it until the parse ends (seconds
 * for this body, four times that for twice the size); a free one answers within a few ms. The
 * bound asserted below is generous — well above a busy two-core machine's scheduling noise, far
 * below the frozen case — because it only tells "frozen" from "not frozen".
 */
async function longestHealthz<T>(work: Promise<T>): Promise<{ result: T; longestMs: number }> {
  let done = false;
  let longestMs = 0;
  const probe = (async () => {
    while (!done) {
      const due = performance.now() + 10;
      await Bun.sleep(10);
      const res = await app.request("/healthz");
      expect(res.status).toBe(200);
      longestMs = Math.max(longestMs, performance.now() - due);
    }
  })();
  try {
    return { result: await work, longestMs };
  } finally {
    done = true;
    await probe;
  }
}

async function landed(ticketId: string) {
  const ticket = (await (await app.request(`/api/tickets/${ticketId}`, { headers: org.auth })).json()) as { messages: { id: string; body: string }[] };
  const email = (await (await app.request(`/api/tickets/${ticketId}/messages/${ticket.messages[0]!.id}/email`, { headers: org.auth })).json()) as {
    original: string;
  };
  return { body: ticket.messages[0]!.body, original: email.original };
}

describe("a body of quote-like lines", () => {
  test("on the relay endpoint: stored, and /healthz answered meanwhile", async () => {
    const { result: res, longestMs } = await longestHealthz(
      app.request("/api/inbound/email", {
        method: "POST",
        headers: { authorization: `Bearer ${WEBHOOK_SECRET}`, "content-type": "message/rfc822" },
        body: message("slow-relay"),
      }),
    );
    expect(res.status).toBe(200);
    expect(longestMs).toBeLessThan(1_000);
    const [result] = ((await res.json()) as { results: { status: string; ticket_id: string }[] }).results;
    const { body, original } = await landed(result!.ticket_id);
    expect(body.startsWith("Hello, here is my question.")).toBe(true);
    // The original keeps what the message said past what extraction read (up to its own limit).
    expect(original.length).toBeGreaterThan(REPLY_INPUT_CHARS);
  }, 60_000);

  test("on the SMTP listener: accepted, stored, and /healthz answered meanwhile", async () => {
    const client = nodemailer.createTransport({ host: "127.0.0.1", port: inbound.port, secure: false, ignoreTLS: true });
    try {
      const { result: info, longestMs } = await longestHealthz(
        client.sendMail({ envelope: { from: "mallory@attacker.example", to: [`help@${INBOUND_DOMAIN}`] }, raw: message("slow-smtp") }),
      );
      expect(info.accepted).toEqual([`help@${INBOUND_DOMAIN}`]);
      expect(longestMs).toBeLessThan(1_000);
    } finally {
      client.close();
    }
  }, 60_000);
});

describe("the extraction thread", () => {
  const thread = createReplyThread();
  const visibleReply = (text: string, timeLimitMs?: number) => thread.visible(text, timeLimitMs);
  test("strips quoted history from an ordinary reply", async () => {
    expect((await visibleReply("Thanks, that worked.\n\nOn Mon, Jan 1, 2024 at 10:00 AM Support <s@acme.example> wrote:\n> Try again.\n")).trim()).toBe(
      "Thanks, that worked.",
    );
  });

  test("past its time limit, the message keeps the capped text as it came, and the next one is extracted again", async () => {
    const text = hostileText(2 * REPLY_INPUT_CHARS).replace(/\r\n/g, "\n");
    const fallback = await visibleReply(text, 0);
    expect(fallback).toBe(text.slice(0, REPLY_INPUT_CHARS));
    expect((await visibleReply("Fine.\n\nOn Mon, Jan 1, 2024 at 10:00 AM Support <s@acme.example> wrote:\n> Hi\n")).trim()).toBe("Fine.");
  });
});
