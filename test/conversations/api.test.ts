// Dashboard conversations API (role inbox:view): list with filters
// (customer, agent, routed, date) and a cursor; one conversation with its messages and actions;
// the tenant boundary.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { agents, conversations } from "../../src/db/schema/index.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { addMember } from "../inbox/helpers.ts";
import { chat, chatJson, type ChatOrg, seedChatOrg } from "../support/chat.ts";

let app: TestApp;
let org: ChatOrg;
let other: ChatOrg;
let admin: string;
let otherAdmin: string;
const sessions: Record<string, string> = {};

const get = (path: string, token = admin, headers: Record<string, string> = {}) =>
  app.request(path, { headers: { authorization: `Bearer ${token}`, ...headers } });
const idOf = async (sessionId: string) => {
  const [row] = await app.deps.db
    .select({ id: conversations.id })
    .from(conversations)
    .where(eq(conversations.sessionHash, sha256Hex(sessionId)));
  return row!.id;
};

beforeAll(async () => {
  app = await createTestApp();
  org = await seedChatOrg(app);
  other = await seedChatOrg(app);
  admin = await signIn(app, org.admin_email, org.password);
  otherAdmin = await signIn(app, other.admin_email, other.password);
  // Five conversations, one second apart: two of ann's, one routed, one with another agent.
  const step = () => app.clock.advance(1000);
  sessions.ann1 = (await chatJson(app, org, { message: "How do I reset my password?", user_id: "ann" })).session_id;
  step();
  sessions.ann2 = (await chatJson(app, org, { message: "Can I talk to a human?", user_id: "ann" })).session_id;
  step();
  sessions.anon = (await chatJson(app, org, { message: "How do I download invoices?" })).session_id;
  step();
  const [second] = await app.deps.db.insert(agents).values({ orgId: org.org_id, name: "Second", status: "inactive" }).returning();
  sessions.second = (await chatJson(app, org, { message: "hello", agent_id: second!.id })).session_id;
  step();
  sessions.bob = (await chatJson(app, org, { message: "What is the capital of Peru?", user_id: "bob" })).session_id;
  await chatJson(app, other, { message: "other org's conversation" });
}, 30_000);
afterAll(() => app.close());

