// An anonymous visitor who leaves an email address at hand-off can be reached (README "Live
// conversation"; docs/decisions.md "Reaching an anonymous visitor"), through the HTTP API the
// widget uses: the visitor chats, asks for a person, leaves an address (POST
// /api/sdk/conversations/{session_id}/contact), closes the tab (no stream), a member replies from
// the inbox, and the reply arrives by email at a real SMTP server on loopback. The address is an
// unverified claim: never merged into the verified customer holding it. identify() later in the
// same chat attaches the identified customer to the waiting ticket, with proof when verification is on.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createSender } from "../../src/compose.ts";
import { endUsers } from "../../src/db/schema/index.ts";
import { REPLY_SEEN_GRACE_MS } from "../../src/inbox/reply-mail.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { chatJson, type ChatOrg, seedChatOrg } from "../support/chat.ts";
import { emailEnv } from "../support/email.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";
import { sdk, userToken } from "./helpers.ts";
import { CHAT_LIMITS } from "../../src/conversations/input.ts";

let smtp: TestSmtp;
let app: TestApp;
let sender: Sender;
let org: ChatOrg;
let auth: Record<string, string>;
let call: ReturnType<typeof sdk>;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await createTestApp(emailEnv(smtp.url, { SDK_RATE_LIMIT_PER_KEY_IP_PER_MINUTE: "40" }));
  org = await seedChatOrg(app, { docs: false });
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  call = sdk(app, org.widget_key);
  sender = createSender(app.deps);
}, 180_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
  await smtp.close();
});

let ip = 0;
/** Each scenario from its own address, so the per key and address quota is the rate-limit test's alone. */
const from = () => ({ "x-forwarded-for": `198.51.100.${++ip}` });

/** An anonymous visitor's chat handed to a person: the session id and the ticket. */
async function handedOff() {
  const handed = await chatJson(app, org, { message: "I want to talk to a person" });
  expect(handed.routing?.ticket_id).toBeString();
  return { sessionId: handed.session_id as string, ticketId: handed.routing.ticket_id as string };
}
const contact = (sessionId: string, body: unknown, headers = from()) => call(`/api/sdk/conversations/${sessionId}/contact`, body, headers);
const ticket = async (id: string) =>
  (await (await app.request(`/api/tickets/${id}`, { headers: auth })).json()) as {
    number: number;
    customer: { id: string; email: string | null; external_id: string | null; verified: boolean } | null;
  };

