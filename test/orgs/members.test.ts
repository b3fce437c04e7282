// Members and invitations (settings "members and roles") through the JSON API and the
// /invite/<token> page: invite with the link returned once (token stored only hashed), accept with
// a new account or an existing one, expiry / revocation / reuse / unknown links, the accept rate
// limit, role changes and removal with their invariants (one org:manage + members:manage admin
// always remains; roles one does not hold cannot be granted), the consequences for tokens and
// sessions (the very next MCP call sees a downgrade; removal ends sessions and grants), limits at
// their boundary, tenant isolation and the 401/403 guard.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { activityLog, dashboardSessions, memberInvitations, members, memberships, oauthGrants } from "../../src/db/schema/index.ts";
import { INVITATION_LIMITS } from "../../src/orgs/invitations.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { Browserless, pkcePair, registerPublicClient, rpc, tokenRequest, tokensFor } from "../support/oauth.ts";

let app: TestApp;
type Org = Awaited<ReturnType<typeof seedOrg>>;
let orgA: Org;
let orgB: Org;
let adminA: string;
let adminB: string;

beforeAll(async () => {
  app = await createTestApp();
  orgA = await seedOrg(app, { name: "Alpha" });
  orgB = await seedOrg(app, { name: "Beta" });
  adminA = await signIn(app, orgA.admin_email, orgA.password);
  adminB = await signIn(app, orgB.admin_email, orgB.password);
}, 30_000);
afterAll(() => app.close());

/** After moving the clock past the sessions' lifetime: the admins sign in again. */
async function resign() {
  adminA = await signIn(app, orgA.admin_email, orgA.password);
  adminB = await signIn(app, orgB.admin_email, orgB.password);
}

