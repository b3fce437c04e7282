// a direct request for a person, and a routing-rule match, go straight to
// the inbox — `routing` with a ticket id, the ticket visible to the team — and the model is not
// called at all for that message (the fake model server counts every request). Also handoff.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { agents } from "../../../src/db/schema/index.ts";
import { textOnly } from "../../../src/sdk/stream.ts";
import { createTestApp, signIn, type TestApp } from "../../support/app.ts";
import { fakeOpenAi, type FakeLlm } from "../../support/fake-llm.ts";
import { userToken } from "../../sdk/helpers.ts";
import { chat, chatJson, type ChatOrg, records, seedChatOrg } from "../../support/chat.ts";

let app: TestApp;
let fake: FakeLlm;
let org: ChatOrg;
let admin: string;

beforeAll(async () => {
  fake = await fakeOpenAi();
  app = await createTestApp({ LLM_PROVIDER: "openai", LLM_MODEL: "fake-model", LLM_BASE_URL: fake.baseUrl });
  org = await seedChatOrg(app);
  admin = await signIn(app, org.admin_email, org.password);
  await app.deps.db
    .update(agents)
    .set({
      routingRules: [
        { match: { keywords: ["refund", "money back"] }, team: "billing" },
        { match: { intent: "security" }, team: "security" },
        { match: { keywords: ["webhook"] }, team: "developers", action: "handoff" },
      ],
    })
    .where(eq(agents.id, org.agent_id));
}, 30_000);
afterAll(async () => {
  await app.close();
  await fake.close();
});
beforeEach(() => fake.reset());

async function inboxTicket(id: string) {
  const res = await app.request(`/api/tickets/${id}`, { headers: { authorization: `Bearer ${admin}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as any;
}

describe("a direct request for a person", () => {
  test("routes to live help with a ticket in the inbox, and no model request", async () => {
    const answer = await chatJson(app, org, { message: "Can I talk to a human, please?", user_id: "cust-1" });
    expect(answer.routing).toEqual({ action: "live_help", ticket_id: expect.any(String) });
    expect(answer.text).toContain("person");
    expect(answer.confidence).toBe(1);
    expect(answer.actions).toEqual([
      { type: "ticket_created", ticket_id: answer.routing.ticket_id, ticket_number: expect.any(Number), team: null, reason: "live_help" },
    ]);
    expect(fake.requests).toHaveLength(0);

    const ticket = await inboxTicket(answer.routing.ticket_id);
    expect(ticket.source).toBe("chat");
    expect(ticket.status).toBe("open");
    expect(ticket.customer_id).toEqual(expect.any(String));
    expect(ticket.conversation_id).toEqual(expect.any(String));
    expect(ticket.messages[0].body).toBe("Can I talk to a human, please?");
    const list = (await (await app.request("/api/tickets", { headers: { authorization: `Bearer ${admin}` } })).json()) as any;
    expect(list.tickets.map((t: any) => t.id)).toContain(answer.routing.ticket_id);

    // The conversation is marked routed and its reply carries the routing.
    const conversation = (await (
      await app.request(`/api/conversations/${ticket.conversation_id}`, { headers: { authorization: `Bearer ${admin}` } })
    ).json()) as any;
    expect(conversation.routed).toBe(true);
    expect(conversation.ticket_id).toBe(answer.routing.ticket_id);
    expect(conversation.messages.at(-1).routing).toEqual(answer.routing);
  });

  test("mode livehelp routes whatever the message", async () => {
    const answer = await chatJson(app, org, { message: "How do I reset my password?", mode: "livehelp" });
    expect(answer.routing.action).toBe("live_help");
    expect(fake.requests).toHaveLength(0);
  });

  test("the stream routes the same way: acknowledgement text, the ticket action, no model request", async () => {
    const res = await chat(app, org, { message: "I want to speak to a real person" }, "/api/sdk/chat/stream");
    expect(res.status).toBe(200);
    const body = await res.text();
    const [action] = records(body, "ACTION") as any[];
    expect(action).toMatchObject({ type: "ticket_created", reason: "live_help" });
    expect(records(body, "ACTIONS")).toEqual([[action]]);
    expect(textOnly(body)).toContain(`ticket #${action.ticket_number}`);
    expect(fake.requests).toHaveLength(0);
    await inboxTicket(action.ticket_id);
  });
});

describe("routing rules", () => {
  test("a keyword routes to the rule's team with a ticket, no model request", async () => {
    const answer = await chatJson(app, org, { message: "I want my money back for last month" });
    expect(answer.routing).toEqual({ action: "route", ticket_id: expect.any(String), team: "billing" });
    expect(answer.text).toContain("billing team");
    expect(fake.requests).toHaveLength(0);
    const ticket = await inboxTicket(answer.routing.ticket_id);
    expect(ticket.team).toBe("billing");
  });

  test("an intent routes too", async () => {
    const answer = await chatJson(app, org, { message: "I think my account was hacked" });
    expect(answer.routing).toMatchObject({ action: "route", team: "security" });
    expect(fake.requests).toHaveLength(0);
  });

  test("a message matching no rule goes to the model, without routing", async () => {
    fake.enqueue({ steps: [{ text: "Open the sign-in page and choose Forgot password." }] });
    const answer = await chatJson(app, org, { message: "How do I reset my password?" });
    expect(answer.routing).toBeUndefined();
    expect(fake.requests).toHaveLength(1);
  });
});

