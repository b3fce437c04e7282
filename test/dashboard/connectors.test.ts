// Dashboard connectors through the app with a session cookie, against a real MCP fixture server:
// connect (slug derived from the name when left empty), status and discovered tools, a field
// error with the values kept, refresh, disconnect, roles, the feature flag, and another org's
// connector answering 404.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listConnectors } from "../../src/connectors/service.ts";
import { slugFromName } from "../../src/dashboard/connectors.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { type McpFixture, statelessJsonServer } from "../support/mcp-servers.ts";
import { get, type Member, memberWith, post, withFlash } from "./helpers.ts";

let app: TestApp;
let server: McpFixture;
let admin: Member;
let other: Member;

async function signedIn(flags: string[]): Promise<Member> {
  const org = await seedOrg(app, { flags });
  const res = await app.request("/signin", { form: { email: org.admin_email, password: org.password }, headers: { origin: app.deps.config.baseUrl } });
  return { cookie: res.headers.get("set-cookie")!.split(";")[0]!, orgId: org.org_id, email: org.admin_email, password: org.password };
}

beforeAll(async () => {
  // Development mode lets the outbound guard reach the loopback fixture server.
  app = await createTestApp({ NODE_ENV: "development" });
  server = await statelessJsonServer();
  admin = await signedIn(["mcp_external_servers"]);
  other = await signedIn(["mcp_external_servers"]);
});
afterAll(async () => {
  await server.stop();
  await app.close();
});

describe("connectors pages", () => {
  test("the slug proposed for a name follows docs/interface.md 2.1", () => {
    expect(slugFromName("Acme CRM")).toBe("acme_crm");
    expect(slugFromName("3D Café — prod")).toBe("d_cafe_prod");
    expect(slugFromName("x".repeat(40))).toHaveLength(32);
  });

  test("connect with the slug left empty: derived, discovered, tools listed", async () => {
    const res = await post(app, admin, "/dashboard/connectors", { name: "Fixture Server", slug: "", url: server.url, auth_method: "none" });
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    const page = await get(app, withFlash(admin, res), location);
    const body = await page.text();
    expect(body).toContain("Connected:");
    expect(body).toContain("<code>fixture_server</code>");
    const [view] = (await listConnectors(app.deps, admin.orgId)).servers;
    expect(view!.slug).toBe("fixture_server");
    expect(view!.tool_count).toBeGreaterThan(0);
    expect(body).toContain(view!.discovered_tools[0]!.action_id);
    // The server's hints, shown as it declared them: echo is read-only and not destructive.
    expect(body).toContain("Hints from the server");
    expect(view!.discovered_tools.find((t) => t.name === "echo")).toMatchObject({ read_only: true, destructive: false, idempotent: false, open_world: true });
    expect(body).toContain('<span class="badge">read-only</span>');
    // The revision the client negotiated (a 2025 server: server/discover refused, then initialize).
    expect(body).toContain("<span data-revision>MCP 2025-11-25</span>");
  });

  test("a taken slug is a field error next to the slug, the other values kept", async () => {
    const res = await post(app, admin, "/dashboard/connectors", { name: "Again", slug: "fixture_server", url: server.url, auth_method: "none" });
    expect(res.status).toBe(409);
    const body = await res.text();
    expect(body).toContain('id="f-slug-error"');
    expect(body).toContain('value="Again"');
    const bad = await post(app, admin, "/dashboard/connectors", { name: "Bad", slug: "9bad", url: server.url, auth_method: "none" });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('id="f-slug-error"');
  });

  test("refresh runs discovery again; disconnect removes it", async () => {
    const [view] = (await listConnectors(app.deps, admin.orgId)).servers;
    const before = server.counters["tools/list"] ?? 0;
    const refreshed = await post(app, admin, `/dashboard/connectors/${view!.id}/refresh`, { name: "Fixture renamed", auth_method: "none" });
    expect(refreshed.status).toBe(303);
    expect(server.counters["tools/list"]).toBeGreaterThan(before);
    expect((await listConnectors(app.deps, admin.orgId)).servers[0]!.name).toBe("Fixture renamed");
    expect((await post(app, admin, `/dashboard/connectors/${view!.id}/disconnect`, { go: "1" })).status).toBe(303);
    expect((await listConnectors(app.deps, admin.orgId)).servers).toHaveLength(0);
  });

  test("roles and the feature flag", async () => {
    const viewer = await memberWith(app, admin.orgId, ["integrations:view"]);
    const page = await get(app, viewer, "/dashboard/connectors");
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain("Connect a server");
    expect((await post(app, viewer, "/dashboard/connectors", { name: "x", url: server.url })).status).toBe(403);
    const outsider = await memberWith(app, admin.orgId, ["knowledge:view"]);
    expect((await get(app, outsider, "/dashboard/connectors")).status).toBe(403);
    const noFlag = await signedIn([]);
    expect(await (await get(app, noFlag, "/dashboard/connectors")).text()).toContain("not enabled for this organisation");
  });

  test("tenant boundary: another org's connector is 404", async () => {
    const res = await post(app, other, "/dashboard/connectors", { name: "Theirs", slug: "theirs", url: server.url, auth_method: "none" });
    const id = res.headers.get("location")!.split("/").pop()!;
    expect((await get(app, admin, `/dashboard/connectors/${id}`)).status).toBe(404);
    expect((await post(app, admin, `/dashboard/connectors/${id}/refresh`, { name: "Hijack" })).status).toBe(404);
    expect((await post(app, admin, `/dashboard/connectors/${id}/disconnect`, { go: "1" })).status).toBe(404);
    expect((await listConnectors(app.deps, other.orgId)).servers[0]!.name).toBe("Theirs");
  });
});
