// Roles: 401 without a valid session, 403 with one that lacks the role, and the org a request
// acts on is one the member belongs to.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { requireMember } from "../../src/auth/guard.ts";
import { hasRole, ROLES } from "../../src/auth/roles.ts";
import { memberships } from "../../src/db/schema/index.ts";
import { AppError } from "../../src/errors.ts";
import { createOrg } from "../../src/orgs/service.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

async function statusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (error instanceof AppError) return error.status;
    throw error;
  }
}

const req = (token?: string, orgId?: string) =>
  new Request("http://localhost:3000/api/x", { headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(orgId ? { "x-org-id": orgId } : {}) } });

describe("requireMember", () => {
  test("manage implies view; view does not imply manage", () => {
    expect(hasRole(["integrations:manage"], "integrations:view")).toBe(true);
    expect(hasRole(["integrations:view"], "integrations:manage")).toBe(false);
    expect(ROLES).toContain("integrations:manage");
    expect(ROLES).toContain("integrations:view");
  });

  test("401 without a session, 403 without the role, 200 with it", async () => {
    const org = await seedOrg(app);
    const token = await signIn(app, org.admin_email, org.password);
    expect(await statusOf(requireMember(app.deps, req(), "integrations:view"))).toBe(401);
    expect(await statusOf(requireMember(app.deps, req("svc_ses_forged"), "integrations:view"))).toBe(401);
    expect(await statusOf(requireMember(app.deps, req(token), "integrations:manage"))).toBe(200);

    await app.deps.db
      .update(memberships)
      .set({ roles: ["integrations:view"] })
      .where(eq(memberships.orgId, org.org_id));
    expect(await statusOf(requireMember(app.deps, req(token), "integrations:view"))).toBe(200);
    expect(await statusOf(requireMember(app.deps, req(token), "integrations:manage"))).toBe(403);
  });

  test("a member of several orgs names one; naming someone else's org is 403", async () => {
    const first = await seedOrg(app);
    const second = await createOrg(app.deps, { name: "Second", adminEmail: first.admin_email, adminPassword: first.password });
    const stranger = await seedOrg(app);
    const token = await signIn(app, first.admin_email, first.password);
    expect(await statusOf(requireMember(app.deps, req(token), "agents:view"))).toBe(400);
    const chosen = await requireMember(app.deps, req(token, second.org_id), "agents:view");
    expect(chosen.orgId).toBe(second.org_id);
    expect(await statusOf(requireMember(app.deps, req(token, stranger.org_id), "agents:view"))).toBe(403);
    expect(await statusOf(requireMember(app.deps, req(token, "00000000-0000-4000-8000-000000000000"), "agents:view"))).toBe(403);
  });

  test("org create for an existing member needs that member's password", async () => {
    const first = await seedOrg(app);
    expect(await statusOf(createOrg(app.deps, { name: "Takeover", adminEmail: first.admin_email, adminPassword: "not-their-password" }))).toBe(409);
  });

  test("two org creates for one new email at the same moment: one org, the other 409, never a database error", async () => {
    const adminEmail = `race-${crypto.randomUUID()}@example.com`;
    const statuses = await Promise.all(
      ["a", "b"].map((n) => statusOf(createOrg(app.deps, { name: `Race ${n}`, adminEmail, adminPassword: `password-${n}-long` }))),
    );
    expect(statuses.sort()).toEqual([200, 409]);
  });
});