describe("handoff", () => {
  test("a handoff rule hands the conversation to the agent with the skill; agent_id and X-Agent-Id name it", async () => {
    const [dev] = await app.deps.db
      .insert(agents)
      .values({ orgId: org.org_id, name: "Developer agent", status: "inactive", skills: ["developers"], instructions: "You help developers with the API." })
      .returning();
    app.deps.invalidation.publish("org_settings", org.org_id); // written by hand: told as the service's writes tell (src/agents/turn-settings.ts)
    fake.enqueue({ steps: [{ text: "Check the webhook signing secret." }] });
    const answer = await chatJson(app, org, { message: "My webhook never fires" });
    expect(answer.agent_id).toBe(dev!.id);
    expect(answer.routing).toBeUndefined();
    expect(answer.actions).toContainEqual({ type: "handoff", from_agent_id: org.agent_id, to_agent_id: dev!.id, skill: "developers" });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body.messages[0]).toMatchObject({ role: "system", content: expect.stringContaining("You help developers with the API.") });

    // The conversation stays with the developer agent.
    fake.enqueue({ steps: [{ text: "Sure." }] });
    const next = await chat(app, org, { message: "How do I reset my password?", session_id: answer.session_id }, "/api/sdk/chat/stream");
    expect(next.headers.get("x-agent-id")).toBe(dev!.id);
    await next.text();
  });
});

describe("the tools a chat offers the model", () => {
  const offered = () => (fake.requests[0]!.body.tools ?? []).map((t: any) => t.function.name as string);

  test("an anonymous visitor's chat offers no customer-data tools and never admin tools", async () => {
    fake.enqueue({ steps: [{ text: "ok" }] });
    await chatJson(app, org, { message: "How do I reset my password?" });
    const names = offered();
    expect(names).toContain("search_docs");
    expect(names.filter((n: string) => /^(data|inbox|setup|automation)_/.test(n))).toEqual([]);
  });

  test("a verified customer's chat offers the data tools, bound to that customer; still no admin tools", async () => {
    fake.enqueue({ steps: [{ text: "ok" }] });
    await chatJson(app, org, {
      message: "How do I reset my password?",
      user_id: "tool-customer",
      user_token: await userToken(org.identity_secret, { user_id: "tool-customer" }),
    });
    const names = offered();
    expect(names).toContain("data_get_user");
    expect(names.filter((n: string) => /^(setup|automation)_/.test(n))).toEqual([]);
  });

  test("a customer who only claims an id (no user_token) is offered no customer-data tools", async () => {
    fake.enqueue({ steps: [{ text: "ok" }] });
    await chatJson(app, org, { message: "What is my email address?", user_id: "claimed-customer" });
    const names = offered();
    expect(names).toContain("search_docs");
    expect(names.filter((n: string) => /^(data|inbox|setup|automation)_/.test(n))).toEqual([]);
  });

  test("a data tool the model calls sees only the chatting customer", async () => {
    await chatJson(app, org, { message: "hi", user_id: "someone-else", custom_fields: { secret: "other customer's data" } });
    fake.reset();
    fake.enqueue({ steps: [{ tool: { name: "data_search_users", arguments: {} } }] }, { steps: [{ text: "Here you are." }] });
    const answer = await chatJson(app, org, {
      message: "Which customers do you have?",
      user_id: "tool-customer",
      user_token: await userToken(org.identity_secret, { user_id: "tool-customer" }),
    });
    expect(answer.actions).toContainEqual({ type: "tool", name: "data_search_users", status: "succeeded" });
    const result = fake.requests[1]!.body.messages.find((m: any) => m.role === "tool").content as string;
    expect(result).toContain("tool-customer");
    expect(result).not.toContain("someone-else");
    expect(result).not.toContain("other customer's data");
  });
});

describe("what the model hears of the customer", () => {
  const system = () => fake.requests[0]!.body.messages.find((m: any) => m.role === "system").content as string;

  test("a merely claimed id brings nothing stored under it into the prompt; a verified one does", async () => {
    // Someone claims an id and stores traits under it…
    fake.enqueue({ steps: [{ text: "ok" }] });
    await chatJson(app, org, { message: "hello", user_id: "shared-id", custom_fields: { plan: "enterprise-secret-plan" } });
    // …someone else claims the same id: the model hears only what this request says.
    fake.reset();
    fake.enqueue({ steps: [{ text: "ok" }] });
    await chatJson(app, org, { message: "What plan am I on?", user_id: "shared-id", custom_fields: { page: "pricing" } });
    expect(system()).toContain("NOT verified");
    expect(system()).toContain("pricing");
    expect(system()).not.toContain("enterprise-secret-plan");
    // A verified customer's stored traits are theirs to be told.
    const token = await userToken(org.identity_secret, { user_id: "proven-id" });
    fake.reset();
    fake.enqueue({ steps: [{ text: "ok" }] });
    await chatJson(app, org, { message: "hello", user_id: "proven-id", user_token: token, custom_fields: { plan: "pro-plan-visible" } });
    fake.reset();
    fake.enqueue({ steps: [{ text: "ok" }] });
    await chatJson(app, org, { message: "What plan am I on?", user_id: "proven-id", user_token: token });
    expect(system()).toContain("pro-plan-visible");
  });
});
