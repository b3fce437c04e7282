// Dashboard custom actions through the app with a session cookie: roles, create with field errors
// (header values never echoed), the action offered to agents, delete, and another org's action 404.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listCustomActions } from "../../src/integrations/custom-actions.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, memberWith, post } from "./helpers.ts";

let app: TestApp;
let admin: Member;
let other: Member;
beforeAll(async () => {
  app = await createTestApp();
  app.hosts.set("api.shop.example", ["93.184.216.34"]);
  admin = await adminOf(app, "Actions Org");
  other = await adminOf(app, "Other Actions Org");
});
afterAll(() => app.close());

const good = { slug: "refund_order", method: "POST", url: "https://api.shop.example/refunds", description: "Refunds an order by its number.", headers: "Authorization: Bearer sk-very-secret", input_schema: '{"type":"object","properties":{"order":{"type":"string"}},"required":["order"]}', destructive: "on" };

describe("custom actions page", () => {
  test("roles: integrations:view reads; others 403", async () => {
    const viewer = await memberWith(app, admin.orgId, ["integrations:view"]);
    const res = await get(app, viewer, "/dashboard/custom-actions");
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain("New custom action");
    expect((await post(app, viewer, "/dashboard/custom-actions", good)).status).toBe(403);
    expect((await get(app, await memberWith(app, admin.orgId, ["agents:view"]), "/dashboard/custom-actions")).status).toBe(403);
  });

  test("field errors: bad slug, bad JSON, bad header line; the header values not echoed", async () => {
    const res = await post(app, admin, "/dashboard/custom-actions", { ...good, slug: "Bad Slug", input_schema: "{nope", headers: "Authorization: Bearer sk-very-secret\nno colon here" });
    expect(res.status).toBe(400);
    const body = await res.text();
    for (const name of ["slug", "input_schema", "headers"]) expect(body).toContain(`id="f-${name}-error"`);
    expect(body).not.toContain("sk-very-secret");
    expect(body).toContain("Refunds an order by its number.");
  });

  test("create: listed, flagged destructive, offered in the agent's actions; delete", async () => {
    const res = await post(app, admin, "/dashboard/custom-actions", good);
    expect(res.status).toBe(303);
    const page = await (await get(app, admin, "/dashboard/custom-actions")).text();
    expect(page).toContain("custom.refund_order");
    expect(page).toContain("destructive");
    expect(page).not.toContain("sk-very-secret");
    const actions = await (await get(app, admin, `/dashboard/agents/${admin.agentId}/actions?source=custom`)).text();
    expect(actions).toContain("custom.refund_order");
    expect(actions).toContain("custom action");
    const again = await post(app, admin, "/dashboard/custom-actions", good);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain('id="f-slug-error"');
    const [action] = await listCustomActions(app.deps, admin.orgId);
    expect((await post(app, other, `/dashboard/custom-actions/${action!.id}/delete`, { go: "1" })).status).toBe(404);
    expect((await post(app, admin, `/dashboard/custom-actions/${action!.id}/delete`, { go: "1" })).status).toBe(303);
    expect(await listCustomActions(app.deps, admin.orgId)).toHaveLength(0);
  });
});
