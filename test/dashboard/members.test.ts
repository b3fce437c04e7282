// The members section of the settings page, as a browser without JavaScript uses it: invite
// (field errors next to the email and the role checkboxes, the link shown in that answer only),
// change a member's roles (the last-admin refusal next to that member's checkboxes), remove,
// revoke a pending invitation, pagination; the page for a members:manage-only admin shows no org
// secrets; another org's member answers 404.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { members, memberships } from "../../src/db/schema/index.ts";
import { listInvitations } from "../../src/orgs/invitations.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, memberWith, post, withFlash } from "./helpers.ts";

let app: TestApp;
let admin: Member;
let other: Member;
beforeAll(async () => {
  app = await createTestApp();
  admin = await adminOf(app, "Members Org");
  other = await adminOf(app, "Other Members Org");
});
afterAll(() => app.close());

/** A urlencoded body with repeated fields (checkbox groups). */
function postMany(who: Member, path: string, pairs: [string, string][]) {
  return app.request(path, {
    method: "POST",
    body: new URLSearchParams(pairs).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: who.cookie, origin: app.deps.config.baseUrl },
  });
}

const idOf = async (email: string) => (await app.deps.db.select({ id: members.id }).from(members).where(eq(members.email, email)))[0]!.id;
const rolesOf = async (orgId: string, memberId: string) =>
  (
    await app.deps.db
      .select({ roles: memberships.roles })
      .from(memberships)
      .where(and(eq(memberships.orgId, orgId), eq(memberships.memberId, memberId)))
  )[0]?.roles;

