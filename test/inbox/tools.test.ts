// The inbox_* tools through the official MCP SDK client after the OAuth flow:
// a ticket is listed, read, replied to, noted and triaged, and an outreach ticket is opened; the
// writes land in the same thread and history the dashboard API shows; a note never reaches the
// customer's thread. Also: honest annotations, customer binding, scopes, the tenant boundary and
// every limit at its boundary (raw JSON-RPC, where the error code is the point).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, desc, eq } from "drizzle-orm";
import { ticketEvents, ticketMessages } from "../../src/db/schema/index.ts";
import { createTicket, customerThread, TICKET_LIMITS } from "../../src/inbox/tickets.ts";
import { boundCustomerOf, findEndUser } from "../../src/customers/records.ts";
import { serveTestApp, signIn, type ServedTestApp } from "../support/app.ts";
import { connectWithOAuth, TestOAuthProvider } from "../support/mcp-client.ts";
import { Browserless, consentFields, rpc, tokensFor } from "../support/oauth.ts";
import { type InboxOrg, seedCustomer, seedInboxOrg } from "./helpers.ts";

let app: ServedTestApp;
let a: InboxOrg;
let b: InboxOrg;
let ada: { id: string };
let bob: { id: string };
let client: Client;
let tokenA: string;
let tokenB: string;
let clientIdA: string;

type Json = Record<string, any>;

beforeAll(async () => {
  app = await serveTestApp();
  // Replies and outreach reach the customer: MCP clients may call them only where the org allows destructive tools.
  a = await seedInboxOrg(app, ["mcp_destructive_tools"]);
  b = await seedInboxOrg(app, ["mcp_destructive_tools"]);
  ada = await seedCustomer(app, a.org_id, { externalId: "ext-ada", email: "ada@example.com", name: "Ada" });
  bob = await seedCustomer(app, a.org_id, { externalId: "ext-bob", email: "bob@example.com", name: "Bob" });
  const authorize = async (url: URL) => {
    const ua = new Browserless(app);
    await ua.signIn(a.admin_email, a.password);
    const page = await (await ua.get(url.pathname + url.search)).text();
    const answer = await ua.post("/api/mcp/oauth/consent", { ...consentFields(page), decision: "allow" });
    return new URL(answer.headers.get("location")!).searchParams.get("code")!;
  };
  ({ client } = await connectWithOAuth(
    app.url,
    new TestOAuthProvider("http://127.0.0.1:53691/callback", async () => {}, { scope: "inbox:read inbox:write" }),
    authorize,
  ));
  ({ accessToken: tokenA, clientId: clientIdA } = await tokensFor(app, a, "inbox:read inbox:write"));
  ({ accessToken: tokenB } = await tokensFor(app, b, "inbox:read inbox:write"));
}, 30_000);
afterAll(async () => {
  await client?.close();
  await app.close();
});

const fromCustomer = (orgId: string, subject: string, customerId: string | null = null) =>
  createTicket(app.deps, {
    orgId,
    actor: { kind: "customer", endUserId: customerId, sessionId: "s" },
    input: { subject, message: `${subject}: help`, source: "widget", customerId },
  });

async function sdkCall(name: string, args: Json, meta?: Json): Promise<Json> {
  const result = await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) });
  expect(result.isError).toBe(false);
  return JSON.parse((result.content as { text: string }[])[0]!.text) as Json;
}

async function call(token: string, name: string, args: Json, meta?: Json) {
  const { body } = await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } });
  return body as { result?: { content: { text: string }[]; isError: boolean }; error?: { code: number; message: string } };
}
const value = (r: Awaited<ReturnType<typeof call>>) => JSON.parse(r.result!.content[0]!.text) as Json;

