// Customers in the dashboard API: create and import by external id, so a fresh
// install has customers for data_* tools and `_meta.bound_*`; verified / unverified shown on every
// customer; recent events on a customer's page; roles, limits and the tenant boundary.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { customerEvents, endUsers } from "../../src/db/schema/index.ts";
import { CUSTOMER_LIMITS } from "../../src/inbox/customer-profiles.ts";
import { createTicket } from "../../src/inbox/tickets.ts";
import { serveTestApp, signIn, type ServedTestApp } from "../support/app.ts";
import { rpc, tokensFor } from "../support/oauth.ts";
import { addMember, type InboxOrg, seedCustomer, seedInboxOrg } from "./helpers.ts";

let app: ServedTestApp;
let a: InboxOrg;
let b: InboxOrg;
let authA: Record<string, string>;
let authB: Record<string, string>;

beforeAll(async () => {
  app = await serveTestApp();
  a = await seedInboxOrg(app);
  b = await seedInboxOrg(app);
  authA = { authorization: `Bearer ${await signIn(app, a.admin_email, a.password)}` };
  authB = { authorization: `Bearer ${await signIn(app, b.admin_email, b.password)}` };
}, 30_000);
afterAll(() => app.close());

type Json = Record<string, any>;
const send = async (path: string, json: unknown, headers = authA) => {
  const res = await app.request(path, { json, headers });
  return { status: res.status, body: (await res.json()) as Json };
};
const get = async (path: string, headers = authA) => {
  const res = await app.request(path, { headers });
  return { status: res.status, body: (await res.json()) as Json };
};

describe("create and import", () => {
  test("create, then update by the same external id; the record is verified and usable by data tools with _meta binding", async () => {
    const created = await send("/api/customers", {
      external_id: "cust-100",
      email: "Ada@Example.com",
      name: "Ada",
      traits: { plan: "pro" },
      company_id: "acme",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ external_id: "cust-100", email: "ada@example.com", name: "Ada", verified: true, traits: { plan: "pro" } });
    expect(typeof created.body.company_id).toBe("string");
    const again = await send("/api/customers", { external_id: "cust-100", traits: { seats: 5 } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: created.body.id, name: "Ada", traits: { plan: "pro", seats: 5 } });
    // Stored (nothing answered 2xx is lost).
    const [row] = await app.deps.db.select().from(endUsers).where(eq(endUsers.id, created.body.id));
    expect(row).toMatchObject({ orgId: a.org_id, externalId: "cust-100", verified: true });

    const { accessToken } = await tokensFor(app, a, "data:read inbox:read");
    const { body } = await rpc(app, accessToken, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "data_get_user", arguments: { user_id: "cust-100" }, _meta: { bound_email: "ada@example.com" } },
    });
    expect(JSON.parse(body.result.content[0].text)).toMatchObject({ id: created.body.id, external_id: "cust-100" });
  }, 20_000);

  test("import: a batch of customers, counted as created and updated", async () => {
    const customers = Array.from({ length: CUSTOMER_LIMITS.importBatch }, (_, i) => ({ external_id: `imp-${i}`, name: `Imported ${i}` }));
    const res = await send("/api/customers/import", { customers });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: CUSTOMER_LIMITS.importBatch, updated: 0 });
    expect(res.body.customers).toHaveLength(CUSTOMER_LIMITS.importBatch);
    const second = await send("/api/customers/import", { customers: [{ external_id: "imp-0", name: "Renamed" }, { external_id: "imp-new" }] });
    expect(second.body).toMatchObject({ created: 1, updated: 1 });
    expect((await get("/api/customers/imp-0")).body.name).toBe("Renamed");
  }, 20_000);

  test("an earlier unverified claim on the id is kept apart; the team's customer starts fresh", async () => {
    const visitor = await seedCustomer(app, a.org_id, { externalId: "claimed-1", name: "Claimant" });
    const ticket = await createTicket(app.deps, {
      orgId: a.org_id,
      actor: { kind: "customer", endUserId: visitor.id, sessionId: "s" },
      input: { subject: "from the claimant", message: "m", source: "widget", customerId: visitor.id },
    });
    const created = await send("/api/customers", { external_id: "claimed-1", name: "Real customer" });
    expect(created.status).toBe(201);
    expect(created.body.id).not.toBe(visitor.id);
    expect(created.body.verified).toBe(true);
    const detail = await get(`/api/customers/${created.body.id}`);
    expect(detail.body.tickets).toEqual([]);
    const old = await get(`/api/customers/${visitor.id}`);
    expect(old.body).toMatchObject({
      external_id: null,
      claimed_external_id: "claimed-1",
      verified: false,
      tickets: [expect.objectContaining({ id: ticket.id })],
    });
    const listed = await get(`/api/tickets/${ticket.id}`);
    expect(listed.body.customer).toMatchObject({ id: visitor.id, verified: false, claimed_external_id: "claimed-1" });
  }, 20_000);
});

