// The reads customers/ offers the rooms above: by reference, by address, the inbox's list, the
// joinable contacts view and the audience statement.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { audienceMatches, customerContacts, emailOnlyCustomer, listEndUsers } from "../../src/customers/queries.ts";
import { findEndUser } from "../../src/customers/records.ts";
import { createVisitor, identifyEndUser } from "../../src/customers/records.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";

let app: TestApp;
let orgId: string;
let otherOrg: string;
beforeAll(async () => {
  app = await createTestApp();
  orgId = (await seedOrg(app)).org_id;
  otherOrg = (await seedOrg(app)).org_id;
}, 30_000);
afterAll(() => app.close());

test("a customer by our id or the org's external id, never another org's", async () => {
  const ada = await identifyEndUser(app.deps, orgId, "ada-q", true, { email: "ada@q.example", name: "Ada" });
  expect((await findEndUser(app.deps, orgId, ada.id))?.id).toBe(ada.id);
  expect((await findEndUser(app.deps, orgId, "ada-q"))?.id).toBe(ada.id);
  expect(await findEndUser(app.deps, otherOrg, ada.id)).toBeNull();
  expect(await findEndUser(app.deps, orgId, "nobody")).toBeNull();
});

test("an email's sender: the oldest unverified email-only record, never an identified customer", async () => {
  await identifyEndUser(app.deps, orgId, "bob-q", true, { email: "bob@q.example" });
  expect(await emailOnlyCustomer(app.deps.db, orgId, "bob@q.example")).toBeNull();
  app.clock.advance(1000);
  const first = await createVisitor(app.deps, orgId, { email: "bob@q.example" });
  app.clock.advance(1000);
  await createVisitor(app.deps, orgId, { email: "bob@q.example" });
  expect(await emailOnlyCustomer(app.deps.db, orgId, "bob@q.example")).toEqual({ id: first.id });
  expect(await emailOnlyCustomer(app.deps.db, otherOrg, "bob@q.example")).toBeNull();
});

test("the list: newest first, searched by an escaped pattern, after a row", async () => {
  const all = await listEndUsers(app.deps.db, orgId, { limit: 100 });
  expect(all.length).toBeGreaterThanOrEqual(4);
  const times = all.map((u) => u.createdAt.getTime());
  expect([...times].sort((a, b) => b - a)).toEqual(times);
  expect((await listEndUsers(app.deps.db, orgId, { pattern: "%ada@q%", limit: 10 })).map((u) => u.externalId)).toEqual(["ada-q"]);
  const after = await listEndUsers(app.deps.db, orgId, { afterId: all[0]!.id, limit: 100 });
  expect(after.map((u) => u.id)).toEqual(all.slice(1).map((u) => u.id));
  expect(await listEndUsers(app.deps.db, otherOrg, { limit: 10 })).toEqual([]);
});

test("customerContacts joins by id with the columns it names", async () => {
  const ada = await findEndUser(app.deps, orgId, "ada-q");
  const rows = await app.deps.db
    .select({ email: customerContacts.email, name: customerContacts.name, orgId: customerContacts.orgId })
    .from(customerContacts)
    .where(eq(customerContacts.id, ada!.id));
  expect(rows).toEqual([{ email: "ada@q.example", name: "Ada", orgId }]);
});

test("audienceMatches: verified customers with an address who match the rule", async () => {
  await identifyEndUser(app.deps, orgId, "pro-q", true, { email: "pro@q.example", traits: { plan: "pro" } });
  await identifyEndUser(app.deps, orgId, "pro-noaddress", true, { traits: { plan: "pro" } });
  await identifyEndUser(app.deps, orgId, "pro-unverified", false, { email: "u@q.example", traits: { plan: "pro" } });
  await identifyEndUser(app.deps, otherOrg, "pro-other", true, { email: "o@q.example", traits: { plan: "pro" } });
  const rows = await app.deps.db.execute(sql`select m.id from (${audienceMatches(orgId, { all: [{ trait: "plan", op: "eq", value: "pro" }] })}) m`);
  const ids = ((Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as { id: string }[]).map((r) => r.id);
  expect(ids).toEqual([(await findEndUser(app.deps, orgId, "pro-q"))!.id]);
});
