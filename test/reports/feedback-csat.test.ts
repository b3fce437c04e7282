// The widget's "Did that help?" and rating endpoints, the chat's hand-off reason on its ticket,
// and the rating link of a resolution email: rates once, a second click changes nothing, an
// expired or forged link is refused (README "CSAT").
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { conversationMessages, conversations, members, ticketCsatTokens, tickets } from "../../src/db/schema/index.ts";
import { CSAT_LIMITS, issueCsatToken } from "../../src/inbox/csat.ts";
import { addTicketMessage, updateTicket } from "../../src/inbox/ticket-writes.ts";
import { signIn, createTestApp, type TestApp } from "../support/app.ts";
import { chatJson, type ChatOrg, seedChatOrg } from "../support/chat.ts";

let app: TestApp;
let org: ChatOrg;
let other: ChatOrg;
let memberId: string;
const convOf = async (sessionId: string) =>
  (
    await app.deps.db
      .select()
      .from(conversations)
      .where(eq(conversations.sessionHash, sha256Hex(sessionId)))
  )[0]!;
const post = (path: string, json: unknown, key = org.widget_key) => app.request(path, { method: "POST", json, headers: { authorization: `Bearer ${key}` } });

beforeAll(async () => {
  app = await createTestApp();
  org = await seedChatOrg(app);
  other = await seedChatOrg(app);
  memberId = (await app.deps.db.select({ id: members.id }).from(members).where(eq(members.email, org.admin_email)))[0]!.id;
}, 240_000);
afterAll(() => app.close());

describe("POST /api/sdk/conversations/{session_id}/feedback", () => {
  test("a yes lands on the latest answer; a no replaces it", async () => {
    const { session_id } = await chatJson(app, org, { message: "How do I reset my password?" });
    const yes = await post(`/api/sdk/conversations/${session_id}/feedback`, { helpful: true });
    expect(yes.status).toBe(200);
    const body = (await yes.json()) as { message_id: string; helpful: boolean };
    const [row] = await app.deps.db.select().from(conversationMessages).where(eq(conversationMessages.id, body.message_id));
    expect(row).toMatchObject({ role: "agent", helpful: true });
    await post(`/api/sdk/conversations/${session_id}/feedback`, { helpful: false, message_id: body.message_id });
    const [after] = await app.deps.db.select().from(conversationMessages).where(eq(conversationMessages.id, body.message_id));
    expect(after!.helpful).toBe(false);
  });

  test("bad input and foreign sessions are refused", async () => {
    const { session_id } = await chatJson(app, org, { message: "How do I download invoices?" });
    expect((await post(`/api/sdk/conversations/${session_id}/feedback`, { helpful: "yes" })).status).toBe(400);
    expect((await post(`/api/sdk/conversations/${session_id}/feedback`, { helpful: true, message_id: crypto.randomUUID() })).status).toBe(404);
    expect((await post(`/api/sdk/conversations/${session_id}/feedback`, { helpful: true }, other.widget_key)).status).toBe(404);
    expect((await post(`/api/sdk/conversations/${session_id}/feedback`, { helpful: true }, "ab_live_nope")).status).toBe(401);
  });
});