describe("members section", () => {
  test("invite: missing email and roles are field errors next to their fields; the values are kept", async () => {
    const res = await postMany(admin, "/dashboard/settings/members/invite", [["invite_email", ""]]);
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(body).toContain('id="f-invite_email-error"');
    expect(body).toContain('id="f-invite_roles-error"');
    expect(body).toContain('<a href="#f-invite_roles">Choose at least one role.</a>');
    const bad = await postMany(admin, "/dashboard/settings/members/invite", [
      ["invite_email", "not an <email>"],
      ["invite_roles", "agents:view"],
    ]);
    expect(bad.status).toBe(400);
    const text = await bad.text();
    expect(text).toContain('id="f-invite_email-error"');
    expect(text).toContain('value="not an &#60;email&#62;"');
    expect(text).toMatch(/id="inv-3" name="invite_roles" value="agents:view" checked/);
    const dup = await postMany(admin, "/dashboard/settings/members/invite", [
      ["invite_email", admin.email],
      ["invite_roles", "agents:view"],
    ]);
    expect(dup.status).toBe(409);
    expect(await dup.text()).toContain("already a member");
  });

  test("invite: the link is shown in that answer only, and the invitation is listed with a revoke button", async () => {
    const res = await postMany(admin, "/dashboard/settings/members/invite", [
      ["invite_email", "Newbie@Example.com"],
      ["invite_roles", "knowledge:view"],
      ["invite_roles", "agents:view"],
    ]);
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.text();
    const link = /id="invite-link" type="text" readonly value="([^"]+)"/.exec(body)?.[1];
    expect(link).toMatch(/^http:\/\/localhost:3000\/invite\/svc_inv_[A-Za-z0-9_-]{43}$/);
    const later = await (await get(app, admin, "/dashboard/settings")).text();
    expect(later).not.toContain(link!);
    expect(later).toContain("newbie@example.com");
    const [inv] = (await listInvitations(app.deps, admin.orgId)).invitations.filter((i) => i.email === "newbie@example.com");
    expect(later).toContain(`/dashboard/settings/invitations/${inv!.id}/revoke`);
    // Revoke from the page: the link stops working.
    const revoked = await post(app, admin, `/dashboard/settings/invitations/${inv!.id}/revoke`, { go: "1" });
    expect(revoked.status).toBe(303);
    expect(await (await get(app, withFlash(admin, revoked), "/dashboard/settings")).text()).toContain("Invitation revoked");
    expect((await app.request(new URL(link!).pathname)).status).toBe(410);
    // Another org's admin cannot revoke it (404 page), nor would they see it.
    expect((await post(app, other, `/dashboard/settings/invitations/${inv!.id}/revoke`, { go: "1" })).status).toBe(404);
  });

  test("change roles from the member's form; the last admin's refusal shows next to their checkboxes", async () => {
    const m = await memberWith(app, admin.orgId, ["agents:view"]);
    const id = await idOf(m.email);
    const saved = await postMany(admin, `/dashboard/settings/members/${id}/roles`, [
      ["roles", "inbox:view"],
      ["roles", "agents:manage"],
    ]);
    expect(saved.status).toBe(303);
    expect(await rolesOf(admin.orgId, id)).toEqual(["agents:manage", "inbox:view"]);
    const none = await postMany(admin, `/dashboard/settings/members/${id}/roles`, [["go", "1"]]);
    expect(none.status).toBe(400);
    expect(await none.text()).toContain(`id="f-roles-${id}-error"`);

    const me = await idOf(admin.email);
    const refused = await postMany(admin, `/dashboard/settings/members/${me}/roles`, [["roles", "agents:view"]]);
    expect(refused.status).toBe(409);
    const text = await refused.text();
    expect(text).toContain(`<details open><summary>Edit roles of ${admin.email}</summary>`);
    expect(text).toContain(`id="f-roles-${me}-error"`);
    expect(text).toContain("You are the only member holding both org:manage and members:manage");
    const leave = await post(app, admin, `/dashboard/settings/members/${me}/remove`, { go: "1" });
    expect(leave.status).toBe(303);
    expect(await (await get(app, withFlash(admin, leave), "/dashboard/settings")).text()).toContain("You are the only member holding both");
    expect(await rolesOf(admin.orgId, me)).toContain("members:manage");
  });

  test("remove: the member's session loses the org at once; another org's member is a 404 page", async () => {
    const m = await memberWith(app, admin.orgId, ["agents:view"]);
    const id = await idOf(m.email);
    expect((await get(app, m, "/dashboard")).status).toBe(200);
    expect((await post(app, other, `/dashboard/settings/members/${id}/remove`, { go: "1" })).status).toBe(404);
    const res = await post(app, admin, `/dashboard/settings/members/${id}/remove`, { go: "1" });
    expect(res.status).toBe(303);
    expect(await rolesOf(admin.orgId, id)).toBeUndefined();
    const after = await get(app, m, "/dashboard");
    expect(after.status).toBe(303); // signed out: no org was left to them
    expect(after.headers.get("location")).toStartWith("/signin");
  });

  test("members:manage alone opens the page with the members section only; agents-only gets 403", async () => {
    const people = await memberWith(app, admin.orgId, ["members:manage", "agents:view"]);
    const res = await get(app, people, "/dashboard/settings");
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain("Invite a member");
    // The nav links the page for this role too.
    expect(body).toContain('href="/dashboard/settings"');
    expect(body).not.toContain("Widget keys");
    expect(body).not.toContain(admin.widgetKey!);
    expect(body).not.toContain("Identity verification");
    // Its own form errors re-render the same restricted page.
    const bad = await postMany(people, "/dashboard/settings/members/invite", [["invite_email", ""]]);
    expect(bad.status).toBe(400);
    expect(await bad.text()).not.toContain(admin.widgetKey!);
    // It cannot hand out a role it lacks.
    const escalate = await postMany(people, "/dashboard/settings/members/invite", [
      ["invite_email", "friend@example.com"],
      ["invite_roles", "org:manage"],
    ]);
    expect(escalate.status).toBe(403);
    expect(await escalate.text()).toContain('id="f-invite_roles-error"');
    // org:manage alone sees the members read only.
    const orgOnly = await memberWith(app, admin.orgId, ["org:manage"]);
    const orgPage = await (await get(app, orgOnly, "/dashboard/settings")).text();
    expect(orgPage).toContain("Members and roles");
    expect(orgPage).not.toContain("Invite a member");
    expect((await post(app, orgOnly, "/dashboard/settings/members/invite", { invite_email: "x@example.com", invite_roles: "agents:view" })).status).toBe(403);
    const agentsOnly = await memberWith(app, admin.orgId, ["agents:manage"]);
    expect((await get(app, agentsOnly, "/dashboard/settings")).status).toBe(403);
    expect(await (await get(app, agentsOnly, "/dashboard")).text()).not.toContain('href="/dashboard/settings"');
    expect((await post(app, agentsOnly, "/dashboard/settings/members/invite", { invite_email: "x@example.com", invite_roles: "agents:view" })).status).toBe(
      403,
    );
  });

  test("the members list paginates by 20; the invitations list too", async () => {
    const org = await adminOf(app, "Crowd");
    for (let i = 0; i < 20; i++) await memberWith(app, org.orgId, ["agents:view"]);
    const first = await (await get(app, org, "/dashboard/settings")).text();
    expect(first).toContain('href="/dashboard/settings?members_page=2" rel="next"');
    const second = await (await get(app, org, "/dashboard/settings?members_page=2")).text();
    expect(second).toContain("Page 2");
    expect(second).not.toContain("members_page=3");
    for (let i = 0; i < 21; i++, app.clock.advance(1000))
      expect(
        (
          await postMany(org, "/dashboard/settings/members/invite", [
            ["invite_email", `crowd-${i}@example.com`],
            ["invite_roles", "agents:view"],
          ])
        ).status,
      ).toBe(201);
    const invites = await (await get(app, org, "/dashboard/settings")).text();
    expect(invites).toContain('href="/dashboard/settings?invites_page=2" rel="next"');
    const lastPage = await (await get(app, org, "/dashboard/settings?invites_page=2")).text();
    expect(lastPage).toContain("crowd-0@example.com"); // oldest last
  }, 60_000);
});