describe("through the official SDK client", () => {
  test("tools are listed with honest annotations", async () => {
    const tools = (await client.listTools()).tools;
    const hint = (name: string) => tools.find((t) => t.name === name)?.annotations?.destructiveHint;
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["inbox_list_tickets", "inbox_get_ticket", "inbox_reply", "inbox_add_note", "inbox_triage", "inbox_outreach"]),
    );
    expect(hint("inbox_reply")).toBe(true);
    expect(hint("inbox_outreach")).toBe(true);
    expect(hint("inbox_add_note")).toBe(false);
    expect(hint("inbox_triage")).toBe(false);
    expect(hint("inbox_get_ticket")).toBe(false);
  }, 20_000);

  test("list, read, reply, note, triage: the same thread and history as the dashboard; the note stays internal", async () => {
    // The ticket arrives through the widget SDK from Ada's backend.
    const sdk = await app.request("/api/sdk/tickets/create", {
      json: { subject: "Order never arrived", message: "Order never arrived: help", user_id: "ext-ada" },
      headers: { authorization: `Bearer ${a.widget_key}` },
    });
    expect(sdk.status).toBe(201);
    const ticket = (await sdk.json()) as { id: string; number: number };
    const listed = await sdkCall("inbox_list_tickets", { status: ["open"], text: "never arrived" });
    expect(listed.tickets.map((t: Json) => t.id)).toEqual([ticket.id]);
    expect(listed.tickets[0].customer).toMatchObject({ id: ada.id, verified: false });

    const read = await sdkCall("inbox_get_ticket", { ticket: `#${ticket.number}` });
    expect(read.messages).toEqual([expect.objectContaining({ kind: "customer", body: "Order never arrived: help" })]);

    const reply = await sdkCall("inbox_reply", { ticket: ticket.id, body: "A replacement ships today." });
    expect(reply).toMatchObject({ kind: "reply", author: { kind: "token", member_id: a.admin_id } });
    await sdkCall("inbox_add_note", { ticket: ticket.id, body: "Courier lost it; claim #C-77 filed." });
    const triaged = await sdkCall("inbox_triage", {
      ticket: String(ticket.number),
      status: "pending",
      priority: "high",
      team: "logistics",
      assignee: a.admin_id,
      tags: ["shipping"],
    });
    expect(triaged).toMatchObject({ status: "pending", priority: "high", team: "logistics", assignee_id: a.admin_id, tags: ["shipping"] });

    // The dashboard sees the same thread and history, with the token as the actor.
    const session = await signIn(app, a.admin_email, a.password);
    const dashboard = (await (await app.request(`/api/tickets/${ticket.id}`, { headers: { authorization: `Bearer ${session}` } })).json()) as Json;
    expect(dashboard.messages.map((m: Json) => m.kind)).toEqual(["customer", "reply", "note"]);
    expect(dashboard.history.map((h: Json) => h.action)).toEqual(["created", "reply", "note", "status", "priority", "team", "assignee", "tags"]);
    expect(dashboard.history.at(-1).actor).toMatchObject({ kind: "token", member_id: a.admin_id });
    expect(typeof dashboard.history.at(-1).actor.client_id).toBe("string");
    expect(typeof dashboard.history.at(-1).actor.token_id).toBe("string");

    const visible = await customerThread(app.deps, a.org_id, ticket.id);
    expect(visible.map((m) => m.body)).toEqual(["Order never arrived: help", "A replacement ships today."]);
    expect(JSON.stringify(visible)).not.toContain("claim #C-77");
  }, 20_000);

  test("outreach opens a pending ticket for a customer named by external id", async () => {
    const opened = await sdkCall("inbox_outreach", { customer: "ext-bob", subject: "Your subscription", message: "Your card expires soon." });
    expect(opened).toMatchObject({ status: "pending", source: "mcp", customer_id: bob.id });
    expect(opened.messages).toEqual([
      expect.objectContaining({ kind: "reply", body: "Your card expires soon.", author: expect.objectContaining({ kind: "token" }) }),
    ]);
    const [row] = await app.deps.db.select().from(ticketMessages).where(eq(ticketMessages.ticketId, opened.id));
    expect(row).toMatchObject({ kind: "reply", authorKind: "token" });
  }, 20_000);
});