describe("rating in the widget", () => {
  test("the hand-off reason is on the ticket; a resolved ticket is rated once, by a person", async () => {
    const { session_id } = await chatJson(app, org, { message: "Can I talk to a human?" });
    const conversation = await convOf(session_id);
    const [ticket] = await app.deps.db.select().from(tickets).where(eq(tickets.id, conversation.ticketId!));
    expect(ticket!.handoffReason).toBe("live_help");
    const rate = (json: unknown) => post(`/api/sdk/conversations/${session_id}/rating`, json);
    expect((await rate({ score: 4 })).status).toBe(409); // still open
    const prompt = () =>
      app.request(`/api/sdk/conversations/${session_id}/rating`, { headers: { authorization: `Bearer ${org.widget_key}` } }).then((r) => r.json());
    expect(await prompt()).toEqual({ ask: false, question: "How would you rate the help you received?", score: null });
    await addTicketMessage(app.deps, { orgId: org.org_id, actor: { kind: "member", memberId }, ticketId: ticket!.id, kind: "reply", body: "Done." });
    await updateTicket(app.deps, { orgId: org.org_id, actor: { kind: "member", memberId }, ticketId: ticket!.id, patch: { status: "resolved" } });
    expect(await prompt()).toEqual({ ask: true, question: "How would you rate the help you received?", score: null });
    expect((await rate({ score: 0 })).status).toBe(400);
    expect((await rate({ score: 6 })).status).toBe(400);
    expect((await rate({ score: 5, comment: "x".repeat(CSAT_LIMITS.comment + 1) })).status).toBe(400);
    const first = await rate({ score: 5, comment: "x".repeat(CSAT_LIMITS.comment) });
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ score: 5, handled_by: "person", recorded: true });
    expect(await (await rate({ score: 1 })).json()).toMatchObject({ score: 5, recorded: false });
    expect(await prompt()).toMatchObject({ ask: false, score: 5 });
    // Shown on the ticket's page in the inbox, with why the chat handed it over.
    const admin = await signIn(app, org.admin_email, org.password);
    const page = await (await app.request(`/dashboard/inbox/${ticket!.number}`, { headers: { authorization: `Bearer ${admin}` } })).text();
    expect(page).toContain("rated 5/5");
    expect(page).toContain("Handed over by the chat: the customer asked for a person.");
  });

  test("an org that turned CSAT off is not asked", async () => {
    const admin = await signIn(app, other.admin_email, other.password);
    const put = await app.request("/api/widget/csat", {
      method: "PUT",
      json: { csat_enabled: false, csat_question: "Happy?" },
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(await put.json()).toEqual({ csat_enabled: false, csat_question: "Happy?" });
    const { session_id } = await chatJson(app, other, { message: "Can I talk to a human?" });
    const refused = await post(`/api/sdk/conversations/${session_id}/rating`, { score: 5 }, other.widget_key);
    expect(refused.status).toBe(409);
  });
});

describe("the rating link", () => {
  async function resolvedTicket() {
    const { session_id } = await chatJson(app, org, { message: "Can I talk to a human?" });
    const ticketId = (await convOf(session_id)).ticketId!;
    await updateTicket(app.deps, { orgId: org.org_id, actor: { kind: "member", memberId }, ticketId, patch: { status: "resolved" } });
    return ticketId;
  }
  const form = (token: string, score: string) => app.request(`/r/${token}`, { method: "POST", form: { score } });

  test("rates once; a second click changes nothing; only the hash is stored", async () => {
    const ticketId = await resolvedTicket();
    const token = await issueCsatToken(app.deps.db, { orgId: org.org_id, ticketId, now: app.deps.now() });
    const [stored] = await app.deps.db.select().from(ticketCsatTokens).where(eq(ticketCsatTokens.ticketId, ticketId));
    expect(stored!.tokenHash).toBe(sha256Hex(token));
    const shown = await app.request(`/r/${token}?score=4`);
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain('value="4" required checked');
    expect((await app.deps.db.select().from(tickets).where(eq(tickets.id, ticketId)))[0]!.csatScore).toBeNull(); // a GET never rates
    const first = await form(token, "4");
    expect(first.status).toBe(200);
    expect(await first.text()).toContain("4 out of 5");
    const second = await form(token, "1");
    expect(second.status).toBe(200);
    expect(await second.text()).toContain("4 out of 5");
    const [ticket] = await app.deps.db.select().from(tickets).where(eq(tickets.id, ticketId));
    expect(ticket).toMatchObject({ csatScore: 4, csatHandledBy: "ai" });
  });

  test("an expired link is refused at its expiry, a forged one always", async () => {
    const ticketId = await resolvedTicket();
    const token = await issueCsatToken(app.deps.db, { orgId: org.org_id, ticketId, now: app.deps.now() });
    app.clock.advance(CSAT_LIMITS.linkDays * 24 * 3600 * 1000 - 1);
    expect((await app.request(`/r/${token}`)).status).toBe(200);
    app.clock.advance(1);
    expect((await app.request(`/r/${token}`)).status).toBe(410);
    expect((await form(token, "5")).status).toBe(410);
    expect((await form(`${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`, "5")).status).toBe(404);
    expect((await app.request(`/r/${"x".repeat(129)}`)).status).toBe(400);
    expect((await app.deps.db.select().from(tickets).where(eq(tickets.id, ticketId)))[0]!.csatScore).toBeNull();
  });
});
