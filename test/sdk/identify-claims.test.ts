// POST /api/sdk/users/identify without a valid user_token (identity verification off) is a claim
// anyone holding the public widget key can make. Its answer must not tell a known user_id from an
// unknown one, nor read back what the org (or anyone) stored for it: it is what the request sent.
// A verified request still gets the customer as stored.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { endUsers } from "../../src/db/schema/index.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { sdk, userToken } from "./helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let call: ReturnType<typeof sdk>;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  call = sdk(app, org.widget_key);
}, 30_000);
afterAll(() => app.close());

const identify = async (body: Record<string, unknown>) => {
  const res = await call("/api/sdk/users/identify", body);
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
};
/** Everything but the record's id and the user_id the caller chose. */
const apart = ({ id: _id, user_id: _userId, ...rest }: Record<string, unknown>) => rest;

describe("an unverified identify answers what it sent", () => {
  test("a known user_id (written by the org's widget, or a verified customer) and an unknown one get the same answer", async () => {
    // What the org's own site stored earlier: an unverified customer with an address, a name,
    // traits and a company, and a verified customer with the same.
    await identify({ user_id: "known-claim", email: "Claimed@Example.com", name: "Claire", company_id: "acme", custom_fields: { plan: "gold" } });
    await identify({
      user_id: "known-verified",
      user_token: await userToken(
        org.identity_secret,
        { user_id: "known-verified", email: "vera@example.com", name: "Vera", plan: "gold" },
        { now: app.clock.now },
      ),
    });
    app.clock.advance(60_000);

    const probes = [await identify({ user_id: "known-claim" }), await identify({ user_id: "known-verified" }), await identify({ user_id: "never-seen" })];
    const now = app.clock.now.toISOString();
    for (const answer of probes)
      expect(apart(answer)).toEqual({ email: null, name: "", custom_fields: {}, company: null, verified: false, created_at: now, updated_at: now });
    for (const leak of ["claimed@example.com", "Claire", "gold", "acme", "vera@example.com", "Vera"]) expect(JSON.stringify(probes)).not.toContain(leak);

    // With fields, the answer echoes them — and still only them.
    const withFields = await identify({ user_id: "known-claim", name: "Someone", custom_fields: { seats: 2 } });
    expect(apart(withFields)).toEqual({
      email: null,
      name: "Someone",
      custom_fields: { seats: 2 },
      company: null,
      verified: false,
      created_at: now,
      updated_at: now,
    });
    // The record still takes the claim's fields, as before (verification off: the body is taken as sent).
    const [stored] = await app.deps.db
      .select()
      .from(endUsers)
      .where(and(eq(endUsers.orgId, org.org_id), eq(endUsers.externalId, "known-claim")));
    expect(stored).toMatchObject({ id: withFields.id, email: "claimed@example.com", name: "Someone", traits: { plan: "gold", seats: 2 } });
  });

  test("a verified identify gets the customer as stored", async () => {
    const token = () => userToken(org.identity_secret, { user_id: "stored-v" }, { now: app.clock.now });
    await identify({ user_id: "stored-v", user_token: await token(), email: "stored@example.com", name: "Stored", custom_fields: { a: 1 } });
    const again = await identify({ user_id: "stored-v", user_token: await token(), custom_fields: { b: 2 } });
    expect(again).toMatchObject({ user_id: "stored-v", email: "stored@example.com", name: "Stored", custom_fields: { a: 1, b: 2 }, verified: true });
  });
});