describe("customer binding (_meta.bound_end_user_id)", () => {
  test("a bound call sees and writes only that customer's tickets, and reads threads without notes", async () => {
    const adas = await fromCustomer(a.org_id, "Ada's question", ada.id);
    const bobs = await fromCustomer(a.org_id, "Bob's question", bob.id);
    await call(tokenA, "inbox_add_note", { ticket: adas.id, body: "internal: VIP" });
    const bound = { bound_end_user_id: ada.id };

    const list = value(await call(tokenA, "inbox_list_tickets", { limit: 50 }, bound));
    expect(list.tickets.length).toBeGreaterThan(0);
    expect(list.tickets.every((t: Json) => t.customer_id === ada.id)).toBe(true);
    expect(value(await call(tokenA, "inbox_list_tickets", { customer: "ext-bob" }, bound)).tickets).toEqual([]);

    const read = value(await call(tokenA, "inbox_get_ticket", { ticket: adas.id }, bound));
    expect(read.messages.map((m: Json) => m.from)).toEqual(["customer"]);
    expect(JSON.stringify(read)).not.toContain("VIP");
    expect(read.history).toBeUndefined();
    // Nor can a text search guess at a note: "VIP" is only in the note (found unbound, not bound).
    expect(value(await call(tokenA, "inbox_list_tickets", { text: "VIP", limit: 50 })).tickets.map((t: Json) => t.id)).toContain(adas.id);
    expect(value(await call(tokenA, "inbox_list_tickets", { text: "VIP", limit: 50 }, bound)).tickets).toEqual([]);

    for (const [name, args] of [
      ["inbox_get_ticket", { ticket: bobs.id }],
      ["inbox_reply", { ticket: bobs.id, body: "x" }],
      ["inbox_add_note", { ticket: bobs.id, body: "x" }],
      ["inbox_triage", { ticket: bobs.id, status: "closed" }],
      ["inbox_outreach", { customer: "ext-bob", subject: "x", message: "y" }],
    ] as const) {
      const r = await call(tokenA, name, args, bound);
      expect(r.error?.code, name).toBe(-32601);
    }
    // Bob's ticket is untouched.
    const session = await signIn(app, a.admin_email, a.password);
    const bobView = (await (await app.request(`/api/tickets/${bobs.id}`, { headers: { authorization: `Bearer ${session}` } })).json()) as Json;
    expect(bobView.status).toBe("open");
    expect(bobView.messages).toHaveLength(1);
    // Writes to Ada's own ticket are allowed.
    expect(value(await call(tokenA, "inbox_reply", { ticket: adas.id, body: "Hello Ada" }, bound))).toMatchObject({ kind: "reply" });
  }, 20_000);
});

describe("from a chat (the tool runtime, channel chat)", () => {
  test("the AI agent replies on the chatting customer's ticket; it is bound to that customer and reads no notes", async () => {
    // In a chat, a tool that reaches the customer runs only when switched on for the agent.
    const session = await signIn(app, a.admin_email, a.password);
    const toggled = await app.request(`/api/agents/${a.agent_id}/actions`, {
      method: "PATCH",
      json: { enable: ["inbox_reply"] },
      headers: { authorization: `Bearer ${session}` },
    });
    expect(toggled.status).toBe(200);
    const ticket = await fromCustomer(a.org_id, "Chat question", ada.id);
    await call(tokenA, "inbox_add_note", { ticket: ticket.id, body: "internal: refund abuse suspected" });
    const claimed = {
      actor: { kind: "customer" as const, endUserId: ada.id, sessionId: "chat-0" },
      orgId: a.org_id,
      channel: "chat" as const,
      customer: { ...boundCustomerOf((await findEndUser(app.deps, a.org_id, ada.id))!), verified: false },
    };
    // A visitor who only claims Ada's id reaches none of her tickets.
    expect(
      await app.deps.tools.call(claimed, "inbox_get_ticket", { ticket: ticket.id }).then(
        () => 200,
        (e: { status: number }) => e.status,
      ),
    ).toBe(403);
    // Ada, her identity verified (a user_token), reaches hers.
    const scope = { ...claimed, actor: { ...claimed.actor, sessionId: "chat-1" }, customer: { ...claimed.customer, verified: true } };
    const read = (await app.deps.tools.call(scope, "inbox_get_ticket", { ticket: ticket.id })).value as Json;
    expect(JSON.stringify(read)).not.toContain("refund abuse");
    const reply = (await app.deps.tools.call(scope, "inbox_reply", { ticket: ticket.id, body: "Here is how to reset it." })).value as Json;
    expect(reply.author.kind).toBe("agent");
    // The customer's live event is signed with the agent's name, as it is when the call is made
    // (a rename drops the tool snapshot the name comes from).
    const signed = async () => {
      const [event] = await app.deps.db
        .select({ data: ticketEvents.data })
        .from(ticketEvents)
        .where(and(eq(ticketEvents.ticketId, ticket.id), eq(ticketEvents.type, "message")))
        .orderBy(desc(ticketEvents.seq))
        .limit(1);
      return (event!.data as { kind: string; author: unknown }).author;
    };
    expect(await signed()).toEqual({ name: "Support agent" });
    const renamed = await app.request(`/api/agents/${a.agent_id}`, {
      method: "PATCH",
      json: { name: "Ada's helper" },
      headers: { authorization: `Bearer ${session}` },
    });
    expect(renamed.status).toBe(200);
    await app.deps.tools.call(scope, "inbox_reply", { ticket: ticket.id, body: "And one more thing." });
    expect(await signed()).toEqual({ name: "Ada's helper" });
    const bobs = await fromCustomer(a.org_id, "Bob's chat", bob.id);
    const refused = await app.deps.tools.call(scope, "inbox_get_ticket", { ticket: bobs.id }).then(
      () => null,
      (e: { status: number }) => e.status,
    );
    expect(refused).toBe(404);
  }, 20_000);

  test("an anonymous visitor's chat (no bound customer) reaches no ticket at all", async () => {
    await fromCustomer(a.org_id, "Someone else's secret", bob.id);
    const anonymous = { actor: { kind: "customer" as const, endUserId: null, sessionId: "chat-anon" }, orgId: a.org_id, channel: "chat" as const };
    for (const [name, args] of [
      ["inbox_list_tickets", {}],
      ["inbox_get_ticket", { ticket: "1" }],
      ["inbox_add_note", { ticket: "1", body: "x" }],
      ["inbox_triage", { ticket: "1", status: "closed" }],
    ] as const) {
      const status = await app.deps.tools.call(anonymous, name, args).then(
        () => 200,
        (e: { status: number }) => e.status,
      );
      expect(status, name).toBe(403);
    }
  }, 20_000);
});