let ipCounter = 0;
const freshIp = () => `10.88.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

function api(token: string, path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}) {
  return app.request(path, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });
}

async function invite(token: string, email: string, roles: string[]) {
  const res = await api(token, "/api/members/invitations", { json: { email, roles } });
  const body = (await res.json()) as any;
  return { res, body, token: res.status === 201 ? (body.invite_url as string).split("/invite/")[1]! : "" };
}

/** Accepts as the invitee's browser: same-origin form post. */
function accept(token: string, form: Record<string, string>, ip = freshIp()) {
  return app.request(`/invite/${token}`, { form, ip, headers: { origin: app.deps.config.baseUrl } });
}

const cookiesOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(";")[0]!);
const sessionOf = (res: Response) => cookiesOf(res).find((c) => c.startsWith("svc_session="))!;
const memberIdOf = async (email: string) => (await app.deps.db.select({ id: members.id }).from(members).where(eq(members.email, email)))[0]!.id;
const activity = (orgId: string, action: string) =>
  app.deps.db
    .select()
    .from(activityLog)
    .where(and(eq(activityLog.orgId, orgId), eq(activityLog.action, action)));
const email = (tag: string) => `${tag}-${crypto.randomUUID().slice(0, 8)}@example.com`;

/** A new member of `org` with `roles`, joined through an invitation; returns their password and bearer session. */
async function joined(org: Org, adminToken: string, roles: string[], tag = "m") {
  const address = email(tag);
  const { token } = await invite(adminToken, address, roles);
  const password = `pw-${crypto.randomUUID()}`;
  const res = await accept(token, { name: `Member ${tag}`, password });
  if (res.status !== 303) throw new Error(`accept failed: ${res.status}`);
  return { email: address, password, id: await memberIdOf(address), session: await signIn(app, address, password), org };
}

describe("inviting", () => {
  test("201 with the link once; only the token's SHA-256 is stored; listed as pending; recorded", async () => {
    const address = email("new");
    const { res, body, token } = await invite(adminA, address.toUpperCase(), ["knowledge:view", "agents:view"]);
    expect(res.status).toBe(201);
    expect(body.invite_url).toMatch(new RegExp(`^${app.deps.config.baseUrl}/invite/svc_inv_[A-Za-z0-9_-]{43}$`));
    expect(body.invitation).toMatchObject({
      email: address,
      roles: ["agents:view", "knowledge:view"],
      status: "pending",
      invited_by: { email: orgA.admin_email },
    });
    const [row] = await app.deps.db.select().from(memberInvitations).where(eq(memberInvitations.id, body.invitation.id));
    expect(row!.tokenHash).toBe(sha256Hex(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row!.expiresAt.getTime() - row!.createdAt.getTime()).toBe(INVITATION_LIMITS.ttlDays * 86_400_000);
    const list = (await (await api(adminA, "/api/members/invitations")).json()) as any;
    expect(list.invitations.map((i: any) => i.email)).toContain(address);
    expect(JSON.stringify(list)).not.toContain(token);
    const [entry] = (await activity(orgA.org_id, "member_invitation.created")).filter((a) => a.objectId === body.invitation.id);
    expect(entry!.summary).toMatchObject({ email: address, roles: ["agents:view", "knowledge:view"] });
  });

  test("bad input is a 400 naming the field; an email of exactly 320 characters passes, 321 does not", async () => {
    expect((await invite(adminA, "not-an-email", ["agents:view"])).res.status).toBe(400);
    expect((await invite(adminA, email("x"), [])).res.status).toBe(400);
    expect((await invite(adminA, email("x"), ["agents:admin"])).res.status).toBe(400);
    const noRoles = await api(adminA, "/api/members/invitations", { json: { email: email("x") } });
    expect(noRoles.status).toBe(400);
    const at = `${"a".repeat(64)}@${"b".repeat(251)}.com`;
    expect(at.length).toBe(320);
    expect((await invite(adminA, at, ["agents:view"])).res.status).toBe(201);
    const over = await invite(adminA, `${"a".repeat(64)}@${"b".repeat(252)}.com`, ["agents:view"]);
    expect(over.res.status).toBe(400);
    expect(over.body.error.code).toBe("validation_failed");
  });

  test("an existing member of the org is a 409; inviting an address again replaces its earlier link", async () => {
    const dup = await invite(adminA, orgA.admin_email, ["agents:view"]);
    expect(dup.res.status).toBe(409);
    expect(dup.body.error.code).toBe("already_member");
    const address = email("again");
    const first = await invite(adminA, address, ["agents:view"]);
    const second = await invite(adminA, address, ["inbox:view"]);
    expect(second.res.status).toBe(201);
    expect((await app.request(`/invite/${first.token}`)).status).toBe(410);
    expect((await app.request(`/invite/${second.token}`)).status).toBe(200);
    const open = ((await (await api(adminA, "/api/members/invitations?per_page=100")).json()) as any).invitations.filter((i: any) => i.email === address);
    expect(open.map((i: any) => i.roles)).toEqual([["inbox:view"]]);
  });

  test(`open invitations per org: the ${INVITATION_LIMITS.openPerOrg}th passes, one more is a 409; revoking or expiry frees room`, async () => {
    const org = await seedOrg(app);
    const admin = await signIn(app, org.admin_email, org.password);
    const made = [];
    for (let i = 0; i < INVITATION_LIMITS.openPerOrg; i++) {
      const r = await invite(admin, `limit-${i}@example.com`, ["agents:view"]);
      expect(r.res.status).toBe(201);
      made.push(r.body.invitation.id);
    }
    const over = await invite(admin, "limit-over@example.com", ["agents:view"]);
    expect(over.res.status).toBe(409);
    expect(over.body.error.code).toBe("too_many_invitations");
    expect((await api(admin, `/api/members/invitations/${made[0]}`, { method: "DELETE" })).status).toBe(204);
    expect((await invite(admin, "limit-over@example.com", ["agents:view"])).res.status).toBe(201);
    expect((await invite(admin, "limit-over-2@example.com", ["agents:view"])).res.status).toBe(409);
    app.clock.advance(INVITATION_LIMITS.ttlDays * 86_400_000);
    await resign();
    const again = await signIn(app, org.admin_email, org.password);
    expect((await invite(again, "limit-over-2@example.com", ["agents:view"])).res.status).toBe(201);
  }, 60_000);
});

describe("accepting", () => {
  test("a new account: the page asks for a name and password; accepting signs in and lands on /dashboard with the roles", async () => {
    const address = email("fresh");
    const { token, body } = await invite(adminA, address, ["knowledge:view", "agents:view"]);
    const page = await app.request(`/invite/${token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("cache-control")).toBe("no-store");
    const text = await page.text();
    expect(text).toContain("Join Alpha");
    expect(text).toContain('autocomplete="new-password"');
    expect(text).toContain("Create account and join");

    const res = await accept(token, { name: "Fresh <Person>", password: "12345678" }); // PASSWORD_MIN exactly
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard");
    expect(cookiesOf(res)).toContain(`svc_org=${orgA.org_id}`);
    const cookie = sessionOf(res);
    expect((await app.request("/dashboard", { headers: { cookie } })).status).toBe(200);
    const me = (await (await app.request("/api/me", { headers: { cookie } })).json()) as any;
    expect(me.member).toMatchObject({ email: address, name: "Fresh <Person>" });
    expect(me.orgs).toEqual([{ id: orgA.org_id, name: "Alpha", roles: ["agents:view", "knowledge:view"] }]);
    const [entry] = (await activity(orgA.org_id, "member_invitation.accepted")).filter((a) => a.objectId === body.invitation.id);
    expect(entry!.actorKind).toBe("member");
    expect(entry!.summary).toMatchObject({ new_account: true });

    // Used: the link is gone, and a second post does not make a second member.
    const again = await app.request(`/invite/${token}`);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain("already been used");
    expect((await accept(token, { name: "Twice", password: "12345678" })).status).toBe(410);
    expect(((await api(adminA, "/api/members/invitations?per_page=100").then((r) => r.json())) as any).invitations.map((i: any) => i.id)).not.toContain(
      body.invitation.id,
    );
  });

  test("new-account fields at their bounds: a 7-character password and a 201-character name are field errors", async () => {
    const { token } = await invite(adminA, email("bounds"), ["agents:view"]);
    const short = await accept(token, { name: "Someone", password: "1234567" });
    expect(short.status).toBe(400);
    const shortText = await short.text();
    expect(shortText).toContain('id="password-error"');
    expect(shortText).toContain('value="Someone"'); // what was typed is kept
    const long = await accept(token, { name: "n".repeat(201), password: "long-enough-password" });
    expect(long.status).toBe(400);
    expect(await long.text()).toContain('id="name-error"');
    const blank = await accept(token, { name: "   ", password: "long-enough-password" });
    expect(blank.status).toBe(400);
    expect((await accept(token, { name: "n".repeat(200), password: "long-enough-password" })).status).toBe(303);
  });

  test("an existing account signs in with its own password (a wrong one is a field error) and gains the org", async () => {
    const { token } = await invite(adminA, orgB.admin_email, ["inbox:view"]);
    const page = await (await app.request(`/invite/${token}`)).text();
    expect(page).toContain("Sign in and join");
    expect(page).toContain('autocomplete="current-password"');
    const wrong = await accept(token, { password: "not-their-password" });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('id="password-error"');
    expect(
      await app.deps.db
        .select()
        .from(memberships)
        .where(and(eq(memberships.orgId, orgA.org_id), eq(memberships.memberId, await memberIdOf(orgB.admin_email)))),
    ).toEqual([]);
    const res = await accept(token, { password: orgB.password, name: "ignored" });
    expect(res.status).toBe(303);
    expect(cookiesOf(res)).toContain(`svc_org=${orgA.org_id}`);
    const me = (await (await app.request("/api/me", { headers: { cookie: sessionOf(res) } })).json()) as any;
    expect(me.orgs.map((o: any) => [o.name, o.roles])).toEqual(
      [
        ["Alpha", ["inbox:view"]],
        ["Beta", expect.arrayContaining(["org:manage", "members:manage"])],
      ].sort((a, b) => (a[0] as string).localeCompare(b[0] as string)) as any,
    );
    // Remove them again so the other tests see Beta's admin as Beta's only.
    expect((await api(adminA, `/api/members/${await memberIdOf(orgB.admin_email)}`, { method: "DELETE" })).status).toBe(204);
  });

  test(`expiry: a link works until ${INVITATION_LIMITS.ttlDays} days minus 1 ms and is 410 from exactly ${INVITATION_LIMITS.ttlDays} days`, async () => {
    const { token } = await invite(adminA, email("late"), ["agents:view"]);
    app.clock.advance(INVITATION_LIMITS.ttlDays * 86_400_000 - 1);
    expect((await app.request(`/invite/${token}`)).status).toBe(200);
    app.clock.advance(1);
    await resign();
    const gone = await app.request(`/invite/${token}`);
    expect(gone.status).toBe(410);
    expect(await gone.text()).toContain("expired");
    expect((await accept(token, { name: "Late", password: "long-enough-password" })).status).toBe(410);
    const listed = ((await (await api(adminA, "/api/members/invitations?per_page=100")).json()) as any).invitations;
    expect(listed.find((i: any) => i.email.startsWith("late-"))?.status).toBe("expired");
  });

  test("revoked and unknown links: 410 and 404 pages; revoking twice or another org's invitation is 404", async () => {
    const { token, body } = await invite(adminA, email("revoked"), ["agents:view"]);
    expect((await api(adminB, `/api/members/invitations/${body.invitation.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await app.request(`/invite/${token}`)).status).toBe(200);
    expect((await api(adminA, `/api/members/invitations/${body.invitation.id}`, { method: "DELETE" })).status).toBe(204);
    const revoked = await app.request(`/invite/${token}`);
    expect(revoked.status).toBe(410);
    expect(await revoked.text()).toContain("withdrawn");
    expect((await api(adminA, `/api/members/invitations/${body.invitation.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await activity(orgA.org_id, "member_invitation.revoked")).some((a) => a.objectId === body.invitation.id)).toBe(true);
    for (const bad of ["svc_inv_" + "A".repeat(43), "nonsense", "svc_inv_", "x".repeat(200)]) {
      const res = await app.request(`/invite/${bad}`);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain("not valid");
    }
  });

  test(`accept attempts per IP: ${INVITATION_LIMITS.acceptPerIp.limit} failures are answered, the next is 429 with Retry-After`, async () => {
    const ip = "10.99.0.1";
    for (let i = 0; i < INVITATION_LIMITS.acceptPerIp.limit; i++)
      expect((await accept(`svc_inv_${"B".repeat(42)}${i % 10}`, { password: "x" }, ip)).status).toBe(404);
    const { token } = await invite(adminA, email("limited"), ["agents:view"]);
    const limited = await accept(token, { name: "Limited", password: "long-enough-password" }, ip);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await accept(token, { name: "Limited", password: "long-enough-password" }, "10.99.0.2")).status).toBe(303);
  });

  test("a cross-site post is refused; the access log never holds an invitation token", async () => {
    const { token } = await invite(adminA, email("csrf"), ["agents:view"]);
    const forged = await app.request(`/invite/${token}`, {
      form: { name: "X", password: "long-enough-password" },
      headers: { origin: "https://evil.example" },
    });
    expect(forged.status).toBe(403);
    expect((await app.request(`/invite/${token}`)).status).toBe(200); // still pending
    const paths = app.logs.filter((l) => l.msg === "request").map((l) => l.path as string);
    expect(paths).toContain("/invite/[token]");
    expect(app.rawLogs.join("\n")).not.toContain("svc_inv_");
  });
});

