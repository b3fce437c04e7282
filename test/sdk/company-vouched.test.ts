// Identity verification off: the public widget key may still create and write companies nobody
// vouched for, but never one the org vouched for — created or written through the API, an import or
// the data tools, or by a request whose verified user_token names the company. The customers' rule
// (src/workspace/customers.ts identifyEndUser), applied to companies.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { migrationFiles } from "../../src/db/migrations/index.ts";
import { findCompany, updateCompany } from "../../src/customers/company-records.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { sdk, userToken } from "./helpers.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let call: ReturnType<typeof sdk>;
let admin: Record<string, string>;

const token = (claims: Record<string, unknown>) => userToken(org.identity_secret, claims, { now: app.clock.now });
const api = (path: string, json: unknown) => app.request(path, { json, headers: admin });
const company = async (externalId: string) => (await findCompany(app.deps, org.org_id, externalId))!;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  call = sdk(app, org.widget_key);
  admin = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  expect((await app.request("/api/widget/identity", { method: "PUT", headers: admin, json: { enabled: false } })).status).toBe(200);
}, 30_000);
afterAll(() => app.close());

/** Unverified requests a holder of the public key can send about a company (verification off). */
const ATTACKS = (companyId: string) => [
  { company_id: companyId, name: "HACKED Inc", custom_fields: { plan: "hacked", billing_email: "pay@evil.example" } },
  { company_id: companyId, name: "HACKED Inc", user_id: "mallory" },
  { company_id: companyId, custom_fields: { plan: "hacked" }, user_id: "anonymous" },
];

const VOUCHED: { how: string; id: string; write: (id: string) => Promise<void> }[] = [
  {
    how: "POST /api/customers naming it",
    id: "co-api",
    write: async (id) => expect((await api("/api/customers", { external_id: "cust-api", company_id: id })).status).toBe(201),
  },
  {
    how: "POST /api/customers/import naming it",
    id: "co-import",
    write: async (id) => expect((await api("/api/customers/import", { customers: [{ external_id: "cust-import", company_id: id }] })).status).toBe(200),
  },
  {
    how: "the org's data tools (data_update_company)",
    id: "co-tools",
    write: async (id) => {
      expect((await call("/api/sdk/companies/identify", { company_id: id, name: "Draft" })).status).toBe(200);
      await updateCompany(app.deps, await company(id), { name: "Tools Co", traits: { tier: "gold" } });
    },
  },
  {
    how: "users/identify with a user_token whose company_id claim names it",
    id: "co-user-token",
    write: async (id) =>
      expect((await call("/api/sdk/users/identify", { user_id: "ann", user_token: await token({ user_id: "ann", company_id: id }) })).status).toBe(200),
  },
  {
    how: "companies/identify with a user_token whose company_id claim names it",
    id: "co-company-token",
    write: async (id) =>
      expect(
        (
          await call("/api/sdk/companies/identify", {
            company_id: id,
            name: "Token Co",
            custom_fields: { tier: "gold" },
            user_id: "bob",
            user_token: await token({ user_id: "bob", company_id: id }),
          })
        ).status,
      ).toBe(200),
  },
];

describe("a company the org vouched for is never changed by an unverified request", () => {
  for (const { how, id, write } of VOUCHED) {
    test(`written through ${how}`, async () => {
      await write(id);
      const before = await company(id);
      for (const attack of ATTACKS(id)) {
        const res = await call("/api/sdk/companies/identify", attack);
        // Answered as any company write is: the ids, nothing that tells vouched from open.
        expect([res.status, Object.keys(await res.json()).sort()]).toEqual([
          200,
          attack.user_id === "mallory" ? ["company_id", "id", "user"] : ["company_id", "id"],
        ]);
      }
      // A users/identify naming it through the body links the unverified user, and writes nothing on the company either.
      expect((await call("/api/sdk/users/identify", { user_id: "mallory", company_id: id, name: "x" })).status).toBe(200);
      const after = await company(id);
      expect({ name: after.name, traits: after.traits, updated_at: after.updatedAt.toISOString() }).toEqual({
        name: before.name,
        traits: before.traits,
        updated_at: before.updatedAt.toISOString(),
      });
      expect([before.verified, after.verified]).toEqual([true, true]);
    });
  }
});

describe("companies nobody vouched for stay writable without verification", () => {
  const OPEN: { how: string; id: string; write: (id: string) => Promise<void> }[] = [
    {
      how: "an unverified companies/identify",
      id: "co-open",
      write: async (id) => expect((await call("/api/sdk/companies/identify", { company_id: id, name: "Open Co" })).status).toBe(200),
    },
    {
      how: "a verified user whose token names no company, linked through the body",
      id: "co-body",
      write: async (id) =>
        expect((await call("/api/sdk/users/identify", { user_id: "cy", user_token: await token({ user_id: "cy" }), company_id: id })).status).toBe(200),
    },
  ];
  for (const { how, id, write } of OPEN) {
    test(`created by ${how}`, async () => {
      await write(id);
      expect((await company(id)).verified).toBe(false);
      expect((await call("/api/sdk/companies/identify", { company_id: id, name: "Renamed", custom_fields: { plan: "pro" } })).status).toBe(200);
      expect(await company(id)).toMatchObject({ name: "Renamed", traits: { plan: "pro" }, verified: false });
    });
  }

  test("the org's first write on a company the public key wrote starts it afresh: nothing planted becomes vouched", async () => {
    expect(
      (await call("/api/sdk/companies/identify", { company_id: "co-planted", name: "Acme – pay at evil.example", custom_fields: { plan: "enterprise" } }))
        .status,
    ).toBe(200);
    const planted = await company("co-planted");
    expect((await api("/api/customers", { external_id: "cust-planted", company_id: "co-planted" })).status).toBe(201);
    expect(await company("co-planted")).toMatchObject({ id: planted.id, name: "", traits: {}, verified: true });
    expect((await call("/api/sdk/companies/identify", { company_id: "co-planted", name: "Planted again" })).status).toBe(200);
    expect((await company("co-planted")).name).toBe("");
  });
});

describe("the migration that introduced vouching", () => {
  test("companies a verified customer belongs to become vouched; the others stay open", async () => {
    expect((await api("/api/customers", { external_id: "cust-old", company_id: "co-old-linked" })).status).toBe(201);
    expect((await call("/api/sdk/companies/identify", { company_id: "co-old-open", name: "Old open", user_id: "old-visitor" })).status).toBe(200);
    const migration = migrationFiles.find((m) => m.tag.endsWith("_companies_vouched"))!;
    // The table as it was before that migration, with the rows the old code wrote.
    await app.deps.db.execute(sql`alter table companies drop column verified`);
    for (const statement of migration.sql.split("--> statement-breakpoint").filter((s) => s.trim() !== "")) await app.deps.db.execute(sql.raw(statement));
    expect([(await company("co-old-linked")).verified, (await company("co-old-open")).verified]).toEqual([true, false]);
  });
});