describe("scopes", () => {
  test("inbox:read lists and reads, and cannot write", async () => {
    const { accessToken } = await tokensFor(app, a, "inbox:read");
    const { body } = await rpc(app, accessToken, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    const names = (body.result.tools as Json[]).map((t) => t.name);
    expect(names).toContain("inbox_get_ticket");
    expect(names).not.toContain("inbox_reply");
    expect(names).not.toContain("inbox_triage");
    const ticket = await fromCustomer(a.org_id, "Scope check");
    const denied = await call(accessToken, "inbox_add_note", { ticket: ticket.id, body: "x" });
    expect(denied.error?.code).toBe(-32002);
  }, 20_000);
});

describe("tenant boundary: org B's token reaches none of org A's tickets or customers", () => {
  test("every tool", async () => {
    const ticket = await fromCustomer(a.org_id, "A's private ticket", ada.id);
    for (const ref of [ticket.id, String(ticket.number), `#${ticket.number}`]) {
      expect((await call(tokenB, "inbox_get_ticket", { ticket: ref })).error?.code).toBe(-32601);
      expect((await call(tokenB, "inbox_reply", { ticket: ref, body: "hijack" })).error?.code).toBe(-32601);
      expect((await call(tokenB, "inbox_add_note", { ticket: ref, body: "hijack" })).error?.code).toBe(-32601);
      expect((await call(tokenB, "inbox_triage", { ticket: ref, status: "closed" })).error?.code).toBe(-32601);
    }
    expect(value(await call(tokenB, "inbox_list_tickets", { text: "private" })).tickets).toEqual([]);
    expect(value(await call(tokenB, "inbox_list_tickets", { customer: ada.id })).tickets).toEqual([]);
    expect((await call(tokenB, "inbox_outreach", { customer: ada.id, subject: "x", message: "y" })).error?.code).toBe(-32601);
    expect((await call(tokenB, "inbox_outreach", { customer: "ext-ada", subject: "x", message: "y" })).error?.code).toBe(-32601);
    // Binding B's call to A's customer is refused outright.
    expect((await call(tokenB, "inbox_list_tickets", {}, { bound_end_user_id: ada.id })).error?.code).toBe(-32602);
    const messages = await app.deps.db.select().from(ticketMessages).where(eq(ticketMessages.ticketId, ticket.id));
    expect(messages).toHaveLength(1);
  }, 20_000);
});

describe("limits at their boundary", () => {
  test("bodies, subject, tags, team, page size", async () => {
    const ticket = await fromCustomer(a.org_id, "Limits", ada.id);
    expect(value(await call(tokenA, "inbox_add_note", { ticket: ticket.id, body: "n".repeat(TICKET_LIMITS.body) })).kind).toBe("note");
    expect((await call(tokenA, "inbox_add_note", { ticket: ticket.id, body: "n".repeat(TICKET_LIMITS.body + 1) })).error?.code).toBe(-32602);
    expect(value(await call(tokenA, "inbox_reply", { ticket: ticket.id, body: "r".repeat(TICKET_LIMITS.body) })).kind).toBe("reply");
    expect((await call(tokenA, "inbox_reply", { ticket: ticket.id, body: "r".repeat(TICKET_LIMITS.body + 1) })).error?.code).toBe(-32602);
    expect((await call(tokenA, "inbox_reply", { ticket: ticket.id, body: "" })).error?.code).toBe(-32602);
    expect((await call(tokenA, "inbox_reply", { ticket: ticket.id, body: "  " })).error?.code).toBe(-32602);
    const tags = (n: number, len = 4) => Array.from({ length: n }, (_, i) => `${i}`.padStart(len, "t"));
    expect(value(await call(tokenA, "inbox_triage", { ticket: ticket.id, tags: tags(TICKET_LIMITS.tags) })).tags).toHaveLength(TICKET_LIMITS.tags);
    expect((await call(tokenA, "inbox_triage", { ticket: ticket.id, tags: tags(TICKET_LIMITS.tags + 1) })).error?.code).toBe(-32602);
    expect(value(await call(tokenA, "inbox_triage", { ticket: ticket.id, tags: tags(1, TICKET_LIMITS.tag) })).tags).toHaveLength(1);
    expect((await call(tokenA, "inbox_triage", { ticket: ticket.id, tags: tags(1, TICKET_LIMITS.tag + 1) })).error?.code).toBe(-32602);
    expect(value(await call(tokenA, "inbox_triage", { ticket: ticket.id, team: "t".repeat(TICKET_LIMITS.team) })).team).toHaveLength(TICKET_LIMITS.team);
    expect((await call(tokenA, "inbox_triage", { ticket: ticket.id, team: "t".repeat(TICKET_LIMITS.team + 1) })).error?.code).toBe(-32602);
    expect((await call(tokenA, "inbox_triage", { ticket: ticket.id })).error?.code).toBe(-32602);
    expect((await call(tokenA, "inbox_triage", { ticket: ticket.id, assignee: b.admin_id })).error?.code).toBe(-32602);
    const subject = (n: number) => call(tokenA, "inbox_outreach", { customer: "ext-ada", subject: "s".repeat(n), message: "m" });
    expect(value(await subject(TICKET_LIMITS.subject)).subject).toHaveLength(TICKET_LIMITS.subject);
    expect((await subject(TICKET_LIMITS.subject + 1)).error?.code).toBe(-32602);
    expect(value(await call(tokenA, "inbox_list_tickets", { limit: 50 })).tickets.length).toBeLessThanOrEqual(50);
    expect((await call(tokenA, "inbox_list_tickets", { limit: 51 })).error?.code).toBe(-32602);
    expect(value(await call(tokenA, "inbox_list_tickets", { text: "x".repeat(TICKET_LIMITS.text) })).tickets).toEqual([]);
    expect((await call(tokenA, "inbox_list_tickets", { text: "x".repeat(TICKET_LIMITS.text + 1) })).error?.code).toBe(-32602);
    expect(value(await call(tokenA, "inbox_list_tickets", { customer: "c".repeat(256) })).tickets).toEqual([]);
    expect((await call(tokenA, "inbox_list_tickets", { customer: "c".repeat(257) })).error?.code).toBe(-32602);
    expect((await call(tokenA, "inbox_list_tickets", { status: ["archived"] })).error?.code).toBe(-32602);
    expect((await call(tokenA, "inbox_outreach", { customer: "c".repeat(257), subject: "s", message: "m" })).error?.code).toBe(-32602);
    expect((await call(tokenA, "inbox_list_tickets", { cursor: "garbage" })).error?.code).toBe(-32602);
    expect((await call(tokenA, "inbox_get_ticket", { ticket: "x".repeat(65) })).error?.code).toBe(-32602);
    // A reply to a closed ticket is a tool result flagged as an error, not a transport failure.
    await call(tokenA, "inbox_triage", { ticket: ticket.id, status: "closed" });
    const closed = await call(tokenA, "inbox_reply", { ticket: ticket.id, body: "late" });
    expect(closed.result?.isError).toBe(true);
    expect(value(closed).error).toBe("ticket_closed");
  }, 20_000);
});