describe("an anonymous visitor reached by email", () => {
  test("leaves an address at hand-off, closes the tab, and receives the person's reply by email", async () => {
    // A verified customer already holds the address: the typed address must not reach them.
    const owner = await call(
      "/api/sdk/users/identify",
      {
        user_id: "real-owner",
        user_token: await userToken(org.identity_secret, { user_id: "real-owner", email: "walk.in@customer.example" }, { now: app.clock.now }),
      },
      from(),
    );
    expect(owner.status).toBe(200);
    const ownerBefore = (await app.deps.db.select().from(endUsers).where(eq(endUsers.externalId, "real-owner")))[0]!;

    const { sessionId, ticketId } = await handedOff();
    expect((await ticket(ticketId)).customer).toBeNull();

    const given = await contact(sessionId, { email: "Walk.In@Customer.example" });
    expect(given.status).toBe(200);
    const answer = await given.json();
    expect(answer).toEqual({ ticket_number: (await ticket(ticketId)).number, email: "walk.in@customer.example", verified: false });

    // The ticket's customer is a new unverified record with the address, not the verified owner.
    const shown = (await ticket(ticketId)).customer!;
    expect(shown).toMatchObject({ email: "walk.in@customer.example", external_id: null, verified: false });
    expect(shown.id).not.toBe(ownerBefore.id);
    const ownerAfter = (await app.deps.db.select().from(endUsers).where(eq(endUsers.externalId, "real-owner")))[0]!;
    expect(ownerAfter).toEqual(ownerBefore);
    // The inbox shows the address as the ticket's customer, marked not verified.
    const signedIn = await app.request("/signin", {
      form: { email: org.admin_email, password: org.password, return_to: "/dashboard" },
      headers: { origin: app.deps.config.baseUrl },
    });
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    const page = await (await app.request(`/dashboard/inbox/${answer.ticket_number}`, { headers: { cookie } })).text();
    expect(page).toContain(`walk.in@customer.example</a> (not verified)`);
    // The chat stays anonymous: the visitor's widget still reads it with the session id alone.
    expect((await call(`/api/sdk/conversations/${sessionId}`, undefined, from())).status).toBe(200);

    // The tab is closed (no stream); a member replies from the inbox.
    const reply = await app.request(`/api/tickets/${ticketId}/replies`, { headers: auth, json: { body: "Hello from a person: your refund is on its way." } });
    expect(reply.status).toBe(201);
    await sender.tick();
    const mails = () => smtp.received.filter((m) => m.to.includes("walk.in@customer.example"));
    expect(mails()).toEqual([]); // the widget may still pick it up during the grace
    app.clock.advance(REPLY_SEEN_GRACE_MS);
    await sender.tick();
    expect(mails()).toHaveLength(1);
    expect(mails()[0]!.parts.get("text/plain")).toContain("Hello from a person: your refund is on its way.");
    expect(mails()[0]!.headers.get("subject")).toStartWith("Re: ");
  });

  test("an address given again replaces the first; the first record is left as it was", async () => {
    const { sessionId, ticketId } = await handedOff();
    expect((await contact(sessionId, { email: "first@typo.example" })).status).toBe(200);
    const first = (await ticket(ticketId)).customer!;
    expect((await contact(sessionId, { email: "second@right.example" })).status).toBe(200);
    expect((await ticket(ticketId)).customer).toMatchObject({ email: "second@right.example", verified: false });
    expect((await app.deps.db.select().from(endUsers).where(eq(endUsers.id, first.id)))[0]!.email).toBe("first@typo.example");
    // The same address again changes nothing.
    const again = await contact(sessionId, { email: "second@right.example" });
    expect(again.status).toBe(200);
    expect((await ticket(ticketId)).customer!.email).toBe("second@right.example");
  });
});

describe("what the contact endpoint refuses", () => {
  test("invalid addresses and bodies: 400 with the error shape", async () => {
    const { sessionId } = await handedOff();
    const local = "a".repeat(320 - "@x.example".length);
    for (const body of [
      {},
      { email: "" },
      { email: "no-at-sign" },
      { email: "two@@example.org" },
      { email: "a@localhost" },
      { email: "with space@example.org" },
      { email: `${local}z@x.example` },
      { email: 42 },
    ]) {
      const res = await contact(sessionId, body);
      expect(res.status).toBe(400);
      expect((await res.json()).error.code).toBe("validation_failed");
    }
    // 320 characters is the limit, and accepted.
    expect((await contact(sessionId, { email: `${local}@x.example` })).status).toBe(200);
  });

  test("no key 401; an unknown session 404; a chat with no ticket 409; a resolved ticket 409", async () => {
    const { sessionId, ticketId } = await handedOff();
    expect((await app.request(`/api/sdk/conversations/${sessionId}/contact`, { json: { email: "a@b.example" } })).status).toBe(401);
    const unknown = await contact("cs_unknown", { email: "a@b.example" });
    expect(unknown.status).toBe(404);
    const plain = await chatJson(app, org, { message: "Hello there" });
    const none = await contact(plain.session_id, { email: "a@b.example" });
    expect(none.status).toBe(409);
    expect((await none.json()).error.code).toBe("no_ticket");
    expect((await app.request(`/api/tickets/${ticketId}`, { method: "PATCH", headers: auth, json: { status: "resolved" } })).status).toBe(200);
    const late = await contact(sessionId, { email: "a@b.example" });
    expect(late.status).toBe(409);
    expect((await late.json()).error.code).toBe("ticket_not_waiting");
  });

  test("an identified customer's chat: 409 customer_known, nothing written", async () => {
    const handed = await chatJson(app, org, { message: "I want to talk to a person", user_id: "known-chatter" });
    const res = await contact(handed.session_id, { email: "someone.else@example.org" });
    expect(res.status).toBe(409);
    expect((await res.json()).error.code).toBe("customer_known");
    expect((await ticket(handed.routing.ticket_id)).customer).toMatchObject({ external_id: "known-chatter" });
    expect(await app.deps.db.select().from(endUsers).where(eq(endUsers.email, "someone.else@example.org"))).toEqual([]);
  });

  test("rate-limited like every keyed SDK request: 429 with Retry-After", async () => {
    const { sessionId } = await handedOff();
    const same = { "x-forwarded-for": "203.0.113.99" };
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await contact(sessionId, { email: `n${i}@example.org` }, same)).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const refused = await contact(sessionId, { email: "n40@example.org" }, same);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await refused.json()).error.code).toBe("rate_limited");
  });
});

