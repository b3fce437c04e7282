// Dashboard settings through the app with a session cookie: org:manage only; widget keys with
// their install snippet, create and revoke; identity verification switch and rotate (the secret
// shown once, never in a redirect); allowed origins with a field error; grants; members; and
// another org's key or grant answering 404.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { orgLlmView } from "../../src/agents/llm-settings.ts";
import { identityView, listWidgetKeys } from "../../src/orgs/widget-access.ts";
import { allowedOrigins } from "../../src/sdk/settings.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, memberWith, post, withFlash } from "./helpers.ts";

let app: TestApp;
let admin: Member;
let other: Member;
beforeAll(async () => {
  app = await createTestApp();
  admin = await adminOf(app, "Settings Org");
  other = await adminOf(app, "Other Settings Org");
});
afterAll(() => app.close());

describe("settings page", () => {
  test("org:manage only; the snippet carries the live key and the widget script", async () => {
    const agentsOnly = await memberWith(app, admin.orgId, ["agents:manage"]);
    expect((await get(app, agentsOnly, "/dashboard/settings")).status).toBe(403);
    expect((await post(app, agentsOnly, "/dashboard/settings/keys", { label: "x" })).status).toBe(403);
    const res = await get(app, admin, "/dashboard/settings");
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain(`${app.deps.config.baseUrl}/widget.js`);
    expect(body).toContain(`data-key=&#34;${admin.widgetKey}&#34;`);
    expect(body).toContain("Members and roles");
    expect(body).toContain(admin.email);
  });

  test("create and revoke a widget key; a too-long label is a field error", async () => {
    expect((await post(app, admin, "/dashboard/settings/keys", { label: "x".repeat(100) })).status).toBe(303);
    const long = await post(app, admin, "/dashboard/settings/keys", { label: "x".repeat(101) });
    expect(long.status).toBe(400);
    expect(await long.text()).toContain('id="f-label-error"');
    const created = await post(app, admin, "/dashboard/settings/keys", { label: "Marketing <site>" });
    expect(created.status).toBe(303);
    expect(await (await get(app, withFlash(admin, created), "/dashboard/settings")).text()).toContain("Widget key created");
    const key = (await listWidgetKeys(app.deps, admin.orgId)).find((k) => k.label === "Marketing <site>")!;
    expect((await post(app, admin, `/dashboard/settings/keys/${key.id}/revoke`, { go: "1" })).status).toBe(303);
    expect((await listWidgetKeys(app.deps, admin.orgId)).find((k) => k.id === key.id)!.revoked_at).not.toBeNull();
  });

  test("identity verification: switch on, rotate shows the secret in that answer only", async () => {
    expect((await post(app, admin, "/dashboard/settings/identity", { enabled: "on" })).status).toBe(303);
    expect((await identityView(app.deps, admin.orgId)).enabled).toBe(true);
    const rotated = await post(app, admin, "/dashboard/settings/identity/rotate", { go: "1" });
    expect(rotated.status).toBe(200);
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    const body = await rotated.text();
    const secret = /id="new-secret" type="text" readonly value="([A-Za-z0-9_-]{43})"/.exec(body)?.[1];
    expect(secret).toBeDefined();
    expect(await (await get(app, admin, "/dashboard/settings")).text()).not.toContain(secret!);
    expect((await identityView(app.deps, admin.orgId)).has_previous_secret).toBe(true);
    // The page says when the previous secret stops verifying: 24 hours after the rotation.
    const until = new Date(app.clock.now.getTime() + 24 * 3600_000).toISOString().slice(0, 16).replace("T", " ");
    expect(await (await get(app, admin, "/dashboard/settings")).text()).toContain(`The previous secret also verifies until ${until} UTC, then it is refused.`);
    expect((await post(app, admin, "/dashboard/settings/identity/clear-previous", { go: "1" })).status).toBe(303);
    expect((await identityView(app.deps, admin.orgId)).has_previous_secret).toBe(false);
    expect(await (await get(app, admin, "/dashboard/settings")).text()).not.toContain("The previous secret also verifies");
  });

  test("allowed origins: a path is a field error naming the line, the text kept; a good list saves", async () => {
    const bad = await post(app, admin, "/dashboard/settings/origins", { origins: "https://shop.example\nhttps://x.example/path" });
    expect(bad.status).toBe(400);
    const body = await bad.text();
    expect(body).toContain('id="f-origins-error"');
    expect(body).toContain("Line 2");
    expect(body).toContain("https://x.example/path");
    expect((await post(app, admin, "/dashboard/settings/origins", { origins: "https://Shop.Example\nhttps://blog.example:8443" })).status).toBe(303);
    expect((await allowedOrigins(app.deps, admin.orgId)).allowed_origins).toEqual(["https://shop.example", "https://blog.example:8443"]);
  });

  test("OAuth grants: listed with the client and member, revoked from the page", async () => {
    const { members, oauthClients, oauthGrants } = await import("../../src/db/schema/index.ts");
    const { eq } = await import("drizzle-orm");
    const [me] = await app.deps.db.select({ id: members.id }).from(members).where(eq(members.email, admin.email));
    const clientId = `client-${crypto.randomUUID()}`;
    await app.deps.db.insert(oauthClients).values({
      id: clientId,
      name: "Claude <Desktop>",
      redirectUris: ["http://127.0.0.1/cb"],
      tokenEndpointAuthMethod: "none",
      grantTypes: ["authorization_code"],
      responseTypes: ["code"],
    });
    const [grant] = await app.deps.db
      .insert(oauthGrants)
      .values({ clientId, memberId: me!.id, orgId: admin.orgId, scopes: ["docs:read"], resource: `${app.deps.config.baseUrl}/api/mcp` })
      .returning();
    const page = await (await get(app, admin, "/dashboard/settings")).text();
    expect(page).toContain("Claude &#60;Desktop&#62;");
    expect(page).toContain("docs:read");
    expect((await post(app, other, `/dashboard/settings/grants/${grant!.id}/revoke`, { go: "1" })).status).toBe(404);
    expect((await post(app, admin, `/dashboard/settings/grants/${grant!.id}/revoke`, { go: "1" })).status).toBe(303);
    const [after] = await app.deps.db.select().from(oauthGrants).where(eq(oauthGrants.id, grant!.id));
    expect(after!.revokedAt).not.toBeNull();
    expect(await (await get(app, admin, "/dashboard/settings")).text()).not.toContain("Claude &#60;Desktop&#62;");
  });

  test("the organisation's model: set with a write-only key, a refused base URL next to its field, cleared", async () => {
    const bad = await post(app, admin, "/dashboard/settings/llm", {
      llm_provider: "openai",
      llm_model: "gpt-x",
      llm_base_url: "ftp://models.example",
      llm_api_key: "sk-org-secret",
    });
    expect(bad.status).toBe(400);
    const badBody = await bad.text();
    expect(badBody).toContain('id="f-llm_base_url-error"');
    expect(badBody).not.toContain("sk-org-secret");
    expect(
      (await post(app, admin, "/dashboard/settings/llm", { llm_provider: "openai", llm_model: "gpt-x", llm_base_url: "", llm_api_key: "sk-org-secret" }))
        .status,
    ).toBe(303);
    const view = await orgLlmView(app.deps, admin.orgId);
    expect(view.override).toMatchObject({ provider: "openai", model: "gpt-x", api_key_set: true });
    const page = await (await get(app, admin, "/dashboard/settings")).text();
    expect(page).toContain("A key is stored");
    expect(page).not.toContain("sk-org-secret");
    expect((await post(app, admin, "/dashboard/settings/llm", { llm_provider: "" })).status).toBe(303);
    expect((await orgLlmView(app.deps, admin.orgId)).override).toBeNull();
  });

  test("tenant boundary: another org's key or grant id is 404", async () => {
    const [theirs] = await listWidgetKeys(app.deps, other.orgId);
    expect((await post(app, admin, `/dashboard/settings/keys/${theirs!.id}/revoke`, { go: "1" })).status).toBe(404);
    expect((await listWidgetKeys(app.deps, other.orgId))[0]!.revoked_at).toBeNull();
    expect((await post(app, admin, `/dashboard/settings/grants/${crypto.randomUUID()}/revoke`, { go: "1" })).status).toBe(404);
  });
});

