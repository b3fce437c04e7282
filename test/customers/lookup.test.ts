// Customer lookups cannot be steered by what a caller of the public widget key may write: an
// external id shaped like another customer's internal id, or a visitor claiming their email.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { endUsers } from "../../src/db/schema/index.ts";
import { createVisitor, findEndUser, findEndUserByEmail, identifyEndUser } from "../../src/customers/records.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

let app: TestApp;
let orgId: string;
let member: string;
beforeAll(async () => {
  app = await createTestApp();
  const org = await seedOrg(app);
  orgId = org.org_id;
  member = await signIn(app, org.admin_email, org.password);
}, 30_000);
afterAll(() => app.close());

test("our id wins over an external id that copies it", async () => {
  const real = await identifyEndUser(app.deps, orgId, "ada", true, { email: "ada@corp.example", name: "Ada" });
  const copycat = await identifyEndUser(app.deps, orgId, real.id, false, { name: "Mallory" });
  expect(copycat.id).not.toBe(real.id);
  // Whatever order the database meets the two rows in (an update rewrites the real one).
  await app.deps.db.update(endUsers).set({ name: "Ada L." }).where(eq(endUsers.id, real.id));
  expect((await findEndUser(app.deps, orgId, real.id))!.id).toBe(real.id);
  expect((await findEndUser(app.deps, orgId, "ada"))!.id).toBe(real.id);
  // The inbox's customer page asks the same lookup.
  const page = await app.request(`/api/customers/${real.id}`, { headers: { authorization: `Bearer ${member}` } });
  expect(page.status).toBe(200);
  expect(((await page.json()) as { id: string; name: string }).id).toBe(real.id);
});

test("by email, the verified customer wins over a visitor who typed the same address", async () => {
  const visitor = await createVisitor(app.deps, orgId, { email: "grace@corp.example", name: "Not Grace" });
  const grace = await identifyEndUser(app.deps, orgId, "grace", true, { email: "grace@corp.example", name: "Grace" });
  expect(visitor.id).not.toBe(grace.id);
  expect((await findEndUserByEmail(app.deps, orgId, "Grace@corp.example"))!.id).toBe(grace.id);
});
