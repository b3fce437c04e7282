// Dashboard custom actions through the app with a session cookie: roles, create with field errors
// (header values never echoed), the action offered to agents, edit (every field the API may change,
// headers write-only: added, replaced, removed or kept unseen; a new URL through the outbound guard;
// limits at their boundary), delete, and another org's action 404.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { listActivity } from "../../src/activity/log.ts";
import { customActions } from "../../src/db/schema/index.ts";
import { CUSTOM_ACTION_LIMITS, createCustomAction, listCustomActions } from "../../src/integrations/custom-actions.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, memberWith, post, withFlash } from "./helpers.ts";

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

const good = {
  slug: "refund_order",
  method: "POST",
  url: "https://api.shop.example/refunds",
  description: "Refunds an order by its number.",
  headers: "Authorization: Bearer sk-very-secret",
  input_schema: '{"type":"object","properties":{"order":{"type":"string"}},"required":["order"]}',
  destructive: "on",
};

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
    const res = await post(app, admin, "/dashboard/custom-actions", {
      ...good,
      slug: "Bad Slug",
      input_schema: "{nope",
      headers: "Authorization: Bearer sk-very-secret\nno colon here",
    });
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

describe("custom action edit page", () => {
  const secret = "sk-edit-secret-value";
  const stored = async (id: string) => {
    const [row] = await app.deps.db.select().from(customActions).where(eq(customActions.id, id));
    return JSON.parse(app.deps.cipher.decrypt(row!.headers, `custom_actions.headers:${id}`)) as Record<string, string>;
  };
  async function action(slug: string, headers: Record<string, string> = { Authorization: `Bearer ${secret}`, "X-Tenant": "acme" }) {
    return createCustomAction(app.deps, admin.orgId, {
      slug,
      description: "Looks an order up.",
      method: "GET",
      url: "https://api.shop.example/orders",
      headers,
      destructive: false,
    });
  }
  const form = (a: { description: string; method: string; url: string }, extra: Record<string, string> = {}) => ({
    description: a.description,
    method: a.method,
    url: a.url,
    input_schema: "",
    headers: "",
    ...extra,
  });

  test("shows every field the API may change, the stored header names with “value set”, never a value; the list links to it", async () => {
    const a = await action("order_lookup");
    expect(await (await get(app, admin, "/dashboard/custom-actions")).text()).toContain(`href="/dashboard/custom-actions/${a.id}"`);
    const res = await get(app, admin, `/dashboard/custom-actions/${a.id}`);
    expect(res.status).toBe(200);
    const body = await res.text();
    for (const name of ["method", "url", "description", "input_schema", "destructive", "headers"]) expect(body).toContain(`id="f-${name}"`);
    expect(body).toContain("Remove <code>Authorization</code>");
    expect(body).toContain("Remove <code>X-Tenant</code>");
    expect(body).toContain("value set");
    expect(body).not.toContain(secret);
    expect(body).not.toContain("acme");
    expect(body).toContain('<option value="GET" selected>');
    expect(body).toContain("custom.order_lookup");
  });

  test("save: every field changes; a header replaced whatever its case, one added, a ticked one removed, the rest kept; logged without values", async () => {
    const a = await action("order_update");
    const res = await post(app, admin, `/dashboard/custom-actions/${a.id}`, {
      ...form(a),
      description: "Updates an order.",
      method: "PATCH",
      url: "https://api.shop.example/orders/update",
      input_schema: '{"type":"object","properties":{"order":{"type":"string"}}}',
      destructive: "on",
      headers: "authorization: Bearer sk-new-secret\nX-Trace: on",
      remove_header: "X-Tenant",
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/dashboard/custom-actions/${a.id}`);
    const [saved] = (await listCustomActions(app.deps, admin.orgId)).filter((x) => x.id === a.id);
    expect(saved).toMatchObject({
      description: "Updates an order.",
      method: "PATCH",
      url: "https://api.shop.example/orders/update",
      destructive: true,
      input_schema: { type: "object", properties: { order: { type: "string" } } },
    });
    expect(await stored(a.id)).toEqual({ authorization: "Bearer sk-new-secret", "X-Trace": "on" });
    const page = await (await get(app, withFlash(admin, res), `/dashboard/custom-actions/${a.id}`)).text();
    expect(page).toContain("Action custom.order_update saved.");
    expect(page).not.toContain("sk-new-secret");
    const [entry] = (await listActivity(app.deps, admin.orgId, { action: "custom_action.updated", objectId: a.id })).items;
    expect(entry).toMatchObject({ summary: { slug: "order_update", host: "api.shop.example", header_names: ["authorization", "X-Trace"] } });
    expect(JSON.stringify(entry)).not.toContain("sk-new-secret");
  });

  test("blank headers and nothing ticked keep the stored headers as they are; an empty schema is any object", async () => {
    const a = await action("order_keep");
    const res = await post(app, admin, `/dashboard/custom-actions/${a.id}`, form(a, { description: "Still looks an order up." }));
    expect(res.status).toBe(303);
    expect(await stored(a.id)).toEqual({ Authorization: `Bearer ${secret}`, "X-Tenant": "acme" });
    const [saved] = (await listCustomActions(app.deps, admin.orgId)).filter((x) => x.id === a.id);
    expect(saved).toMatchObject({ description: "Still looks an order up.", destructive: false, input_schema: { type: "object" } });
  });

  test("the tool the agents see changes at once (the org's tool snapshot is dropped)", async () => {
    const a = await action("order_status");
    const describe = async () =>
      (await app.deps.tools.list({ actor: { kind: "system", name: "test" }, orgId: admin.orgId, channel: "chat" })).find(
        (t) => t.name === "custom.order_status",
      )?.description;
    expect(await describe()).toBe("Looks an order up.");
    expect((await post(app, admin, `/dashboard/custom-actions/${a.id}`, form(a, { description: "Tells where an order is." }))).status).toBe(303);
    expect(await describe()).toBe("Tells where an order is.");
  });

  test("field errors next to the fields, values kept, header values never echoed, nothing saved", async () => {
    const a = await action("order_errors");
    const res = await post(app, admin, `/dashboard/custom-actions/${a.id}`, {
      ...form(a),
      description: "  ",
      method: "TRACE",
      input_schema: "{nope",
      headers: "X-New: sk-typed-secret\nno colon here",
    });
    expect(res.status).toBe(400);
    const body = await res.text();
    for (const name of ["description", "method", "input_schema", "headers"]) expect(body).toContain(`id="f-${name}-error"`);
    expect(body).not.toContain("sk-typed-secret");
    expect(body).toContain("{nope");
    // The service's own checks: a header it sets itself, a schema that is not an object schema.
    const reserved = await post(app, admin, `/dashboard/custom-actions/${a.id}`, form(a, { headers: "Host: evil.example" }));
    expect(reserved.status).toBe(400);
    const reservedBody = await reserved.text();
    expect(reservedBody).toContain('id="f-headers-error"');
    expect(reservedBody).toContain("Host is set by the service");
    const array = await post(app, admin, `/dashboard/custom-actions/${a.id}`, form(a, { input_schema: '{"type":"array"}' }));
    expect(array.status).toBe(400);
    expect(await array.text()).toContain('id="f-input_schema-error"');
    expect((await stored(a.id))["X-New"]).toBeUndefined();
    expect((await listCustomActions(app.deps, admin.orgId)).find((x) => x.id === a.id)!.description).toBe("Looks an order up.");
  });

  test("limits at their boundary: description 1000 passes, 1001 fails; 20 headers in all pass, 21 fail", async () => {
    const a = await action("order_limits", { Authorization: "Bearer x" });
    expect((await post(app, admin, `/dashboard/custom-actions/${a.id}`, form(a, { description: "d".repeat(1000) }))).status).toBe(303);
    const long = await post(app, admin, `/dashboard/custom-actions/${a.id}`, form(a, { description: "d".repeat(1001) }));
    expect(long.status).toBe(400);
    expect(await long.text()).toContain("At most 1000 characters.");
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `X-H${i}: v`).join("\n");
    // One stored header and 19 more: 20 in all.
    expect(
      (await post(app, admin, `/dashboard/custom-actions/${a.id}`, form(a, { description: "ok", headers: lines(CUSTOM_ACTION_LIMITS.headers - 1) }))).status,
    ).toBe(303);
    expect(Object.keys(await stored(a.id))).toHaveLength(CUSTOM_ACTION_LIMITS.headers);
    const over = await post(app, admin, `/dashboard/custom-actions/${a.id}`, form(a, { description: "ok", headers: "X-One-More: v" }));
    expect(over.status).toBe(400);
    const body = await over.text();
    expect(body).toContain('id="f-headers-error"');
    expect(body).toContain(`At most ${CUSTOM_ACTION_LIMITS.headers} headers`);
    // Replacing one in place stays at 20.
    expect((await post(app, admin, `/dashboard/custom-actions/${a.id}`, form(a, { description: "ok", headers: "x-h0: w" }))).status).toBe(303);
    expect(Object.keys(await stored(a.id))).toHaveLength(CUSTOM_ACTION_LIMITS.headers);
  });

  test("a new URL passes the outbound guard as at creation: private addresses and plain http are field errors", async () => {
    const a = await action("order_moves");
    app.hosts.set("internal.shop.example", ["10.0.0.5"]);
    for (const url of ["https://10.1.2.3/orders", "https://internal.shop.example/orders", "http://api.shop.example/orders", "https://169.254.169.254/latest"]) {
      const res = await post(app, admin, `/dashboard/custom-actions/${a.id}`, form(a, { url }));
      expect(res.status, url).toBe(400);
      expect(await res.text()).toContain('id="f-url-error"');
    }
    expect((await listCustomActions(app.deps, admin.orgId)).find((x) => x.id === a.id)!.url).toBe("https://api.shop.example/orders");
    expect((await post(app, admin, `/dashboard/custom-actions/${a.id}`, form(a, { url: "https://api.shop.example/v2/orders" }))).status).toBe(303);
    expect((await listCustomActions(app.deps, admin.orgId)).find((x) => x.id === a.id)!.url).toBe("https://api.shop.example/v2/orders");
  });

  test("roles and the tenant boundary: a viewer reads without a form to save; another org's admin gets 404 for the id", async () => {
    const a = await action("order_tenant");
    const viewer = await memberWith(app, admin.orgId, ["integrations:view"]);
    const view = await get(app, viewer, `/dashboard/custom-actions/${a.id}`);
    expect(view.status).toBe(200);
    const body = await view.text();
    expect(body).not.toContain("Save changes");
    expect(body).not.toContain(secret);
    expect((await post(app, viewer, `/dashboard/custom-actions/${a.id}`, form(a, { description: "viewer" }))).status).toBe(403);
    expect((await get(app, other, `/dashboard/custom-actions/${a.id}`)).status).toBe(404);
    const hijack = await post(app, other, `/dashboard/custom-actions/${a.id}`, form(a, { description: "pwned", headers: "X-Evil: 1" }));
    expect(hijack.status).toBe(404);
    expect(await hijack.text()).not.toContain(secret);
    for (const id of ["not-a-uuid", crypto.randomUUID()]) expect((await get(app, admin, `/dashboard/custom-actions/${id}`)).status).toBe(404);
    const after = (await listCustomActions(app.deps, admin.orgId)).find((x) => x.id === a.id)!;
    expect(after.description).toBe("Looks an order up.");
    expect(await stored(a.id)).toEqual({ Authorization: `Bearer ${secret}`, "X-Tenant": "acme" });
    // A deleted action is gone from its page too.
    expect((await post(app, admin, `/dashboard/custom-actions/${a.id}/delete`, { go: "1" })).status).toBe(303);
    expect((await get(app, admin, `/dashboard/custom-actions/${a.id}`)).status).toBe(404);
  });
});
