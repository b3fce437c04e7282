// The dashboard shell: sign-in redirect, nav by role, 403 for a page the member may not use,
// the org switcher, the CSP that allows only our own script, and the static assets.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, memberWith, post } from "./helpers.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

describe("dashboard shell", () => {
  test("not signed in: redirected to sign-in with a way back", async () => {
    const res = await app.request("/dashboard?tab=x");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/signin?return_to=${encodeURIComponent("/dashboard?tab=x")}`);
  });

  test("an admin sees every section; the CSP allows only our own script", async () => {
    const admin = await adminOf(app, "Shell <Org>");
    const res = await get(app, admin, "/dashboard");
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    const body = await res.text();
    expect(body).toContain("Shell &#60;Org&#62;");
    expect(body).not.toContain("Shell <Org>");
    // The setup checklist (setup_status) with a link to where each item is done.
    expect(body).toContain('id="setup-h"');
    expect(body).toContain('href="/dashboard/knowledge">Published documents</a>');
    for (const href of [
      "/dashboard/agents",
      "/dashboard/knowledge",
      "/dashboard/connectors",
      "/dashboard/settings",
      "/dashboard/inbox",
      "/dashboard/campaigns",
    ])
      expect(body).toContain(`href="${href}"`);
  });

  test("the overview names the member's roles in words, never their codes", async () => {
    const admin = await adminOf(app);
    const own = await (await get(app, admin, "/dashboard")).text();
    expect(own).toContain("Your roles: Admin (every role)");
    expect(own).not.toMatch(/(org|members|agents|knowledge|inbox|automation|integrations):(manage|view)/);
    const agent = await memberWith(app, admin.orgId, ["inbox:manage", "knowledge:view", "agents:view", "automation:view"]);
    expect(await (await get(app, agent, "/dashboard")).text()).toContain(
      "Your roles: Agent (See agents, Read the knowledge base, Answer tickets and edit customers, See campaigns)",
    );
    const mixed = await memberWith(app, admin.orgId, ["knowledge:view", "knowledge:manage", "inbox:view"]);
    const text = await (await get(app, mixed, "/dashboard")).text();
    expect(text).toContain("Your roles: Edit the knowledge base, Read the inbox");
    expect(text).not.toMatch(/(knowledge|inbox):(manage|view)/);
    const none = await memberWith(app, admin.orgId, []);
    expect(await (await get(app, none, "/dashboard")).text()).toContain("Your roles: none yet");
  });

  test("a member with one role sees only its section in the nav", async () => {
    const admin = await adminOf(app);
    const viewer = await memberWith(app, admin.orgId, ["knowledge:view"]);
    const body = await (await get(app, viewer, "/dashboard")).text();
    expect(body).toContain('href="/dashboard/knowledge"');
    expect(body).not.toContain('href="/dashboard/agents"');
    expect(body).not.toContain('href="/dashboard/settings"');
    expect(body).not.toContain('id="setup-h"');
  });

  test("the org switcher only switches to the member's own orgs", async () => {
    const a = await adminOf(app, "First");
    const b = await adminOf(app, "Second");
    const res = await post(app, a, "/dashboard/org", { org_id: b.orgId });
    expect(res.status).toBe(303);
    expect(res.headers.getSetCookie().some((c) => c.startsWith("svc_org="))).toBe(false);
  });

  test("a member of two orgs switches between them; pages then act on the chosen one", async () => {
    const { memberships, members } = await import("../../src/db/schema/index.ts");
    const { eq } = await import("drizzle-orm");
    const a = await adminOf(app, "Alpha Org");
    const b = await adminOf(app, "Beta Org");
    const [me] = await app.deps.db.select({ id: members.id }).from(members).where(eq(members.email, a.email));
    await app.deps.db.insert(memberships).values({ orgId: b.orgId, memberId: me!.id, roles: ["knowledge:view"] });
    const before = await (await get(app, a, "/dashboard")).text();
    expect(before).toContain('id="org-switch"');
    expect(before).toContain("<h1>Alpha Org</h1>");
    const res = await post(app, a, "/dashboard/org", { org_id: b.orgId });
    expect(res.status).toBe(303);
    const orgCookie = res.headers
      .getSetCookie()
      .find((c) => c.startsWith("svc_org="))!
      .split(";")[0]!;
    const switched = { ...a, cookie: `${a.cookie}; ${orgCookie}` };
    expect(await (await get(app, switched, "/dashboard")).text()).toContain("<h1>Beta Org</h1>");
    // In Beta the member holds knowledge:view only.
    expect((await get(app, switched, "/dashboard/agents")).status).toBe(403);
    expect((await get(app, switched, "/dashboard/knowledge")).status).toBe(200);
  });

  test("a cross-site post is refused (cookie-authenticated change from another origin)", async () => {
    const a = await adminOf(app);
    const res = await app.request("/dashboard/org", { form: { org_id: a.orgId }, headers: { cookie: a.cookie, origin: "https://evil.example" } });
    expect(res.status).toBe(403);
  });

  test("assets are served with their types", async () => {
    const css = await app.request("/assets/dashboard.css");
    expect(css.headers.get("content-type")).toContain("text/css");
    const js = await app.request("/assets/dashboard.js");
    expect(js.headers.get("content-type")).toContain("javascript");
    expect(await js.text()).toContain("data-busy");
  });
});