describe("identify() later in the same chat", () => {
  test("attaches the identified customer to the waiting ticket, over the address left at hand-off", async () => {
    const { sessionId, ticketId } = await handedOff();
    expect((await contact(sessionId, { email: "anon@visitor.example" })).status).toBe(200);
    const res = await call("/api/sdk/users/identify", { user_id: "later-42", email: "later@customer.example", session_id: sessionId }, from());
    expect(res.status).toBe(200);
    expect((await ticket(ticketId)).customer).toMatchObject({ external_id: "later-42", email: "later@customer.example", verified: false });
    // The session is now that customer's, as the chat's own rule has it.
    expect((await call(`/api/sdk/conversations/${sessionId}`, undefined, { ...from(), "x-user-id": "later-42" })).status).toBe(200);
    expect((await call(`/api/sdk/conversations/${sessionId}`, undefined, from())).status).toBe(403);
    // A second identity cannot take the ticket over: the session is another customer's now.
    const other = await call("/api/sdk/users/identify", { user_id: "intruder", session_id: sessionId }, from());
    expect(other.status).toBe(403);
    expect((await other.json()).error.code).toBe("session_forbidden");
    expect(await app.deps.db.select().from(endUsers).where(eq(endUsers.externalId, "intruder"))).toEqual([]);
    expect((await ticket(ticketId)).customer!.external_id).toBe("later-42");
  });

  test("an unknown session is 404 and writes nothing; without a session, identify is as before", async () => {
    const res = await call("/api/sdk/users/identify", { user_id: "ghost-1", session_id: "cs_nothing_here" }, from());
    expect(res.status).toBe(404);
    expect(await app.deps.db.select().from(endUsers).where(eq(endUsers.externalId, "ghost-1"))).toEqual([]);
    expect((await call("/api/sdk/users/identify", { user_id: "ghost-2" }, from())).status).toBe(200);
    // A session id as long as chat accepts is looked up (unknown: 404); one character more is 400.
    const longest = `cs_${"x".repeat(CHAT_LIMITS.sessionId - 3)}`;
    expect((await call("/api/sdk/users/identify", { user_id: "ghost-3", session_id: longest }, from())).status).toBe(404);
    const over = await call("/api/sdk/users/identify", { user_id: "ghost-3", session_id: `${longest}x` }, from());
    expect(over.status).toBe(400);
    expect((await over.json()).error.details[0].path).toBe("/session_id");
  });
});

describe("identify() with identity verification on", () => {
  test("a claim without a token changes nothing; a valid token attaches the verified customer", async () => {
    const { sessionId, ticketId } = await handedOff();
    expect((await contact(sessionId, { email: "anon2@visitor.example" })).status).toBe(200);
    expect((await app.request("/api/widget/identity", { method: "PUT", headers: auth, json: { enabled: true } })).status).toBe(200);
    try {
      const claim = await call("/api/sdk/users/identify", { user_id: "proven-7", session_id: sessionId }, from());
      expect(claim.status).toBe(403);
      expect((await ticket(ticketId)).customer).toMatchObject({ email: "anon2@visitor.example", verified: false });
      const token = await userToken(org.identity_secret, { user_id: "proven-7", email: "proven@customer.example" }, { now: app.clock.now });
      const proven = await call("/api/sdk/users/identify", { user_id: "proven-7", user_token: token, session_id: sessionId }, from());
      expect(proven.status).toBe(200);
      expect((await ticket(ticketId)).customer).toMatchObject({ external_id: "proven-7", email: "proven@customer.example", verified: true });
    } finally {
      expect((await app.request("/api/widget/identity", { method: "PUT", headers: auth, json: { enabled: false } })).status).toBe(200);
    }
  });
});
