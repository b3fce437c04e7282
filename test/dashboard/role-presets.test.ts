// Role presets on the members forms, without JavaScript: a preset (Admin, Agent, Viewer) gives its
// roles whatever boxes are ticked; "Custom" keeps the boxes as ticked; an unknown preset is custom;
// a preset holding a role the inviter lacks is refused next to the roles, as a ticked box would be.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { ROLE_PRESETS, ROLES } from "../../src/auth/roles.ts";
import { memberInvitations, members, memberships } from "../../src/db/schema/index.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, memberWith } from "./helpers.ts";

let app: TestApp;
let admin: Member;
beforeAll(async () => {
  app = await createTestApp();
  admin = await adminOf(app, "Presets Org");
});
afterAll(() => app.close());

function postMany(who: Member, path: string, pairs: [string, string][]) {
  return app.request(path, {
    method: "POST",
    body: new URLSearchParams(pairs).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: who.cookie, origin: app.deps.config.baseUrl },
  });
}
const invitedRoles = async (email: string) =>
  (await app.deps.db.select({ roles: memberInvitations.roles }).from(memberInvitations).where(eq(memberInvitations.email, email)))[0]?.roles;

describe("role presets", () => {
  test("the forms offer Admin, Agent and Viewer beside the twelve boxes", async () => {
    const page = await (await get(app, admin, "/dashboard/settings")).text();
    for (const p of Object.values(ROLE_PRESETS)) expect(page).toContain(`>${p.label} (`);
    expect(page).toContain('name="invite_preset" value="agent"');
    expect(page.match(/name="invite_roles"/g)).toHaveLength(ROLES.length);
  });

  test("a preset gives its roles; custom keeps the boxes; an unknown preset is custom", async () => {
    expect(
      (
        await postMany(admin, "/dashboard/settings/members/invite", [
          ["invite_email", "agent@presets.example"],
          ["invite_preset", "agent"],
          ["invite_roles", "org:manage"],
        ])
      ).status,
    ).toBe(201);
    expect([...(await invitedRoles("agent@presets.example"))!].sort()).toEqual([...ROLE_PRESETS.agent.roles].sort());
    expect(
      (
        await postMany(admin, "/dashboard/settings/members/invite", [
          ["invite_email", "viewer@presets.example"],
          ["invite_preset", "viewer"],
        ])
      ).status,
    ).toBe(201);
    expect((await invitedRoles("viewer@presets.example"))!.every((r) => r.endsWith(":view"))).toBe(true);
    expect(
      (
        await postMany(admin, "/dashboard/settings/members/invite", [
          ["invite_email", "custom@presets.example"],
          ["invite_preset", ""],
          ["invite_roles", "inbox:view"],
        ])
      ).status,
    ).toBe(201);
    expect(await invitedRoles("custom@presets.example")).toEqual(["inbox:view"]);
    expect(
      (
        await postMany(admin, "/dashboard/settings/members/invite", [
          ["invite_email", "odd@presets.example"],
          ["invite_preset", "__proto__"],
          ["invite_roles", "agents:view"],
        ])
      ).status,
    ).toBe(201);
    expect(await invitedRoles("odd@presets.example")).toEqual(["agents:view"]);
  });

  test("a member's roles from a preset; a preset beyond the changer's own roles is refused", async () => {
    const someone = await memberWith(app, admin.orgId, ["inbox:view"]);
    const [row] = await app.deps.db.select({ id: members.id }).from(members).where(eq(members.email, someone.email));
    const res = await postMany(admin, `/dashboard/settings/members/${row!.id}/roles`, [["preset", "agent"]]);
    expect(res.status).toBe(303);
    const [m] = await app.deps.db
      .select({ roles: memberships.roles })
      .from(memberships)
      .where(and(eq(memberships.orgId, admin.orgId), eq(memberships.memberId, row!.id)));
    expect([...m!.roles].sort()).toEqual([...ROLE_PRESETS.agent.roles].sort());

    const limited = await memberWith(app, admin.orgId, ["members:manage", "inbox:view"]);
    const refused = await postMany(limited, "/dashboard/settings/members/invite", [
      ["invite_email", "too-much@presets.example"],
      ["invite_preset", "admin"],
    ]);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('id="f-invite_roles-error"');
    expect(await invitedRoles("too-much@presets.example")).toBeUndefined();
  });
});

describe("the settings nav", () => {
  test("every settings page carries it; widget, identity, members and business hours have pages of their own", async () => {
    for (const path of [
      "/dashboard/settings",
      "/dashboard/settings/widget",
      "/dashboard/settings/identity",
      "/dashboard/settings/members",
      "/dashboard/settings/hours",
      "/dashboard/settings/email",
    ]) {
      const page = await (await get(app, admin, path)).text();
      expect(page).toContain('aria-label="Settings sections"');
      for (const label of ["Widget", "Identity", "Members", "Email", "Hand-off", "Saved replies", "Business hours"]) expect(page).toContain(`>${label}</a>`);
    }
    const members = await (await get(app, admin, "/dashboard/settings/members")).text();
    expect(members).toContain('href="/dashboard/settings/members" aria-current="page"');
    expect(members).toContain("Invite a member");
    expect(members).not.toContain("Widget keys and install snippet");
    const widget = await (await get(app, admin, "/dashboard/settings/widget")).text();
    expect(widget).toContain("Widget keys and install snippet");
    expect(widget).toContain("Allowed origins");
    expect(widget).not.toContain("Identity verification</h2>");
    const identity = await (await get(app, admin, "/dashboard/settings/identity")).text();
    expect(identity).toContain("Identity verification</h2>");
    expect(identity).not.toContain("Widget keys and install snippet");
    const reader = await memberWith(app, admin.orgId, ["inbox:view"]);
    expect((await get(app, reader, "/dashboard/settings/widget")).status).toBe(403);
    expect((await get(app, reader, "/dashboard/settings/members")).status).toBe(403);
  });
});
