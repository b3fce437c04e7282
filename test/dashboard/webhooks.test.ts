// Dashboard webhooks (README "Webhooks") through the app with a session cookie:
// org:manage only; create with field errors; the signing secret shown once (no-store) and stored
// encrypted; the endpoint's page with a test delivery, rotate, delete; another org's endpoint 404.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { webhookEndpoints } from "../../src/db/schema/index.ts";
import { listEndpoints } from "../../src/webhooks/service.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, memberWith, post } from "./helpers.ts";

let app: TestApp;
let admin: Member;
let other: Member;
beforeAll(async () => {
  app = await createTestApp();
  app.hosts.set("hooks.shop.example", ["93.184.216.34"]);
  app.hosts.set("hooks.internal.example", ["10.0.0.8"]);
  admin = await adminOf(app, "Hooks Org");
  other = await adminOf(app, "Other Hooks Org");
}, 30_000);
afterAll(() => app.close());

const form = (fields: Record<string, string>, events: string[]) => {
  const body = new URLSearchParams(fields);
  for (const e of events) body.append("events", e);
  return body.toString();
};
const postRaw = (who: Member, path: string, body: string) =>
  app.request(path, {
    method: "POST",
    body,
    headers: { cookie: who.cookie, origin: app.deps.config.baseUrl, "content-type": "application/x-www-form-urlencoded" },
  });

describe("webhooks page", () => {
  test("org:manage only: other roles get 403, and the nav links it only for admins", async () => {
    const inbox = await memberWith(app, admin.orgId, ["inbox:manage"]);
    expect((await get(app, inbox, "/dashboard/webhooks")).status).toBe(403);
    expect(await (await get(app, inbox, "/dashboard/inbox")).text()).not.toContain('href="/dashboard/webhooks"');
    const res = await get(app, admin, "/dashboard/webhooks");
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("New endpoint");
  });

  test("field errors next to the field: no URL, no event, a URL the guard refuses; nothing created", async () => {
    const res = await postRaw(admin, "/dashboard/webhooks", form({ url: "", description: "CRM" }, []));
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('id="f-url-error"');
    expect(page).toContain("Choose at least one event.");
    const blocked = await postRaw(admin, "/dashboard/webhooks", form({ url: "https://hooks.internal.example/in" }, ["ticket.created"]));
    expect(blocked.status).toBe(400);
    expect(await blocked.text()).toContain('id="f-url-error"');
    expect(await listEndpoints(app.deps, admin.orgId)).toEqual([]);
  });

  test("create shows the secret once (no-store), stores it encrypted; the page tests, rotates and deletes", async () => {
    const res = await postRaw(
      admin,
      "/dashboard/webhooks",
      form({ url: "https://hooks.shop.example/in", description: "CRM sync" }, ["ticket.created", "ticket.updated"]),
    );
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const secret = /value="(whsec_[^"]+)"/.exec(await res.text())![1]!;
    const [row] = await app.deps.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.orgId, admin.orgId));
    expect(row!.secret).not.toContain(secret.slice(6));
    expect(row!.eventTypes).toEqual(["ticket.created", "ticket.updated"]);
    const listed = await (await get(app, admin, "/dashboard/webhooks")).text();
    expect(listed).toContain("https://hooks.shop.example/in");
    expect(listed).not.toContain(secret);

    const test = await post(app, admin, `/dashboard/webhooks/${row!.id}/test`, { go: "1" });
    expect(test.status).toBe(303);
    expect(await (await get(app, admin, `/dashboard/webhooks/${row!.id}`)).text()).toContain("webhook.test");

    const rotated = await post(app, admin, `/dashboard/webhooks/${row!.id}/rotate`, { go: "1" });
    expect(rotated.status).toBe(201);
    const fresh = /value="(whsec_[^"]+)"/.exec(await rotated.text())![1]!;
    expect(fresh).not.toBe(secret);

    expect((await get(app, other, `/dashboard/webhooks/${row!.id}`)).status).toBe(404);
    expect((await post(app, other, `/dashboard/webhooks/${row!.id}/delete`, { go: "1" })).status).toBe(404);
    expect((await post(app, admin, `/dashboard/webhooks/${row!.id}/delete`, { go: "1" })).status).toBe(303);
    expect(await listEndpoints(app.deps, admin.orgId)).toEqual([]);
  });

  test("limits at the boundary: a description of 500 characters passes, 501 is a field error", async () => {
    const at = await postRaw(admin, "/dashboard/webhooks", form({ url: "https://hooks.shop.example/a", description: "d".repeat(500) }, ["ticket.created"]));
    expect(at.status).toBe(201);
    const over = await postRaw(admin, "/dashboard/webhooks", form({ url: "https://hooks.shop.example/b", description: "d".repeat(501) }, ["ticket.created"]));
    expect(over.status).toBe(400);
    expect(await over.text()).toContain('id="f-description-error"');
  });
});
