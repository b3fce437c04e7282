// The dashboard inbox API: /api/tickets and /api/customers. A ticket is read, replied to, noted
// and triaged; every change lands in the history; filters and the cursor; roles; every limit at
// its boundary; and org B's session reaches none of org A's tickets or customers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { ticketHistory, ticketMessages, tickets } from "../../src/db/schema/index.ts";
import { CUSTOMER_LIMITS } from "../../src/inbox/customer-profiles.ts";
import { createTicket, customerThread, TICKET_LIMITS } from "../../src/inbox/tickets.ts";
import { createTestApp, signIn, type TestApp } from "../support/app.ts";
import { addMember, type InboxOrg, seedCustomer, seedInboxOrg } from "./helpers.ts";

let app: TestApp;
let a: InboxOrg;
let b: InboxOrg;
let authA: Record<string, string>;
let authB: Record<string, string>;
let customerId: string;

beforeAll(async () => {
  app = await createTestApp();
  a = await seedInboxOrg(app);
  b = await seedInboxOrg(app);
  authA = { authorization: `Bearer ${await signIn(app, a.admin_email, a.password)}` };
  authB = { authorization: `Bearer ${await signIn(app, b.admin_email, b.password)}` };
  customerId = (await seedCustomer(app, a.org_id, { externalId: "ext-ada", email: "ada@example.com", name: "Ada Lovelace" })).id;
}, 30_000);
afterAll(() => app.close());

type Json = Record<string, any>;
const get = async (path: string, headers = authA) => {
  const res = await app.request(path, { headers });
  return { status: res.status, body: (await res.json()) as Json };
};
const send = async (method: string, path: string, json: unknown, headers = authA) => {
  const res = await app.request(path, { method, json, headers });
  return { status: res.status, body: (await res.json()) as Json };
};
const newTicket = (subject = "Card declined", orgId = a.org_id, extra: Json = {}) =>
  createTicket(app.deps, {
    orgId,
    actor: { kind: "customer", endUserId: null, sessionId: "s" },
    input: { subject, message: "My card was declined", source: "widget", ...extra },
  });

