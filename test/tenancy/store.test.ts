// The tenancy store (src/tenancy/): the org, its members and memberships, as every room reads
// them and as src/orgs/ writes them. What the rooms above rely on: the views join the same rows the
// tables hold, a flag switched under the lock keeps another flag switched at the same moment, an
// address taken by a concurrent creation answers null (never a database error), a membership added
// twice keeps its first roles, the orgs of a member come oldest first, and an unknown org answers
// false or null rather than throwing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { readFlags } from "../../src/tenancy/flags.ts";
import { accountByEmail, insertMember, memberById, memberCards, updateMember } from "../../src/tenancy/members.ts";
import {
  addMembership,
  firstOrgOf,
  memberRoles,
  membershipCount,
  membershipRoles,
  orgMember,
  orgMemberIdByEmail,
  orgsOfMember,
  othersHolding,
  removeMembership,
  setMembershipRoles,
} from "../../src/tenancy/memberships.ts";
import { lockOrg, orgBusinessHours, orgName, orgNames, setStoredFlag, updateOrg } from "../../src/tenancy/orgs.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";

let app: TestApp;
let alpha: Awaited<ReturnType<typeof seedOrg>>;
let beta: Awaited<ReturnType<typeof seedOrg>>;
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

beforeAll(async () => {
  app = await createTestApp();
  alpha = await seedOrg(app, { name: "Alpha" });
  beta = await seedOrg(app, { name: "Beta" });
}, 30_000);
afterAll(() => app.close());

const db = () => app.deps.db;

describe("orgs", () => {
  test("names, business hours, an update and the lock; an unknown org is false or null", async () => {
    expect(await orgName(db(), alpha.org_id)).toBe("Alpha");
    expect(await orgName(db(), UNKNOWN)).toBeNull();
    expect(await orgBusinessHours(db(), alpha.org_id)).toBeNull();
    expect(await orgBusinessHours(db(), UNKNOWN)).toBeUndefined();
    const hours = { time_zone: "Europe/Paris", weekly: {}, holidays: [] };
    expect(await updateOrg(db(), alpha.org_id, { businessHours: hours, updatedAt: new Date() })).toBe(true);
    expect(await orgBusinessHours(db(), alpha.org_id)).toEqual(hours);
    expect(await orgBusinessHours(db(), beta.org_id)).toBeNull(); // the other org untouched
    expect(await updateOrg(db(), UNKNOWN, { businessHours: null, updatedAt: new Date() })).toBe(false);
    expect(await db().transaction((tx) => lockOrg(tx, alpha.org_id))).toBe(true);
    expect(await db().transaction((tx) => lockOrg(tx, UNKNOWN))).toBe(false);
  });

  test("two flags switched at the same moment are both kept; the before value is the stored one", async () => {
    const now = new Date();
    const [a, b] = await Promise.all([
      db().transaction((tx) => setStoredFlag(tx, beta.org_id, "mcp_external_servers", true, now)),
      db().transaction((tx) => setStoredFlag(tx, beta.org_id, "mcp_destructive_tools", true, now)),
    ]);
    expect(a!.after.mcp_external_servers).toBe(true);
    expect(b!.after.mcp_destructive_tools).toBe(true);
    expect(await readFlags({ db: db() }, beta.org_id)).toEqual({ mcp_external_servers: true, mcp_destructive_tools: true });
    const off = await db().transaction((tx) => setStoredFlag(tx, beta.org_id, "mcp_external_servers", false, now));
    expect(off!.before.mcp_external_servers).toBe(true);
    expect(off!.after).toEqual({ mcp_external_servers: false, mcp_destructive_tools: true });
    expect(await db().transaction((tx) => setStoredFlag(tx, UNKNOWN, "mcp_external_servers", true, now))).toBeNull();
    expect(await readFlags({ db: db() }, UNKNOWN)).toEqual({});
  });

  test("the orgNames view joins the same rows as the table", async () => {
    const rows = await db().select({ id: orgNames.id, name: orgNames.name }).from(orgNames).where(eq(orgNames.id, beta.org_id));
    expect(rows).toEqual([{ id: beta.org_id, name: "Beta" }]);
  });
});

describe("members and memberships", () => {
  test("an address taken answers null, not an error; a second membership keeps its first roles", async () => {
    const id = await insertMember(db(), { email: "tenancy-one@example.com", passwordHash: "x", name: "One" });
    expect(id).toBeString();
    expect(await insertMember(db(), { email: "tenancy-one@example.com", passwordHash: "y" })).toBeNull();
    expect((await accountByEmail(db(), "tenancy-one@example.com"))!.passwordHash).toBe("x");
    expect(await accountByEmail(db(), "nobody@example.com")).toBeNull();

    expect(await memberRoles(db(), beta.org_id, id!)).toBeNull();
    expect(await firstOrgOf(db(), id!)).toBeNull();
    await addMembership(db(), { orgId: beta.org_id, memberId: id!, roles: ["inbox:manage"] });
    await addMembership(db(), { orgId: beta.org_id, memberId: id!, roles: ["org:manage"] });
    expect(await memberRoles(db(), beta.org_id, id!)).toEqual(["inbox:manage"]);
    expect(await memberRoles(db(), alpha.org_id, id!)).toBeNull(); // another org: not a member
    await addMembership(db(), { orgId: alpha.org_id, memberId: id!, roles: ["inbox:manage"] });
    expect((await orgsOfMember(db(), id!)).map((o) => o.orgName)).toEqual(["Alpha", "Beta"]); // oldest org first
    expect(await firstOrgOf(db(), id!)).toBe(beta.org_id); // the membership made first
    expect(await membershipCount(db(), id!)).toBe(2);
    expect(await orgMemberIdByEmail(db(), beta.org_id, "tenancy-one@example.com")).toBe(id);

    await setMembershipRoles(db(), beta.org_id, id!, ["org:manage", "members:manage"]);
    expect((await orgMember(db(), beta.org_id, id!))!.roles).toEqual(["org:manage", "members:manage"]);
    // The seeded admin holds both admin roles; "others than the seeded admin" finds the new one.
    const admin = (await accountByEmail(db(), beta.admin_email))!;
    expect(await othersHolding(db(), beta.org_id, admin.id, ["org:manage", "members:manage"])).toBe(1);
    expect(await othersHolding(db(), beta.org_id, id!, ["org:manage", "members:manage"])).toBe(1);

    await removeMembership(db(), beta.org_id, id!);
    expect(await memberRoles(db(), beta.org_id, id!)).toBeNull();
    expect(await membershipCount(db(), id!)).toBe(1);
  });

  test("a member's name and avatar; the views join the same rows", async () => {
    const id = (await insertMember(db(), { email: "tenancy-two@example.com", passwordHash: "x" }))!;
    await addMembership(db(), { orgId: alpha.org_id, memberId: id, roles: ["knowledge:view"] });
    await updateMember(db(), id, { name: "Two", avatarUrl: "https://example.com/two.png", updatedAt: new Date() });
    expect(await memberById(db(), id)).toEqual({ id, email: "tenancy-two@example.com", name: "Two", avatarUrl: "https://example.com/two.png" });
    expect(await memberById(db(), UNKNOWN)).toBeNull();
    const joined = await db()
      .select({ email: memberCards.email, roles: membershipRoles.roles })
      .from(membershipRoles)
      .innerJoin(memberCards, eq(memberCards.id, membershipRoles.memberId))
      .where(eq(membershipRoles.memberId, id));
    expect(joined).toEqual([{ email: "tenancy-two@example.com", roles: ["knowledge:view"] }]);
  });
});
