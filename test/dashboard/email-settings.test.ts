// The dashboard's email settings page (README "Email channel"): the org's support alias (org:manage
// edits, others read) and each member's own notification choice, through the same functions as
// /api/email/settings and /api/email/notifications.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mailSettings } from "../../src/mail-in/alias.ts";
import { notifyMode } from "../../src/inbox/member-notices.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, memberWith, post, type Member } from "./helpers.ts";
import { INBOUND_DOMAIN, emailEnv } from "../support/email.ts";

let app: TestApp;
let admin: Member;
let viewer: Member;

beforeAll(async () => {
  app = await createTestApp(emailEnv("smtp://127.0.0.1:9"));
  admin = await adminOf(app);
  viewer = await memberWith(app, admin.orgId, ["inbox:view"]);
}, 60_000);
afterAll(() => app.close());

const PATH = "/dashboard/settings/email";

describe("email settings page", () => {
  test("an admin sets the alias; a bad one is re-shown with its error; a viewer reads it and cannot change it", async () => {
    const page = await get(app, admin, PATH);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="support_alias"');
    const saved = await post(app, admin, `${PATH}/alias`, { support_alias: "Care" });
    expect(saved.status).toBe(303);
    expect((await mailSettings(app.deps, admin.orgId)).support_address).toBe(`care@${INBOUND_DOMAIN}`);
    const bad = await post(app, admin, `${PATH}/alias`, { support_alias: "postmaster" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("reserved");
    const seen = await get(app, viewer, PATH);
    expect(seen.status).toBe(200);
    const text = await seen.text();
    expect(text).toContain(`care@${INBOUND_DOMAIN}`);
    expect(text).not.toContain('name="support_alias"');
    expect((await post(app, viewer, `${PATH}/alias`, { support_alias: "mine" })).status).toBe(403);
    expect((await mailSettings(app.deps, admin.orgId)).support_alias).toBe("care");
  });

  test("each member chooses their own notifications", async () => {
    expect((await post(app, viewer, `${PATH}/notifications`, { mode: "notify_only" })).status).toBe(303);
    expect((await post(app, viewer, `${PATH}/notifications`, { mode: "loud" })).status).toBe(400);
    const [mine, theirs] = await Promise.all([
      notifyMode(app.deps, admin.orgId, await memberIdOf(viewer)),
      notifyMode(app.deps, admin.orgId, await memberIdOf(admin)),
    ]);
    expect([mine, theirs]).toEqual(["notify_only", "full"]);
  });
});

async function memberIdOf(who: Member): Promise<string> {
  const me = (await (await app.request("/api/me", { headers: { cookie: who.cookie } })).json()) as { member?: { id: string }; id?: string };
  return me.member?.id ?? me.id!;
}