describe("roles and removal", () => {
  test("change roles: 200 with the new set, recorded before/after; bad roles are 400", async () => {
    const m = await joined(orgA, adminA, ["agents:view"], "roles");
    const res = await api(adminA, `/api/members/${m.id}`, { method: "PATCH", json: { roles: ["inbox:view", "agents:manage"] } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).roles).toEqual(["agents:manage", "inbox:view"]);
    const [entry] = (await activity(orgA.org_id, "member.roles_changed")).filter((a) => a.objectId === m.id);
    expect(entry!.summary).toEqual({ email: m.email, before: ["agents:view"], after: ["agents:manage", "inbox:view"] });
    expect((await api(adminA, `/api/members/${m.id}`, { method: "PATCH", json: { roles: [] } })).status).toBe(400);
    expect((await api(adminA, `/api/members/${m.id}`, { method: "PATCH", json: { roles: ["root"] } })).status).toBe(400);
    expect((await api(adminA, `/api/members/${crypto.randomUUID()}`, { method: "PATCH", json: { roles: ["agents:view"] } })).status).toBe(404);
  });

  test("the last admin cannot drop org:manage or members:manage, nor leave; with a second admin they can", async () => {
    const org = await seedOrg(app);
    const admin = await signIn(app, org.admin_email, org.password);
    const me = await memberIdOf(org.admin_email);
    for (const roles of [["members:manage"], ["org:manage"], ["agents:view"]]) {
      const res = await api(admin, `/api/members/${me}`, { method: "PATCH", json: { roles } });
      expect(res.status).toBe(409);
      const body = (await res.json()) as any;
      expect(body.error.code).toBe("last_admin");
      expect(body.error.message).toContain("org:manage and members:manage");
    }
    const leave = await api(admin, `/api/members/${me}`, { method: "DELETE" });
    expect(leave.status).toBe(409);
    // A second admin: the first may step down (and keep signing in with fewer roles).
    const second = await joined(org, admin, ["org:manage", "members:manage"], "second");
    expect((await api(admin, `/api/members/${me}`, { method: "PATCH", json: { roles: ["agents:view"] } })).status).toBe(200);
    // Now the second is the last one: it cannot remove itself or demote itself.
    expect((await api(second.session, `/api/members/${second.id}`, { method: "DELETE" })).status).toBe(409);
    expect((await api(second.session, `/api/members/${second.id}`, { method: "PATCH", json: { roles: ["org:manage"] } })).status).toBe(409);
    // Holding the two roles only split across members does not count.
    const split = await joined(org, second.session, ["org:manage"], "split");
    expect(split.id).toBeString();
    expect((await api(second.session, `/api/members/${second.id}`, { method: "PATCH", json: { roles: ["members:manage"] } })).status).toBe(409);
  });

  test("two admins demoting each other at once: exactly one succeeds", async () => {
    const org = await seedOrg(app);
    const first = { session: await signIn(app, org.admin_email, org.password), id: await memberIdOf(org.admin_email) };
    const second = await joined(org, first.session, ["org:manage", "members:manage"], "rival");
    const [a, b] = await Promise.all([
      api(first.session, `/api/members/${second.id}`, { method: "PATCH", json: { roles: ["agents:view"] } }),
      api(second.session, `/api/members/${first.id}`, { method: "PATCH", json: { roles: ["agents:view"] } }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const admins = (await app.deps.db.select({ roles: memberships.roles }).from(memberships).where(eq(memberships.orgId, org.org_id))).filter(
      (m) => m.roles.includes("org:manage") && m.roles.includes("members:manage"),
    );
    expect(admins.length).toBe(1);
  });

  test("a member grants only roles they hold: members:manage alone cannot hand out org:manage", async () => {
    const manager = await joined(orgA, adminA, ["members:manage", "agents:view"], "manager");
    const denied = await invite(manager.session, email("escalate"), ["org:manage"]);
    expect(denied.res.status).toBe(403);
    expect(denied.body.error.code).toBe("role_not_held");
    expect(denied.body.error.message).toContain("org:manage");
    const target = await joined(orgA, adminA, ["agents:view"], "target");
    expect((await api(manager.session, `/api/members/${target.id}`, { method: "PATCH", json: { roles: ["agents:view", "inbox:manage"] } })).status).toBe(403);
    expect(
      (await api(manager.session, `/api/members/${manager.id}`, { method: "PATCH", json: { roles: ["members:manage", "agents:view", "org:manage"] } })).status,
    ).toBe(403);
    expect((await invite(manager.session, email("fine"), ["agents:view"])).res.status).toBe(201);
    // Taking roles away is not granting: allowed.
    expect((await api(manager.session, `/api/members/${target.id}`, { method: "PATCH", json: { roles: ["agents:view"] } })).status).toBe(200);
  });

  test("guard: 401 without a session, 403 for an agents-only member on every members route", async () => {
    const agent = await joined(orgA, adminA, ["agents:manage"], "agent");
    const id = crypto.randomUUID();
    const routes: [string, string, unknown?][] = [
      ["GET", "/api/members"],
      ["PATCH", `/api/members/${id}`, { roles: ["agents:view"] }],
      ["DELETE", `/api/members/${id}`],
      ["GET", "/api/members/invitations"],
      ["POST", "/api/members/invitations", { email: email("x"), roles: ["agents:view"] }],
      ["DELETE", `/api/members/invitations/${id}`],
    ];
    for (const [method, path, json] of routes) {
      expect({ path, status: (await app.request(path, { method, json })).status }).toEqual({ path, status: 401 });
      const res = await api(agent.session, path, { method, json });
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
      expect(((await res.json()) as any).error.message).toContain("members:manage");
    }
  });

  test("tenant isolation: org B's admin neither sees nor touches org A's members or invitations", async () => {
    const m = await joined(orgA, adminA, ["agents:view"], "iso");
    const { body } = await invite(adminA, email("iso-inv"), ["agents:view"]);
    const listB = (await (await api(adminB, "/api/members?per_page=100")).json()) as any;
    expect(listB.members.map((x: any) => x.email)).toEqual([orgB.admin_email]);
    const invB = (await (await api(adminB, "/api/members/invitations?per_page=100")).json()) as any;
    expect(invB.invitations.map((x: any) => x.id)).not.toContain(body.invitation.id);
    expect((await api(adminB, `/api/members/${m.id}`, { method: "PATCH", json: { roles: ["agents:view"] } })).status).toBe(404);
    expect((await api(adminB, `/api/members/${m.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await api(adminB, `/api/members/invitations/${body.invitation.id}`, { method: "DELETE" })).status).toBe(404);
    // Naming org A in the header is not membership.
    expect((await api(adminB, "/api/members", { headers: { "x-org-id": orgA.org_id } })).status).toBe(403);
    expect(
      (
        await app.deps.db
          .select()
          .from(memberships)
          .where(and(eq(memberships.orgId, orgA.org_id), eq(memberships.memberId, m.id)))
      )[0]!.roles,
    ).toEqual(["agents:view"]);
  });

  test("pagination: per_page 1 walks the members by email; per_page 100 passes, 101 is a 400", async () => {
    const all = (await (await api(adminA, "/api/members?per_page=100")).json()) as any;
    expect(all.total).toBe(all.members.length);
    expect(all.members.map((m: any) => m.email)).toEqual([...all.members.map((m: any) => m.email)].sort());
    const second = (await (await api(adminA, "/api/members?per_page=1&page=2")).json()) as any;
    expect(second).toMatchObject({ page: 2, per_page: 1, total: all.total });
    expect(second.members.map((m: any) => m.email)).toEqual([all.members[1].email]);
    expect((await api(adminA, "/api/members?per_page=101")).status).toBe(400);
    expect((await api(adminA, "/api/members/invitations?per_page=101")).status).toBe(400);
    expect((await api(adminA, "/api/members?page=0")).status).toBe(400);
  });
});

describe("tokens and sessions follow the roles", () => {
  const search = (token: string, id: number) =>
    rpc(app, token, { jsonrpc: "2.0", id, method: "tools/call", params: { name: "search_docs", arguments: { query: "hours" } } });

  test("after a role downgrade the very next MCP call needing the removed role is refused (reason role)", async () => {
    const m = await joined(orgA, adminA, ["knowledge:view", "agents:view"], "reader");
    const token = (await tokensFor(app, { admin_email: m.email, password: m.password }, "docs:read", freshIp())).accessToken;
    const before = await search(token, 1);
    expect(before.body.result).toBeDefined(); // the org's snapshot is now cached with the old roles
    expect((await api(adminA, `/api/members/${m.id}`, { method: "PATCH", json: { roles: ["agents:view"] } })).status).toBe(200);
    const after = await search(token, 2); // same process, same clock: no TTL has passed
    expect(after.body.error.code).toBe(-32002);
    expect(after.body.error.data).toEqual({ reason: "role" });
    expect(after.body.error.message).toContain("knowledge:view");
    const listed = await rpc(app, token, { jsonrpc: "2.0", id: 3, method: "tools/list" });
    expect(listed.body.result.tools.map((t: any) => t.name)).not.toContain("search_docs");
    // And back: restoring the role restores the tool on the next call.
    expect((await api(adminA, `/api/members/${m.id}`, { method: "PATCH", json: { roles: ["agents:view", "knowledge:view"] } })).status).toBe(200);
    expect((await search(token, 4)).body.result).toBeDefined();
  });

  test("after removal the member's session and token no longer work for the org; grants are revoked and recorded", async () => {
    const m = await joined(orgA, adminA, ["knowledge:view"], "leaver");
    const token = (await tokensFor(app, { admin_email: m.email, password: m.password }, "docs:read", freshIp())).accessToken;
    expect((await search(token, 1)).body.result).toBeDefined();
    expect((await api(m.session, "/api/me")).status).toBe(200);
    expect((await api(adminA, `/api/members/${m.id}`, { method: "DELETE" })).status).toBe(204);
    const call = await search(token, 2);
    expect(call.res.status).toBe(401);
    expect((await api(m.session, "/api/me")).status).toBe(401); // no org left: every session ended
    expect(await app.deps.db.select().from(dashboardSessions).where(eq(dashboardSessions.memberId, m.id))).toEqual([]);
    const grants = await app.deps.db
      .select()
      .from(oauthGrants)
      .where(and(eq(oauthGrants.memberId, m.id), eq(oauthGrants.orgId, orgA.org_id)));
    expect(grants.length).toBeGreaterThan(0);
    expect(grants.every((g) => g.revokedAt !== null)).toBe(true);
    const revoked = (await activity(orgA.org_id, "oauth_grant.revoked")).filter((a) => (a.summary as any).member_id === m.id);
    expect(revoked.map((a) => (a.summary as any).reason)).toEqual(grants.map(() => "member_left_org"));
    const [removed] = (await activity(orgA.org_id, "member.removed")).filter((a) => a.objectId === m.id);
    expect(removed!.summary).toEqual({ email: m.email, roles: ["knowledge:view"] });
    // The account itself remains (it may belong elsewhere later); it just has no org.
    expect(await memberIdOf(m.email)).toBe(m.id);
  });

  test("a member of two orgs removed from one keeps the other: the session stays, org A is gone from it", async () => {
    const m = await joined(orgB, adminB, ["agents:view"], "both");
    const { token: inv } = await invite(adminA, m.email, ["knowledge:view"]);
    expect((await accept(inv, { password: m.password })).status).toBe(303);
    // A token for org A (a member of two orgs names the org on the consent page).
    const client = await registerPublicClient(app, ["http://127.0.0.1:9/callback"], { client_name: "two-orgs" }, freshIp());
    const ua = new Browserless(app);
    await ua.signIn(m.email, m.password);
    const { verifier, challenge } = pkcePair();
    const back = await ua.consent(
      {
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: "http://127.0.0.1:9/callback",
        code_challenge: challenge,
        code_challenge_method: "S256",
        scope: "docs:read",
      },
      "allow",
      orgA.org_id,
    );
    const exchanged = await tokenRequest(app, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      code_verifier: verifier,
      client_id: client.client_id,
      redirect_uri: "http://127.0.0.1:9/callback",
    });
    const tokenA = { accessToken: exchanged.body.access_token as string };
    expect((await search(tokenA.accessToken, 8)).body.result).toBeDefined();
    expect(((await api(m.session, "/api/me").then((r) => r.json())) as any).orgs.length).toBe(2);
    expect((await api(adminA, `/api/members/${m.id}`, { method: "DELETE" })).status).toBe(204);
    const me = (await (await api(m.session, "/api/me")).json()) as any;
    expect(me.orgs.map((o: any) => o.id)).toEqual([orgB.org_id]);
    expect((await api(m.session, "/api/members", { headers: { "x-org-id": orgA.org_id } })).status).toBe(403);
    expect((await search(tokenA.accessToken, 9)).res.status).toBe(401);
    const cookie = `svc_session=${m.session}; svc_org=${orgA.org_id}`;
    const home = await app.request("/dashboard", { headers: { cookie } });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain("Beta"); // the stale org cookie is ignored
  });
});
