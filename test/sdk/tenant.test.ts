// Tenant boundary of the widget SDK: org B's key cannot read or write org
// A's users, companies, events or tickets, on any endpoint; B's admins cannot touch A's keys.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { companies, customerEvents, endUsers, tickets, widgetKeys } from "../../src/db/schema/index.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { sdk, userToken } from "./helpers.ts";

let app: TestApp;
let a: Awaited<ReturnType<typeof seedOrg>>;
let b: Awaited<ReturnType<typeof seedOrg>>;
let asA: ReturnType<typeof sdk>;
let asB: ReturnType<typeof sdk>;
let userA: { id: string };
let ticketA: { id: string; number: number };
let sessionA: string;

beforeAll(async () => {
  app = await createTestApp();
  a = await seedOrg(app);
  b = await seedOrg(app);
  asA = sdk(app, a.widget_key);
  asB = sdk(app, b.widget_key);
  userA = await (
    await asA("/api/sdk/users/identify", { user_id: "shared-id", email: "a-user@a.example", company_id: "acme", custom_fields: { tier: "gold-a" } })
  ).json();
  await asA("/api/sdk/companies/identify", { company_id: "acme", name: "Acme of A", custom_fields: { secret: "a-company" } });
  await asA("/api/sdk/events", { user_id: "shared-id", events: [{ name: "a-event" }] });
  ticketA = await (await asA("/api/sdk/tickets/create", { user_id: "shared-id", subject: "A's ticket", message: "a-private" })).json();
  sessionA = (await (await asA("/api/sdk/chat", { message: "hello", user_id: "shared-id" })).json()).session_id;
}, 30_000);
afterAll(() => app.close());

const snapshotA = async () => ({
  users: await app.deps.db.select().from(endUsers).where(eq(endUsers.orgId, a.org_id)),
  companies: await app.deps.db.select().from(companies).where(eq(companies.orgId, a.org_id)),
  events: await app.deps.db.select().from(customerEvents).where(eq(customerEvents.orgId, a.org_id)),
  tickets: await app.deps.db.select().from(tickets).where(eq(tickets.orgId, a.org_id)),
});

test("org B's key, naming A's ids on every endpoint, reads nothing of A and writes nothing into A", async () => {
  const before = await snapshotA();

  const user = await asB("/api/sdk/users/identify", { user_id: "shared-id" });
  expect(user.status).toBe(200);
  const userText = await user.text();
  expect(JSON.parse(userText).id).not.toBe(userA.id);
  for (const leak of ["a-user@a.example", "gold-a", "acme"]) expect(userText).not.toContain(leak);

  const company = await asB("/api/sdk/companies/identify", { company_id: "acme", user_id: "shared-id" });
  const companyText = await company.text();
  expect(companyText).not.toContain("Acme of A");
  expect(companyText).not.toContain("a-company");

  expect((await asB("/api/sdk/events", { user_id: "shared-id", events: [{ name: "b-event" }] })).status).toBe(200);
  const ticket = await asB("/api/sdk/tickets/create", { user_id: "shared-id", subject: "B's ticket", message: "b" });
  expect(ticket.status).toBe(201);
  const ticketB = await ticket.json();
  // Ticket numbers are per org: B's first ticket is #1 like A's, and a different ticket.
  expect(ticketB.number).toBe(1);
  expect(ticketB.id).not.toBe(ticketA.id);

  // A's chat session is unknown in B.
  const linked = await asB("/api/sdk/tickets/create", { user_id: "shared-id", session_id: sessionA, subject: "s", message: "m" });
  expect(linked.status).toBe(404);

  // A's token does not verify in B (each org has its own secret).
  const tokenA = await userToken(a.identity_secret, { user_id: "shared-id" }, { now: app.clock.now });
  expect((await asB("/api/sdk/users/identify", { user_id: "shared-id", user_token: tokenA })).status).toBe(403);

  expect(await snapshotA()).toEqual(before);
  const bRows = await app.deps.db
    .select()
    .from(endUsers)
    .where(and(eq(endUsers.orgId, b.org_id), eq(endUsers.externalId, "shared-id")));
  expect(bRows).toHaveLength(1);
  const bCompany = await app.deps.db
    .select()
    .from(companies)
    .where(and(eq(companies.orgId, b.org_id), eq(companies.externalId, "acme")));
  expect(bCompany).toHaveLength(1);
  expect(bRows[0]!.companyId).toBe(bCompany[0]!.id);
});

test("B's key reaches none of A's dashboard data, and B's admin none of A's widget settings", async () => {
  for (const path of ["/api/tickets", `/api/tickets/${ticketA.id}`, "/api/customers", `/api/customers/${userA.id}`])
    expect([path, (await asB(path)).status]).toEqual([path, 401]);
  const adminB = await signIn(app, b.admin_email, b.password);
  const asAdminB = (path: string, method = "GET", json?: unknown) =>
    app.request(path, { method, headers: { authorization: `Bearer ${adminB}` }, ...(json ? { json } : {}) });
  const [keyA] = await app.deps.db.select().from(widgetKeys).where(eq(widgetKeys.orgId, a.org_id));
  const listed = await (await asAdminB("/api/widget/keys")).json();
  expect(JSON.stringify(listed)).not.toContain(a.widget_key);
  expect((await asAdminB(`/api/widget/keys/${keyA!.id}`, "DELETE")).status).toBe(404);
  expect((await asA("/api/sdk/users/identify", { user_id: "shared-id" })).status).toBe(200);
  // B's admin naming A's org is refused; A's settings are unchanged.
  const named = await app.request("/api/widget/identity", {
    method: "PUT",
    headers: { authorization: `Bearer ${adminB}`, "x-org-id": a.org_id },
    json: { enabled: true },
  });
  expect(named.status).toBe(403);
  const rotate = await app.request("/api/widget/identity/rotate", { method: "POST", headers: { authorization: `Bearer ${adminB}`, "x-org-id": a.org_id } });
  expect(rotate.status).toBe(403);
  const origins = await app.request("/api/widget/origins", {
    method: "PUT",
    headers: { authorization: `Bearer ${adminB}`, "x-org-id": a.org_id },
    json: { allowed_origins: ["https://b.example"] },
  });
  expect(origins.status).toBe(403);
  expect((await asA("/api/sdk/users/identify", { user_id: "shared-id" }, { origin: "https://a.example" })).status).toBe(200);
});
