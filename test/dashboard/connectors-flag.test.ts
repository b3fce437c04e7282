// The connectors page of an org whose mcp_external_servers flag is off says how to turn it on: the
// exact command for the operator (with this org's id) to every member, and a button for a member
// who may change the org's settings (org:manage), recorded in the activity log.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { listActivity } from "../../src/activity/log.ts";
import { flagEnabled } from "../../src/tenancy/flags.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, memberWith, post, withFlash } from "./helpers.ts";

let app: TestApp;
let admin: Member;
let integrator: Member;

beforeAll(async () => {
  app = await createTestApp();
  admin = await adminOf(app);
  integrator = await memberWith(app, admin.orgId, ["integrations:manage", "integrations:view"]);
}, 30_000);
afterAll(() => app.close());

const command = (orgId: string) => `npm run --silent cli -- --via-server org flag --org ${orgId} --name mcp_external_servers --on`;

test("every member sees the operator's exact command; only an org admin gets the button", async () => {
  expect(await flagEnabled(app.deps, admin.orgId, "mcp_external_servers")).toBe(false);
  const asAdmin = await (await get(app, admin, "/dashboard/connectors")).text();
  expect(asAdmin).toContain(command(admin.orgId));
  expect(asAdmin).toContain('action="/dashboard/connectors/enable"');
  const asIntegrator = await (await get(app, integrator, "/dashboard/connectors")).text();
  expect(asIntegrator).toContain(command(admin.orgId));
  expect(asIntegrator).not.toContain('action="/dashboard/connectors/enable"');
  expect(asIntegrator).toContain("An organisation admin (<code>org:manage</code>) can turn them on here.");
});

test("a member without org:manage cannot turn the flag on", async () => {
  const res = await post(app, integrator, "/dashboard/connectors/enable", { go: "1" });
  expect(res.status).toBe(403);
  expect(await flagEnabled(app.deps, admin.orgId, "mcp_external_servers")).toBe(false);
});

test("an org admin turns it on from the page: the flag is on, the change is in the activity log, the page offers to connect", async () => {
  const res = await post(app, admin, "/dashboard/connectors/enable", { go: "1" });
  expect(res.status).toBe(303);
  expect(res.headers.get("location")).toBe("/dashboard/connectors");
  expect(await flagEnabled(app.deps, admin.orgId, "mcp_external_servers")).toBe(true);
  const { items } = await listActivity(app.deps, admin.orgId, { action: "feature_flag.changed" });
  expect(items).toHaveLength(1);
  expect(items[0]).toMatchObject({
    object_id: "mcp_external_servers",
    summary: { before: false, after: true },
    actor: { kind: "member", member: { email: admin.email } },
  });
  const page = await (await get(app, withFlash(admin, res), "/dashboard/connectors")).text();
  expect(page).toContain("Connectors are on");
  expect(page).toContain("Connect a server");
  expect(page).not.toContain(command(admin.orgId));
});

test("a cross-site post cannot turn it on", async () => {
  const other = await adminOf(app);
  const res = await app.request("/dashboard/connectors/enable", { form: { go: "1" }, headers: { cookie: other.cookie, origin: "https://evil.example" } });
  expect(res.status).toBe(403);
  expect(await flagEnabled(app.deps, other.orgId, "mcp_external_servers")).toBe(false);
});
