// Whether a person's reply on a chat ticket is emailed (README "Email channel"; docs/decisions.md
// "When a reply is emailed"): only the customer's own widget counts as having seen it — a reply
// its event stream handed over, or that it loaded with the conversation, is not emailed; a member's
// dashboard page following the same ticket never counts; a reply nobody's widget received is
// mailed after REPLY_SEEN_GRACE_MS, also when the customer left a moment before; and an email
// threads only on messages the customer has as email. Real requests, a real SMTP server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, sql } from "drizzle-orm";
import { createSender } from "../../src/compose.ts";
import { outbox } from "../../src/db/schema/index.ts";
import { REPLY_MAIL_KIND, REPLY_SEEN_GRACE_MS } from "../../src/inbox/reply-mail.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { signIn, createTestApp, type TestApp } from "../support/app.ts";
import { chatJson, type ChatOrg, seedChatOrg } from "../support/chat.ts";
import { emailEnv } from "../support/email.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";
import { readEvents } from "../support/sse.ts";

let smtp: TestSmtp;
let app: TestApp;
let sender: Sender;
let org: ChatOrg;
let auth: Record<string, string>;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await createTestApp(emailEnv(smtp.url));
  org = await seedChatOrg(app, { docs: false });
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  sender = createSender(app.deps);
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
  await smtp.close();
});

let n = 0;
/** A customer with an address whose widget chat was handed to a person. */
async function chatCustomer() {
  const userId = `seen-${++n}`;
  const email = `${userId}@customer.example`;
  const widget = { authorization: `Bearer ${org.widget_key}`, "x-user-id": userId };
  expect((await app.request("/api/sdk/users/identify", { headers: { authorization: widget.authorization }, json: { user_id: userId, email } })).status).toBe(
    200,
  );
  const handed = await chatJson(app, org, { message: "I want to talk to a person", user_id: userId });
  const sessionId = handed.session_id as string;
  const ticketId = handed.routing.ticket_id as string;
  return {
    email,
    ticketId,
    mails: () => smtp.received.filter((m) => m.to.includes(email)),
    /** The widget's event stream (GET /api/sdk/conversations/{session_id}/events). */
    async widgetStream() {
      const res = await app.request(`/api/sdk/conversations/${sessionId}/events`, { headers: widget });
      expect(res.status).toBe(200);
      return readEvents(res);
    },
    /** The widget loads the conversation (a reload, or the panel opened). */
    async load() {
      const res = await app.request(`/api/sdk/conversations/${sessionId}`, { headers: widget });
      expect(res.status).toBe(200);
      return (await res.json()) as { messages: { id: string; kind: string }[] };
    },
    /** The member's ticket page in the dashboard follows the same ticket. */
    async dashboardStream() {
      const res = await app.request(`/api/tickets/${ticketId}/events`, { headers: auth });
      expect(res.status).toBe(200);
      return readEvents(res);
    },
    async reply(body: string): Promise<string> {
      const res = await app.request(`/api/tickets/${ticketId}/replies`, { headers: auth, json: { body } });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    },
  };
}

const firstLines = (mails: { parts: Map<string, string> }[]) => mails.map((m) => m.parts.get("text/plain")?.trim().split(/\r?\n/)[0]);

async function replyRow(messageId: string) {
  const [row] = await app.deps.db
    .select()
    .from(outbox)
    .where(and(eq(outbox.kind, REPLY_MAIL_KIND), sql`${outbox.payload}->>'message_id' = ${messageId}`));
  return row!;
}

/** Waits until the reply's email is no longer pending (the widget's delivery is recorded after the bytes left). */
async function settled(messageId: string) {
  for (let i = 0; i < 500 && (await replyRow(messageId)).status === "pending"; i++) await Bun.sleep(10);
  return replyRow(messageId);
}

describe("seen in the widget, or emailed", () => {
  test("the dashboard's ticket page is open and the customer is gone: the reply is emailed", async () => {
    const c = await chatCustomer();
    const widget = await c.widgetStream();
    widget.close();
    app.clock.advance(89_000);
    const page = await c.dashboardStream();
    const id = await c.reply("Sorry for the wait, here is the answer.");
    await page.waitFor((e) => e.event === "message" && JSON.parse(e.data).id === id);
    await sender.tick();
    app.clock.advance(REPLY_SEEN_GRACE_MS);
    await sender.tick();
    page.close();
    expect(firstLines(c.mails())).toEqual(["Sorry for the wait, here is the answer."]);
  });

  test("the widget received the reply on its stream: not emailed, even after the customer left", async () => {
    const c = await chatCustomer();
    const widget = await c.widgetStream();
    const id = await c.reply("Seen live.");
    await widget.waitFor((e) => e.event === "message" && JSON.parse(e.data).id === id);
    widget.close();
    expect(await settled(id)).toMatchObject({ status: "cancelled", lastError: "customer saw the reply live" });
    app.clock.advance(2 * REPLY_SEEN_GRACE_MS);
    await sender.tick();
    expect(c.mails()).toEqual([]);
  });

  test("the widget loaded the conversation with the reply in it: not emailed", async () => {
    const c = await chatCustomer();
    const id = await c.reply("Read on reload.");
    expect((await c.load()).messages.map((m) => m.id)).toContain(id);
    expect(await replyRow(id)).toMatchObject({ status: "cancelled" });
    app.clock.advance(REPLY_SEEN_GRACE_MS);
    await sender.tick();
    expect(c.mails()).toEqual([]);
  });

  test("a reply made seconds after the customer left is emailed once the grace has passed", async () => {
    const c = await chatCustomer();
    const widget = await c.widgetStream();
    widget.close();
    await widget.ended.catch(() => {});
    app.clock.advance(5_000);
    const id = await c.reply("Are you still there?");
    await sender.tick();
    expect(c.mails()).toEqual([]);
    expect(await replyRow(id)).toMatchObject({ status: "pending" });
    app.clock.advance(REPLY_SEEN_GRACE_MS);
    await sender.tick();
    expect(firstLines(c.mails())).toEqual(["Are you still there?"]);
  });

  test("In-Reply-To and References name only what the customer has as email", async () => {
    const c = await chatCustomer();
    const widget = await c.widgetStream();
    const seen = await c.reply("First answer, seen live.");
    await widget.waitFor((e) => e.event === "message" && JSON.parse(e.data).id === seen);
    widget.close();
    expect(await settled(seen)).toMatchObject({ status: "cancelled" });

    const second = await c.reply("Second answer, by email.");
    app.clock.advance(REPLY_SEEN_GRACE_MS);
    await sender.tick();
    const third = await c.reply("Third answer, by email too.");
    app.clock.advance(REPLY_SEEN_GRACE_MS);
    await sender.tick();

    const [a, b, ...more] = c.mails();
    expect(more).toEqual([]);
    expect(firstLines([a!, b!])).toEqual(["Second answer, by email.", "Third answer, by email too."]);
    expect(a!.headers.get("message-id")).toBe(`<${second}@acme.example>`);
    // The live reply and the chat messages were never emailed: nothing to answer yet.
    expect(a!.headers.has("in-reply-to")).toBe(false);
    expect(a!.headers.has("references")).toBe(false);
    expect(b!.headers.get("in-reply-to")).toBe(`<${second}@acme.example>`);
    expect(b!.headers.get("references")).toBe(`<${second}@acme.example>`);
  });
});