describe("a section's form brings its own section page back", () => {
  test("widget, identity and members posts redirect to their section, where the flash shows", async () => {
    const origins = await post(app, admin, "/dashboard/settings/origins", { origins: "https://shop.example" });
    expect(origins.status).toBe(303);
    expect(origins.headers.get("location")).toBe("/dashboard/settings/widget#origins-h");
    const widget = await (await get(app, withFlash(admin, origins), "/dashboard/settings/widget")).text();
    expect(widget).toContain("Allowed origins saved.");
    expect(widget).toContain('href="/dashboard/settings/widget" aria-current="page"');

    const identity = await post(app, admin, "/dashboard/settings/identity", { enabled: "off" });
    expect(identity.status).toBe(303);
    expect(identity.headers.get("location")).toBe("/dashboard/settings/identity#identity-h");
    expect(await (await get(app, withFlash(admin, identity), "/dashboard/settings/identity")).text()).toContain("Identity verification is off.");

    const someone = await memberWith(app, admin.orgId, ["inbox:view"]);
    const { members } = await import("../../src/db/schema/index.ts");
    const [row] = await app.deps.db.select({ id: members.id }).from(members).where(eq(members.email, someone.email));
    const roles = await post(app, admin, `/dashboard/settings/members/${row!.id}/roles`, { roles: "inbox:manage" });
    expect(roles.status).toBe(303);
    expect(roles.headers.get("location")).toBe("/dashboard/settings/members#members-h");
    expect(await (await get(app, withFlash(admin, roles), "/dashboard/settings/members")).text()).toContain(`Roles of ${someone.email} saved.`);
  });
});