describe("a ticket worked through the dashboard API", () => {
  test("read, reply, note, triage: each change in the history; the note never reaches the customer's thread", async () => {
    // The ticket arrives the way a verified widget user opens one.
    const userToken = await new SignJWT({ user_id: "ext-verified", name: "Vera" })
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(Math.floor(app.clock.now.getTime() / 1000) + 300)
      .sign(new TextEncoder().encode(a.identity_secret));
    const sdk = await app.request("/api/sdk/tickets/create", {
      json: { subject: "Refund please", message: "My card was declined", user_id: "ext-verified", user_token: userToken },
      headers: { authorization: `Bearer ${a.widget_key}`, origin: "https://shop.example" },
    });
    expect(sdk.status).toBe(201);
    const created = (await sdk.json()) as { id: string; number: number };
    const customerOf = (await get(`/api/customers/ext-verified`)).body;
    expect(customerOf.verified).toBe(true);
    const read = await get(`/api/tickets/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: created.id,
      number: created.number,
      status: "open",
      source: "widget",
      verified: true,
      customer: { id: customerOf.id, name: "Vera", verified: true },
    });
    expect(read.body.messages).toEqual([
      expect.objectContaining({ kind: "customer", body: "My card was declined", verified: true, author: { kind: "customer", customer_id: customerOf.id } }),
    ]);

    const reply = await send("POST", `/api/tickets/${created.id}/replies`, { body: "Refund issued." });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ kind: "reply", body: "Refund issued.", verified: null, author: { kind: "member", member_id: a.admin_id } });
    const note = await send("POST", `/api/tickets/${created.id}/notes`, { body: "Customer asked twice before; watch for chargeback." });
    expect(note.status).toBe(201);
    const patched = await send("PATCH", `/api/tickets/${created.id}`, {
      status: "pending",
      priority: "high",
      team: "billing",
      assignee_id: a.admin_id,
      tags: ["refund"],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ status: "pending", priority: "high", team: "billing", assignee_id: a.admin_id, tags: ["refund"] });
    // The number works as a reference too.
    const byNumber = await get(`/api/tickets/${created.number}`);
    expect(byNumber.body.id).toBe(created.id);
    expect(byNumber.body.messages.map((m: Json) => m.kind)).toEqual(["customer", "reply", "note"]);
    expect(byNumber.body.history.map((h: Json) => h.action)).toEqual(["created", "reply", "note", "status", "priority", "team", "assignee", "tags"]);
    expect(byNumber.body.history.find((h: Json) => h.action === "status")).toMatchObject({
      before: "open",
      after: "pending",
      actor: { kind: "member", member_id: a.admin_id },
    });

    // What the customer may read has the reply and never the note.
    const visible = await customerThread(app.deps, a.org_id, created.id);
    expect(visible.map((m) => m.body)).toEqual(["My card was declined", "Refund issued."]);
    expect(JSON.stringify(visible)).not.toContain("chargeback");

    // Unassign and clear the team with null.
    const cleared = await send("PATCH", `/api/tickets/${created.id}`, { assignee_id: null, team: null });
    expect(cleared.body).toMatchObject({ assignee_id: null, team: null });
  }, 20_000);

  test("nothing answered 2xx is lost: each write is in the database when the answer arrives", async () => {
    const created = await newTicket("Durable");
    const reply = await send("POST", `/api/tickets/${created.id}/replies`, { body: "durable reply" });
    const [row] = await app.deps.db.select().from(ticketMessages).where(eq(ticketMessages.id, reply.body.id));
    expect(row).toMatchObject({ body: "durable reply", kind: "reply", orgId: a.org_id });
    await send("PATCH", `/api/tickets/${created.id}`, { priority: "urgent" });
    const [ticket] = await app.deps.db.select().from(tickets).where(eq(tickets.id, created.id));
    expect(ticket!.priority).toBe("urgent");
    const history = await app.deps.db
      .select()
      .from(ticketHistory)
      .where(and(eq(ticketHistory.ticketId, created.id), eq(ticketHistory.action, "priority")));
    expect(history).toHaveLength(1);
  }, 20_000);

  test("outreach: a new ticket for a customer by external id, waiting on the customer", async () => {
    const res = await send("POST", "/api/tickets", { customer_id: "ext-ada", subject: "Your renewal", message: "Your plan renews next week." });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: "pending", source: "api", customer_id: customerId });
    expect(res.body.messages).toEqual([
      expect.objectContaining({ kind: "reply", body: "Your plan renews next week.", author: { kind: "member", member_id: a.admin_id } }),
    ]);
    expect((await send("POST", "/api/tickets", { customer_id: "nobody", subject: "x", message: "y" })).status).toBe(404);
  }, 20_000);

  test("a closed ticket takes notes but not replies (409)", async () => {
    const created = await newTicket("Closing");
    await send("PATCH", `/api/tickets/${created.id}`, { status: "closed" });
    const reply = await send("POST", `/api/tickets/${created.id}/replies`, { body: "late" });
    expect(reply.status).toBe(409);
    expect(reply.body.error.code).toBe("ticket_closed");
    expect((await send("POST", `/api/tickets/${created.id}/notes`, { body: "late note" })).status).toBe(201);
  }, 20_000);
});

describe("listing", () => {
  test("filters by status, assignee, team, customer and text; the cursor walks every ticket once", async () => {
    const org = await seedInboxOrg(app);
    const auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
    const cust = await seedCustomer(app, org.org_id, { externalId: "c1", name: "Grace" });
    const ids: string[] = [];
    for (let i = 1; i <= 9; i++)
      ids.push((await newTicket(`Ticket ${i}`, org.org_id, i === 5 ? { customerId: cust.id, message: "the printer is on fire" } : {})).id);
    await send("PATCH", `/api/tickets/${ids[0]}`, { status: "resolved", team: "hardware", assignee_id: org.admin_id }, auth);
    await send("PATCH", `/api/tickets/${ids[1]}`, { status: "pending" }, auth);

    const numbers = async (query: string) => ((await get(`/api/tickets${query}`, auth)).body.tickets as Json[]).map((t) => t.number);
    expect(await numbers("?status=resolved")).toEqual([1]);
    expect(await numbers("?status=resolved,pending")).toEqual([2, 1]);
    expect(await numbers("?assignee=me")).toEqual([1]);
    expect(await numbers(`?assignee=${org.admin_id}`)).toEqual([1]);
    expect((await numbers("?assignee=none")).length).toBe(8);
    expect(await numbers("?team=hardware")).toEqual([1]);
    expect(await numbers(`?customer=${cust.id}`)).toEqual([5]);
    expect(await numbers("?customer=c1")).toEqual([5]);
    expect(await numbers("?customer=nobody")).toEqual([]);
    expect(await numbers("?text=printer")).toEqual([5]);
    expect(await numbers("?text=%237")).toEqual([7]);
    const list = await get(`/api/tickets?customer=${cust.id}`, auth);
    expect(list.body.tickets[0].customer).toEqual({ id: cust.id, external_id: "c1", email: null, name: "Grace", verified: false });

    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await get(`/api/tickets?limit=4${cursor ? `&cursor=${cursor}` : ""}`, auth);
      expect(page.status).toBe(200);
      seen.push(...page.body.tickets.map((t: Json) => t.number));
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(pages).toBe(3);
    const bad = await get("/api/tickets?cursor=bm90LWEtY3Vyc29y", auth);
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe("/cursor");
    expect((await get("/api/tickets?status=archived", auth)).status).toBe(400);
  }, 20_000);
});

describe("customers", () => {
  test("list with search and cursor; detail with tickets and verified flag", async () => {
    const org = await seedInboxOrg(app);
    const auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
    for (let i = 0; i < 5; i++)
      await seedCustomer(app, org.org_id, { externalId: `u${i}`, email: `user${i}@example.com`, name: i === 3 ? "Margaret Hamilton" : `User ${i}` });
    const all: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await get(`/api/customers?limit=2${cursor ? `&cursor=${cursor}` : ""}`, auth);
      expect(page.status).toBe(200);
      all.push(...page.body.customers.map((c: Json) => c.external_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(all.sort()).toEqual(["u0", "u1", "u2", "u3", "u4"]);
    const found = await get("/api/customers?q=hamilton", auth);
    expect(found.body.customers.map((c: Json) => c.external_id)).toEqual(["u3"]);
    expect(found.body.customers[0]).toMatchObject({ verified: false, email: "user3@example.com" });

    const margaret = found.body.customers[0].id as string;
    const t = await newTicket("Apollo", org.org_id, { customerId: margaret });
    const detail = await get(`/api/customers/${margaret}`, auth);
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: margaret,
      external_id: "u3",
      verified: false,
      tickets: [expect.objectContaining({ id: t.id, subject: "Apollo" })],
    });
    expect(Array.isArray(detail.body.events)).toBe(true);
    expect((await get("/api/customers/u3", auth)).body.id).toBe(margaret);
    expect((await get("/api/customers/nobody", auth)).status).toBe(404);
    expect((await get("/api/customers?cursor=garbage", auth)).status).toBe(400);
  }, 20_000);
});

describe("roles", () => {
  test("401 without a session; inbox:view reads but cannot write (403); no inbox role reads nothing", async () => {
    const created = await newTicket("Roles");
    expect((await app.request("/api/tickets")).status).toBe(401);
    const viewer = await addMember(app, a.org_id, ["inbox:view"]);
    const asViewer = { authorization: `Bearer ${viewer.token}` };
    expect((await get("/api/tickets", asViewer)).status).toBe(200);
    expect((await get(`/api/tickets/${created.id}`, asViewer)).status).toBe(200);
    expect((await get("/api/customers", asViewer)).status).toBe(200);
    expect((await send("POST", `/api/tickets/${created.id}/replies`, { body: "x" }, asViewer)).status).toBe(403);
    expect((await send("POST", `/api/tickets/${created.id}/notes`, { body: "x" }, asViewer)).status).toBe(403);
    expect((await send("PATCH", `/api/tickets/${created.id}`, { status: "closed" }, asViewer)).status).toBe(403);
    expect((await send("POST", "/api/tickets", { customer_id: customerId, subject: "x", message: "y" }, asViewer)).status).toBe(403);
    const outsider = await addMember(app, a.org_id, ["knowledge:view"]);
    expect((await get("/api/tickets", { authorization: `Bearer ${outsider.token}` })).status).toBe(403);
    expect((await get("/api/customers", { authorization: `Bearer ${outsider.token}` })).status).toBe(403);
    // A member of the org can be assigned; the viewer is one.
    expect((await send("PATCH", `/api/tickets/${created.id}`, { assignee_id: viewer.memberId })).status).toBe(200);
  }, 20_000);
});

describe("tenant boundary: org B's session reaches none of org A's tickets or customers", () => {
  test("every endpoint", async () => {
    const created = await newTicket("Secret of A", a.org_id, { customerId });
    const before = await get(`/api/tickets/${created.id}`);
    for (const ref of [created.id, String(created.number)]) {
      expect((await get(`/api/tickets/${ref}`, authB)).status).toBe(404);
      expect((await send("POST", `/api/tickets/${ref}/replies`, { body: "hijack" }, authB)).status).toBe(404);
      expect((await send("POST", `/api/tickets/${ref}/notes`, { body: "hijack" }, authB)).status).toBe(404);
      expect((await send("PATCH", `/api/tickets/${ref}`, { status: "closed", assignee_id: b.admin_id }, authB)).status).toBe(404);
    }
    const listB = await get("/api/tickets?text=Secret", authB);
    expect(listB.body.tickets).toEqual([]);
    expect((await get(`/api/tickets?customer=${customerId}`, authB)).body.tickets).toEqual([]);
    expect((await get("/api/tickets?customer=ext-ada", authB)).body.tickets).toEqual([]);
    expect((await get(`/api/customers/${customerId}`, authB)).status).toBe(404);
    expect((await get("/api/customers/ext-ada", authB)).status).toBe(404);
    expect((await get("/api/customers?q=ada", authB)).body.customers).toEqual([]);
    expect((await send("POST", "/api/tickets", { customer_id: customerId, subject: "x", message: "y" }, authB)).status).toBe(404);
    expect((await send("POST", "/api/tickets", { customer_id: "ext-ada", subject: "x", message: "y" }, authB)).status).toBe(404);
    // Naming org A in X-Org-Id does not help B.
    expect((await get(`/api/tickets/${created.id}`, { ...authB, "x-org-id": a.org_id })).status).toBe(403);
    // A's admin cannot assign B's admin.
    expect((await send("PATCH", `/api/tickets/${created.id}`, { assignee_id: b.admin_id })).status).toBe(400);
    // A's ticket is untouched.
    const after = await get(`/api/tickets/${created.id}`);
    expect(after.body).toEqual(before.body);
  }, 20_000);
});

describe("limits at their boundary", () => {
  test("reply and note bodies, subject, tags, team, text, page size", async () => {
    const created = await newTicket("Limits");
    const id = created.id;
    for (const kind of ["replies", "notes"]) {
      expect((await send("POST", `/api/tickets/${id}/${kind}`, { body: "b".repeat(TICKET_LIMITS.body) })).status).toBe(201);
      const over = await send("POST", `/api/tickets/${id}/${kind}`, { body: "b".repeat(TICKET_LIMITS.body + 1) });
      expect(over.status).toBe(400);
      expect(over.body.error.details[0].path).toBe("/body");
      expect((await send("POST", `/api/tickets/${id}/${kind}`, { body: "" })).status).toBe(400);
      expect((await send("POST", `/api/tickets/${id}/${kind}`, { body: "   " })).status).toBe(400);
    }
    const subject = (n: number) => send("POST", "/api/tickets", { customer_id: customerId, subject: "s".repeat(n), message: "m" });
    expect((await subject(TICKET_LIMITS.subject)).status).toBe(201);
    expect((await subject(TICKET_LIMITS.subject + 1)).status).toBe(400);
    const tags = (n: number, len = 5) => send("PATCH", `/api/tickets/${id}`, { tags: Array.from({ length: n }, (_, i) => `${i}`.padStart(len, "t")) });
    expect((await tags(TICKET_LIMITS.tags)).status).toBe(200);
    expect((await tags(TICKET_LIMITS.tags + 1)).status).toBe(400);
    expect((await tags(1, TICKET_LIMITS.tag)).status).toBe(200);
    expect((await tags(1, TICKET_LIMITS.tag + 1)).status).toBe(400);
    expect((await send("PATCH", `/api/tickets/${id}`, { tags: [""] })).status).toBe(400);
    expect((await send("PATCH", `/api/tickets/${id}`, { team: "t".repeat(TICKET_LIMITS.team) })).status).toBe(200);
    expect((await send("PATCH", `/api/tickets/${id}`, { team: "t".repeat(TICKET_LIMITS.team + 1) })).status).toBe(400);
    expect((await send("PATCH", `/api/tickets/${id}`, {})).status).toBe(400);
    expect((await send("PATCH", `/api/tickets/${id}`, { assignee_id: "not-a-uuid" })).status).toBe(400);
    expect((await get(`/api/tickets?text=${"x".repeat(TICKET_LIMITS.text)}`)).status).toBe(200);
    expect((await get(`/api/tickets?text=${"x".repeat(TICKET_LIMITS.text + 1)}`)).status).toBe(400);
    expect((await get(`/api/tickets?limit=${TICKET_LIMITS.pageSize}`)).status).toBe(200);
    expect((await get(`/api/tickets?limit=${TICKET_LIMITS.pageSize + 1}`)).status).toBe(400);
    expect((await get("/api/tickets?limit=0")).status).toBe(400);
    expect((await get(`/api/customers?limit=${CUSTOMER_LIMITS.pageSize}`)).status).toBe(200);
    expect((await get(`/api/customers?limit=${CUSTOMER_LIMITS.pageSize + 1}`)).status).toBe(400);
    expect((await get(`/api/customers?q=${"q".repeat(CUSTOMER_LIMITS.query)}`)).status).toBe(200);
    expect((await get(`/api/customers?q=${"q".repeat(CUSTOMER_LIMITS.query + 1)}`)).status).toBe(400);
    expect((await get(`/api/tickets/${"9".repeat(65)}`)).status).toBe(400);
    expect((await get("/api/tickets/99999999")).status).toBe(404);
  }, 20_000);
});

describe("hostile input in queries and paths", () => {
  test("NUL and other control characters in every query parameter and path id are 400, never 5xx", async () => {
    const created = await newTicket("Hostile");
    const bad = ["%00", "a%00b", "%01", "%1F"];
    for (const v of bad) {
      for (const param of ["status", "assignee", "team", "customer", "text", "cursor"]) {
        const res = await app.request(`/api/tickets?${param}=${v}`, { headers: authA });
        expect(res.status, `${param}=${v}`).toBe(400);
      }
      for (const param of ["q", "cursor"]) {
        const res = await app.request(`/api/customers?${param}=${v}`, { headers: authA });
        expect(res.status, `${param}=${v}`).toBe(400);
      }
      for (const path of [`/api/tickets/${v}`, `/api/customers/${v}`, `/api/tickets/${v}/notes`]) {
        const res = await app.request(path, path.endsWith("notes") ? { json: { body: "x" }, headers: authA } : { headers: authA });
        expect(res.status, path).toBe(400);
      }
    }
    expect((await get(`/api/tickets/${created.id}`)).body.messages).toHaveLength(1);
  }, 20_000);
});

describe("hostile bodies", () => {
  test("wrong types, deep nesting and unknown shapes on every write are 400, and change nothing", async () => {
    const created = await newTicket("Hostile bodies");
    const before = (await get(`/api/tickets/${created.id}`)).body;
    let deep: unknown = "x";
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const writes: [string, string, unknown[]][] = [
      ["POST", `/api/tickets/${created.id}/replies`, [{ body: 1 }, { body: ["x"] }, { body: { x: 1 } }, { body: deep }, [], "text", null]],
      ["POST", `/api/tickets/${created.id}/notes`, [{ body: 1 }, { body: deep }, []]],
      [
        "PATCH",
        `/api/tickets/${created.id}`,
        [{ status: 1 }, { tags: "a" }, { tags: [1] }, { team: 5 }, { assignee_id: 5 }, { tags: deep }, { priority: "asap" }],
      ],
      [
        "POST",
        "/api/tickets",
        [
          { customer_id: 1, subject: "s", message: "m" },
          { customer_id: "ext-ada", subject: ["s"], message: "m" },
          { customer_id: "ext-ada", subject: "s", message: deep },
        ],
      ],
      [
        "POST",
        "/api/customers",
        [
          { external_id: 1 },
          { external_id: "h", traits: [] },
          { external_id: "h", traits: "x" },
          { external_id: "h", traits: deep },
          { external_id: "h", email: 5 },
        ],
      ],
      ["POST", "/api/customers/import", [{ customers: "x" }, { customers: [1] }, { customers: deep }]],
    ];
    for (const [method, path, bodies] of writes)
      for (const body of bodies) {
        const res = await app.request(path, { method, body: JSON.stringify(body), headers: { ...authA, "content-type": "application/json" } });
        expect(res.status, `${method} ${path} ${JSON.stringify(body).slice(0, 60)}`).toBe(400);
      }
    expect((await get(`/api/tickets/${created.id}`)).body).toEqual(before);
    expect((await get("/api/customers/h")).status).toBe(404);
  }, 20_000);
});