describe("GET /api/conversations", () => {
  test("needs a session and inbox:view", async () => {
    expect((await app.request("/api/conversations")).status).toBe(401);
    const { token } = await addMember(app, org.org_id, ["knowledge:view"]);
    expect((await get("/api/conversations", token)).status).toBe(403);
    const viewer = await addMember(app, org.org_id, ["inbox:view"]);
    expect((await get("/api/conversations", viewer.token)).status).toBe(200);
  });

  test("lists the org's conversations newest first, never another org's", async () => {
    const body = (await (await get("/api/conversations")).json()) as any;
    expect(body.conversations.map((c: any) => c.id)).toEqual(await Promise.all(["bob", "second", "anon", "ann2", "ann1"].map((k) => idOf(sessions[k]!))));
    expect(body.next_cursor).toBeUndefined();
    expect(body.conversations[0]).toMatchObject({
      customer_id: expect.any(String),
      anonymous: false,
      agent_id: org.agent_id,
      mode: "chat",
      routed: false,
      message_count: 2,
    });
    expect(body.conversations[0].customer).toMatchObject({ id: body.conversations[0].customer_id, external_id: "bob" });
    expect(body.conversations[2]).toMatchObject({ anonymous: true, customer_id: null, customer: null });
    expect(JSON.stringify(body)).not.toContain(sessions.bob!);
  });

  test("filters: customer, agent, routed, date", async () => {
    const ann1 = (await (await get(`/api/conversations/${await idOf(sessions.ann1!)}`)).json()) as any;
    const byCustomer = (await (await get(`/api/conversations?customer=${ann1.customer_id}`)).json()) as any;
    expect(byCustomer.conversations.map((c: any) => c.id)).toEqual([await idOf(sessions.ann2!), ann1.id]);
    const secondAgent = (await (
      await get(`/api/conversations?agent=${((await (await get(`/api/conversations/${await idOf(sessions.second!)}`)).json()) as any).agent_id}`)
    ).json()) as any;
    expect(secondAgent.conversations.map((c: any) => c.id)).toEqual([await idOf(sessions.second!)]);
    const routed = (await (await get("/api/conversations?routed=true")).json()) as any;
    expect(routed.conversations.map((c: any) => c.id)).toEqual([await idOf(sessions.ann2!)]);
    expect(((await (await get("/api/conversations?routed=false")).json()) as any).conversations).toHaveLength(4);
    const since = new Date(ann1.created_at).getTime() + 2000;
    const dated = (await (await get(`/api/conversations?since=${new Date(since).toISOString()}&until=${new Date(since + 2000).toISOString()}`)).json()) as any;
    expect(dated.conversations.map((c: any) => c.id)).toEqual([await idOf(sessions.second!), await idOf(sessions.anon!)]);
    expect((await get("/api/conversations?customer=not-a-uuid")).status).toBe(200);
    expect((await get("/api/conversations?since=yesterday")).status).toBe(400);
    expect((await get("/api/conversations?routed=maybe")).status).toBe(400);
  });

  test("cursor pages never repeat or skip; limit 1..100", async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = (await (await get(`/api/conversations?limit=2${cursor ? `&cursor=${cursor}` : ""}`)).json()) as any;
      expect(page.conversations.length).toBeLessThanOrEqual(2);
      seen.push(...page.conversations.map((c: any) => c.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    expect((await get("/api/conversations?limit=100")).status).toBe(200);
    expect((await get("/api/conversations?limit=101")).status).toBe(400);
    expect((await get("/api/conversations?limit=0")).status).toBe(400);
    expect((await get("/api/conversations?cursor=garbage")).status).toBe(400);
  });
});

describe("GET /api/conversations/:id", () => {
  test("the conversation with its messages in order, actions, sources, confidence and routing", async () => {
    const routed = (await (await get(`/api/conversations/${await idOf(sessions.ann2!)}`)).json()) as any;
    expect(routed.messages.map((m: any) => m.role)).toEqual(["customer", "agent"]);
    expect(routed.messages[1]).toMatchObject({
      routing: { action: "live_help" },
      actions: [{ type: "ticket_created" }],
      confidence: 1,
      status: "complete",
      agent_id: org.agent_id,
    });
    const answered = (await (await get(`/api/conversations/${await idOf(sessions.ann1!)}`)).json()) as any;
    expect(answered.messages[1].sources[0]).toMatchObject({ title: "Reset your password" });
    expect(answered.messages[1].confidence).toBeGreaterThan(0.5);
    const low = (await (await get(`/api/conversations/${await idOf(sessions.bob!)}`)).json()) as any;
    expect(low.messages[1].actions).toEqual([{ type: "offer_person", label: expect.any(String) }]);
  });

  test("another org's conversation is 404, and naming another org is 403", async () => {
    const mine = await idOf(sessions.ann1!);
    expect((await get(`/api/conversations/${mine}`, otherAdmin)).status).toBe(404);
    expect((await get(`/api/conversations/${mine}`, admin, { "x-org-id": other.org_id })).status).toBe(403);
    expect((await get("/api/conversations/not-a-uuid")).status).toBe(404);
    expect((await get(`/api/conversations/${crypto.randomUUID()}`)).status).toBe(404);
  });
});

test("escalation: a second low-confidence answer in a row opens a ticket and marks the conversation routed", async () => {
  const res = await chat(app, org, { message: "What is the airspeed of a swallow?", session_id: sessions.bob!, user_id: "bob" });
  const body = (await res.json()) as any;
  expect(body.confidence).toBeLessThan(0.5);
  expect(body.routing).toBeUndefined();
  expect(body.actions).toEqual([
    { type: "ticket_created", ticket_id: expect.any(String), ticket_number: expect.any(Number), team: null, reason: "escalation" },
  ]);
  expect(body.text).toContain(`ticket #${body.actions[0].ticket_number}`);
  const conversation = (await (await get(`/api/conversations/${await idOf(sessions.bob!)}`)).json()) as any;
  expect(conversation.routed).toBe(true);
  expect(conversation.ticket_id).toBe(body.actions[0].ticket_id);
  const ticket = (await (await get(`/api/tickets/${body.actions[0].ticket_id}`)).json()) as any;
  // The ticket holds the customer's question; the chat before it is the conversation's, shown turn by turn.
  expect(ticket.messages[0].body).toContain("What is the airspeed of a swallow?");
  expect(JSON.stringify(conversation)).toContain("What is the capital of Peru?");
});

test("escalation: frustration in behavior_context with a low-confidence answer opens a high-priority ticket at once", async () => {
  const body = await chatJson(app, org, {
    message: "Why is the export button greyed out?",
    user_id: "frustrated",
    behavior_context: "page_view /export; rage_click #export x6; error_click #export",
  });
  expect(body.confidence).toBeLessThan(0.5);
  const [action] = body.actions;
  expect(action).toMatchObject({ type: "ticket_created", reason: "escalation" });
  const ticket = (await (await get(`/api/tickets/${action.ticket_id}`)).json()) as any;
  expect(ticket.priority).toBe("high");
  // The same question without frustration only offers a person.
  const calm = await chatJson(app, org, { message: "Why is the export button greyed out?", user_id: "calm" });
  expect(calm.actions).toEqual([{ type: "offer_person", label: expect.any(String) }]);
});