describe("a customer's page", () => {
  test("recent events, newest first, at most the documented number", async () => {
    const user = (await send("/api/customers", { external_id: "events-1" })).body;
    const base = Date.parse("2026-01-01T00:00:00Z");
    // Events are written by the widget SDK; here they are fixtures.
    await app.deps.db.insert(customerEvents).values(
      Array.from({ length: CUSTOMER_LIMITS.recentEvents + 5 }, (_, i) => ({
        orgId: a.org_id,
        endUserId: user.id,
        name: `page_view_${i}`,
        properties: { i },
        occurredAt: new Date(base + i * 1000),
      })),
    );
    const detail = await get(`/api/customers/${user.id}`);
    expect(detail.body.events).toHaveLength(CUSTOMER_LIMITS.recentEvents);
    expect(detail.body.events[0]).toMatchObject({ name: `page_view_${CUSTOMER_LIMITS.recentEvents + 4}`, properties: { i: CUSTOMER_LIMITS.recentEvents + 4 } });
    // Another org sees neither the customer nor their events.
    expect((await get(`/api/customers/${user.id}`, authB)).status).toBe(404);
  }, 20_000);
});

describe("roles, limits, tenant boundary", () => {
  test("inbox:view cannot create or import (403)", async () => {
    const viewer = await addMember(app, a.org_id, ["inbox:view"]);
    const headers = { authorization: `Bearer ${viewer.token}` };
    expect((await send("/api/customers", { external_id: "v-1" }, headers)).status).toBe(403);
    expect((await send("/api/customers/import", { customers: [{ external_id: "v-2" }] }, headers)).status).toBe(403);
    expect((await app.request("/api/customers", { json: { external_id: "v-3" } })).status).toBe(401);
  }, 20_000);

  test("every field at its limit passes, one over is 400; the batch too", async () => {
    const ok = await send("/api/customers", {
      external_id: "x".repeat(CUSTOMER_LIMITS.externalId),
      name: "n".repeat(CUSTOMER_LIMITS.name),
      email: `${"e".repeat(CUSTOMER_LIMITS.email - "@example.com".length)}@example.com`,
      company_id: "c".repeat(CUSTOMER_LIMITS.externalId),
    });
    expect(ok.status).toBe(201);
    for (const [field, value] of [
      ["external_id", "x".repeat(CUSTOMER_LIMITS.externalId + 1)],
      ["name", "n".repeat(CUSTOMER_LIMITS.name + 1)],
      ["email", `${"e".repeat(CUSTOMER_LIMITS.email + 1 - "@example.com".length)}@example.com`],
      ["email", "not-an-email"],
      ["company_id", "c".repeat(CUSTOMER_LIMITS.externalId + 1)],
    ] as const) {
      const res = await send("/api/customers", { external_id: "limit-check", [field]: value });
      expect(res.status, `${field} ${value.length}`).toBe(400);
      expect(res.body.error.details[0].path).toBe(`/${field}`);
    }
    expect((await send("/api/customers", { external_id: "" })).status).toBe(400);
    let deep: Json = { leaf: 1 };
    for (let i = 0; i < 9; i++) deep = { deep };
    expect((await send("/api/customers", { external_id: "deep", traits: deep })).status).toBe(400);
    const tooMany = Array.from({ length: CUSTOMER_LIMITS.importBatch + 1 }, (_, i) => ({ external_id: `over-${i}` }));
    expect((await send("/api/customers/import", { customers: tooMany })).status).toBe(400);
    expect((await send("/api/customers/import", { customers: [] })).status).toBe(400);
    // Nothing of a refused batch was stored.
    expect((await get("/api/customers/over-0")).status).toBe(404);
    expect((await get("/api/customers/limit-check")).status).toBe(404);
  }, 20_000);

  test("the same external id in two orgs is two customers; neither org reaches the other's", async () => {
    const inA = (await send("/api/customers", { external_id: "shared-id", name: "A's" })).body;
    const inB = (await send("/api/customers", { external_id: "shared-id", name: "B's" }, authB)).body;
    expect(inA.id).not.toBe(inB.id);
    expect((await get("/api/customers/shared-id")).body.name).toBe("A's");
    expect((await get("/api/customers/shared-id", authB)).body.name).toBe("B's");
    expect((await get(`/api/customers/${inA.id}`, authB)).status).toBe(404);
    expect((await get("/api/customers?q=A's", authB)).body.customers).toEqual([]);
    // B importing A's id touches only B's record.
    await send("/api/customers/import", { customers: [{ external_id: "shared-id", name: "B renamed" }] }, authB);
    expect((await get("/api/customers/shared-id")).body.name).toBe("A's");
  }, 20_000);
});
