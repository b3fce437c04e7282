// Connector management API (docs/interface.md 2.1, 3, docs/interface.md 4.1, docs/interface.md 5, docs/interface.md 7.3, docs/interface.md 8.1, docs/interface.md 8.2): connect, list,
// refresh and disconnect; validation naming the field; the feature flag; tenancy; roles; discovery
// failures that still save the row; credentials never listed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { memberships } from "../../src/db/schema/index.ts";
import { systemActor } from "../../src/kit/actor.ts";
import { setFeatureFlag } from "../../src/orgs/service.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { bearerServer, oauthProtectedServer, statefulSseServer, type McpFixture, type OAuthFixture } from "../support/mcp-servers.ts";
import { freePort } from "../support/process.ts";
import { api, connectOk, type ConnectorView, devApp, errorPaths, FLAG, fixtures, listServers, type Org, serverById, sessionOf, SERVERS } from "./helpers.ts";

let app: TestApp;
let org: Org;
let auth: Record<string, string>;
let stateful: McpFixture;
let bearer: McpFixture;
let oauth: OAuthFixture;
const running = fixtures();
const BEARER_TOKEN = `bearer-secret-${crypto.randomUUID()}`;

beforeAll(async () => {
  ({ app, org, auth } = await devApp());
  stateful = await running.start(statefulSseServer());
  bearer = await running.start(bearerServer({ token: BEARER_TOKEN }));
  oauth = await running.start(oauthProtectedServer({ clientSecret: "oauth-client-secret-xyz" }));
});
afterAll(async () => {
  await running.stopAll();
  await app.close();
});

const post = (body: Record<string, unknown>) => api(app, auth).connect(body);
const valid = () => ({ name: "Demo server", slug: `s_${crypto.randomUUID().slice(0, 8)}`, url: stateful.url, auth_method: "none" });

describe("POST /api/integrations/mcp/servers", () => {
  test("201 with exactly { id, status, tool_count, error }", async () => {
    const res = await post({ ...valid(), slug: "demo" });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["error", "id", "status", "tool_count"]);
    expect(body).toMatchObject({ status: "connected", tool_count: 4, error: null });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("name is required: missing or blank → 400 naming /name", async () => {
    const { name: _, ...noName } = valid();
    const missing = await post(noName);
    expect(missing.status).toBe(400);
    expect(await errorPaths(missing)).toContain("/name");
    const blank = await post({ ...valid(), name: "   " });
    expect(blank.status).toBe(400);
    expect(await errorPaths(blank)).toContain("/name");
  });

  test("slug: 32 characters accepted, 33 refused, uppercase, leading digit, dash and empty refused", async () => {
    const at32 = `a${"b".repeat(31)}`;
    expect(at32).toHaveLength(32);
    expect((await post({ ...valid(), slug: at32 })).status).toBe(201);
    for (const slug of [`a${"b".repeat(32)}`, "Upper", "uPPer", "1abc", "_abc", "a-b", "a.b", ""]) {
      const res = await post({ ...valid(), slug });
      expect(res.status).toBe(400);
      expect(await errorPaths(res)).toContain("/slug");
    }
  });

  test("slug unique among the org's live connectors (409 naming /slug), free in another org, reusable after DELETE", async () => {
    const first = await connectOk(app, auth, { ...valid(), slug: "reused" });
    const again = await post({ ...valid(), slug: "reused" });
    expect(again.status).toBe(409);
    expect(await errorPaths(again)).toEqual(["/slug"]);
    const other = await seedOrg(app, { flags: [FLAG] });
    expect((await api(app, await sessionOf(app, other)).connect({ ...valid(), slug: "reused" })).status).toBe(201);
    expect((await api(app, auth).disconnect(first.id)).status).toBe(204);
    const reconnected = await connectOk(app, auth, { ...valid(), slug: "reused" });
    expect(reconnected.id).not.toBe(first.id);
    expect(reconnected.status).toBe("connected");
  });

  test("URL: 2048 characters accepted (and used), 2049 refused naming /url", async () => {
    const pad = (length: number) => `${stateful.url}?pad=${"x".repeat(length - stateful.url.length - 5)}`;
    expect(pad(2048)).toHaveLength(2048);
    const ok = await post({ ...valid(), url: pad(2048) });
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { status: string }).status).toBe("connected");
    const over = await post({ ...valid(), url: pad(2049) });
    expect(over.status).toBe(400);
    expect(await errorPaths(over)).toContain("/url");
  });

  test("URL: not a URL, another scheme, userinfo → 400 naming /url", async () => {
    for (const url of ["not a url", "ftp://127.0.0.1/mcp", "file:///etc/passwd", `http://user:pw@127.0.0.1:${freePort()}/mcp`]) {
      const res = await post({ ...valid(), url });
      expect(res.status).toBe(400);
      expect(await errorPaths(res)).toContain("/url");
    }
  });

  test("docs/interface.md 7.3/docs/interface.md 8.2: a blocked address is refused at connect time, also in development (only loopback is relaxed)", async () => {
    for (const url of ["https://169.254.169.254/latest/meta-data/", "https://10.0.0.8/mcp", "https://[fd00::1]/mcp"]) {
      const res = await post({ ...valid(), url });
      expect({ url, status: res.status }).toEqual({ url, status: 400 });
      expect(await errorPaths(res)).toContain("/url");
    }
  });

  test("docs/interface.md 8.2.3: a name that resolves to a private address is refused at connect time", async () => {
    app.hosts.set("mcp.private-dns.test", ["10.1.2.3"]);
    const res = await post({ ...valid(), url: "https://mcp.private-dns.test/mcp" });
    expect(res.status).toBe(400);
    expect(await errorPaths(res)).toContain("/url");
  });

  test("credential fields: 8000 characters accepted (and sent), 8001 refused naming the field", async () => {
    const long = "t".repeat(8000);
    const server = await running.start(bearerServer({ token: long }));
    const ok = await connectOk(app, auth, { ...valid(), url: server.url, auth_method: "bearer", credentials: { token: long } });
    expect(ok.status).toBe("connected");
    const over = await post({ ...valid(), url: server.url, auth_method: "bearer", credentials: { token: `${long}t` } });
    expect(over.status).toBe(400);
    expect(await errorPaths(over)).toEqual(["/credentials/token"]);
    const oauthOver = await post({ ...valid(), url: oauth.url, auth_method: "oauth2", credentials: { access_token: "a", client_secret: "s".repeat(8001) } });
    expect(oauthOver.status).toBe(400);
    expect(await errorPaths(oauthOver)).toEqual(["/credentials/client_secret"]);
  });

  test("bearer requires token; oauth2 requires access_token; unknown fields refused", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ auth_method: "bearer" }, "/credentials/token"],
      [{ auth_method: "bearer", credentials: {} }, "/credentials/token"],
      [{ auth_method: "bearer", credentials: { token: "" } }, "/credentials/token"],
      [{ auth_method: "bearer", credentials: { token: "x", password: "y" } }, "/credentials/password"],
      [{ auth_method: "oauth2", credentials: { refresh_token: "r" } }, "/credentials/access_token"],
      [{ auth_method: "none", credentials: { token: "x" } }, "/credentials/token"],
    ];
    for (const [body, path] of cases) {
      const res = await post({ ...valid(), ...body });
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(await errorPaths(res)).toContain(path);
    }
    const unknownMethod = await post({ ...valid(), auth_method: "basic" });
    expect(unknownMethod.status).toBe(400);
    expect(await errorPaths(unknownMethod)).toContain("/auth_method");
  });

  test("a refused request saves nothing", async () => {
    const before = (await listServers(app, auth)).servers.length;
    await post({ ...valid(), slug: "Nope" });
    await post({ ...valid(), auth_method: "bearer" });
    expect((await listServers(app, auth)).servers.length).toBe(before);
  });
});

describe("https only outside development (docs/interface.md 2.1, docs/interface.md 8.2.1)", () => {
  let prod: TestApp;
  let prodAuth: Record<string, string>;
  beforeAll(async () => {
    prod = await createTestApp(); // NODE_ENV=test: no loopback, no http
    const prodOrg = await seedOrg(prod, { flags: [FLAG] });
    prodAuth = await sessionOf(prod, prodOrg);
  });
  afterAll(() => prod.close());

  test("http://127.0.0.1 and http://localhost → 400 naming /url; nothing saved", async () => {
    for (const url of [stateful.url, `http://localhost:${new URL(stateful.url).port}/mcp`]) {
      const res = await api(prod, prodAuth).connect({ ...valid(), url });
      expect({ url, status: res.status }).toEqual({ url, status: 400 });
      expect(await errorPaths(res)).toContain("/url");
    }
    expect((await listServers(prod, prodAuth)).servers).toEqual([]);
  });

  test("https://169.254.169.254 and https://127.0.0.1 (blocked addresses) → 400 naming /url; nothing saved", async () => {
    for (const url of ["https://169.254.169.254/latest/meta-data/", "https://127.0.0.1/mcp"]) {
      const res = await api(prod, prodAuth).connect({ ...valid(), url });
      expect({ url, status: res.status }).toEqual({ url, status: 400 });
      expect(await errorPaths(res)).toContain("/url");
    }
    expect((await listServers(prod, prodAuth)).servers).toEqual([]);
  });
});

describe("feature flag mcp_external_servers", () => {
  test("off: POST and PATCH → 403, GET lists with enabled false", async () => {
    const other = await seedOrg(app, { flags: [FLAG] });
    const otherAuth = await sessionOf(app, other);
    const created = await connectOk(app, otherAuth, { ...valid(), slug: "flagged" });
    await setFeatureFlag(app.deps, other.org_id, systemActor("test"), FLAG, false);
    const connect = await api(app, otherAuth).connect({ ...valid(), slug: "flagged2" });
    expect(connect.status).toBe(403);
    expect((await connect.json()) as object).toMatchObject({ error: { code: "forbidden" } });
    expect((await api(app, otherAuth).refresh(created.id)).status).toBe(403);
    const list = await listServers(app, otherAuth);
    expect(list.enabled).toBe(false);
    expect(list.servers.map((s) => s.slug)).not.toContain("flagged2");
    await setFeatureFlag(app.deps, other.org_id, systemActor("test"), FLAG, true);
    expect((await listServers(app, otherAuth)).enabled).toBe(true);
    expect((await api(app, otherAuth).refresh(created.id)).status).toBe(200);
  });

  test("an org that never had it: POST → 403", async () => {
    const plain = await seedOrg(app);
    expect((await api(app, await sessionOf(app, plain)).connect(valid())).status).toBe(403);
  });
});

describe("tenancy and roles (docs/interface.md 5)", () => {
  test("another org's connector id → 404 for PATCH and DELETE, and it is left alone", async () => {
    const mine = await connectOk(app, auth, { ...valid(), slug: "tenant_owned" });
    const other = await seedOrg(app, { flags: [FLAG] });
    const otherApi = api(app, await sessionOf(app, other));
    expect((await otherApi.refresh(mine.id)).status).toBe(404);
    expect((await otherApi.disconnect(mine.id)).status).toBe(404);
    expect((await otherApi.refresh("not-a-uuid")).status).toBe(404);
    expect((await otherApi.disconnect(crypto.randomUUID())).status).toBe(404);
    expect(JSON.stringify((await listServers(app, await sessionOf(app, other))).servers)).not.toContain(mine.id);
    expect((await serverById(app, auth, mine.id))?.status).toBe("connected");
  });

  test("integrations:view lists but cannot connect, refresh or disconnect (403); no session → 401", async () => {
    const created = await connectOk(app, auth, { ...valid(), slug: "roles_target" });
    const viewer = await seedOrg(app, { flags: [FLAG] });
    // The viewer's member also belongs to *our* org, with the view role only.
    await app.deps.db.insert(memberships).values({ orgId: org.org_id, memberId: (await memberOf(viewer.org_id))!, roles: ["integrations:view"] });
    const viewerAuth = await sessionOf(app, viewer);
    const viewerApi = api(app, { ...viewerAuth, "x-org-id": org.org_id }); // acting on our org, where they may only view
    const list = await viewerApi.list();
    expect(list.status).toBe(200);
    expect(JSON.stringify(await list.json())).toContain(created.id);
    expect((await viewerApi.connect(valid())).status).toBe(403);
    expect((await viewerApi.refresh(created.id)).status).toBe(403);
    expect((await viewerApi.disconnect(created.id)).status).toBe(403);
    const anonymous = api(app, {});
    expect((await anonymous.list()).status).toBe(401);
    expect((await anonymous.connect(valid())).status).toBe(401);
    expect((await anonymous.refresh(created.id)).status).toBe(401);
    expect((await anonymous.disconnect(created.id)).status).toBe(401);
    expect((await api(app, { authorization: "Bearer forged-session" }).list()).status).toBe(401);
  });
});

async function memberOf(orgId: string): Promise<string | undefined> {
  const [m] = await app.deps.db.select({ memberId: memberships.memberId }).from(memberships).where(eq(memberships.orgId, orgId));
  return m?.memberId;
}

describe("GET /api/integrations/mcp/servers", () => {
  test("{ enabled, servers } with every docs/interface.md 2.1 field, discovered tools described, and never a credential", async () => {
    const bearerRow = await connectOk(app, auth, {
      name: "Bearer",
      slug: "listed_bearer",
      url: bearer.url,
      auth_method: "bearer",
      credentials: { token: BEARER_TOKEN },
    });
    const pair = oauth.issue();
    const oauthRow = await connectOk(app, auth, {
      name: "OAuth",
      slug: "listed_oauth",
      url: oauth.url,
      auth_method: "oauth2",
      credentials: { ...pair, client_id: oauth.clientId, client_secret: "oauth-client-secret-xyz" },
    });
    expect(bearerRow.status).toBe("connected");
    expect(oauthRow.status).toBe("connected");
    const res = await api(app, auth).list();
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const secret of [BEARER_TOKEN, pair.access_token, pair.refresh_token, "oauth-client-secret-xyz"]) expect(text).not.toContain(secret);
    expect(text).not.toContain('"credentials"');
    expect(text).not.toContain("v1."); // not even the ciphertext
    const body = JSON.parse(text) as { enabled: boolean; servers: ConnectorView[] };
    expect(body.enabled).toBe(true);
    const listed = body.servers.find((s) => s.id === bearerRow.id)!;
    for (const field of [
      "id",
      "name",
      "slug",
      "url",
      "auth_method",
      "status",
      "last_discovered_at",
      "last_error",
      "discovered_tools",
      "icon_url",
      "created_at",
    ])
      expect(listed).toHaveProperty(field);
    expect(listed).toMatchObject({
      name: "Bearer",
      slug: "listed_bearer",
      url: bearer.url,
      auth_method: "bearer",
      status: "connected",
      last_error: null,
      icon_url: null,
    });
    expect(new Date(listed.last_discovered_at!).getTime()).not.toBeNaN();
    expect(new Date(listed.created_at).getTime()).not.toBeNaN();
    expect(listed.discovered_tools).toEqual([
      {
        name: "secret_echo",
        action_id: "mcp.listed_bearer.secret_echo",
        description: "Returns its text argument.",
        input_schema: expect.objectContaining({ type: "object", properties: { text: expect.objectContaining({ type: "string" }) } }),
        destructive: false,
        // The server's other hints as it gave them (MCP's defaults where it gave none).
        read_only: true,
        idempotent: false,
        open_world: true,
      },
    ]);
    expect(body.servers.find((s) => s.id === oauthRow.id)!.auth_method).toBe("oauth2");
  });

  test("only the org's own live connectors", async () => {
    const other = await seedOrg(app, { flags: [FLAG] });
    expect((await listServers(app, await sessionOf(app, other))).servers).toEqual([]);
  });
});

describe("discovery failure still saves the row (docs/interface.md 3, docs/interface.md 7.3)", () => {
  test("unreachable port → 201, status error, last_error set and returned", async () => {
    const url = `http://127.0.0.1:${freePort()}/mcp`;
    const res = await post({ ...valid(), slug: "unreachable", url });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { id: string; status: string; tool_count: number; error: string | null };
    expect(body.status).toBe("error");
    expect(body.tool_count).toBe(0);
    expect(body.error).toBeString();
    expect(body.error!.length).toBeGreaterThan(0);
    const listed = await serverById(app, auth, body.id);
    expect(listed).toMatchObject({ status: "error", last_error: body.error, url, discovered_tools: [] });
    expect(listed!.last_discovered_at).not.toBeNull();
  });

  test("bearer server with a wrong token → 201, status error naming the refusal; the right token connects", async () => {
    const wrong = await post({ ...valid(), slug: "wrong_token", url: bearer.url, auth_method: "bearer", credentials: { token: "not-the-token" } });
    expect(wrong.status).toBe(201);
    const body = (await wrong.json()) as { id: string; status: string; error: string };
    expect(body.status).toBe("error");
    expect(body.error).toContain("401");
    expect((await serverById(app, auth, body.id))!.last_error).toBe(body.error);
    // Fixing the credentials with PATCH connects it.
    const fixed = await api(app, auth).refresh(body.id, { auth_method: "bearer", credentials: { token: BEARER_TOKEN } });
    expect(fixed.status).toBe(200);
    expect((await fixed.json()) as object).toMatchObject({ status: "connected", last_error: null, tool_count: 1 });
  });

  test("PATCH validation: empty name, bad credentials, a new auth_method without credentials → 400 naming the field", async () => {
    const created = await connectOk(app, auth, { ...valid(), slug: "patch_checks" });
    const patch = (body: unknown) => api(app, auth).refresh(created.id, body);
    expect(await errorPaths(await patch({ name: " " }))).toContain("/name");
    expect(await errorPaths(await patch({ auth_method: "bearer" }))).toContain("/credentials");
    expect(await errorPaths(await patch({ auth_method: "bearer", credentials: { token: "t".repeat(8001) } }))).toContain("/credentials/token");
    expect((await serverById(app, auth, created.id))!.status).toBe("connected");
  });

  test(`${SERVERS}/{id} PATCH renames and rediscovers`, async () => {
    const created = await connectOk(app, auth, { ...valid(), slug: "renamed" });
    const res = await api(app, auth).refresh(created.id, { name: "  New name  " });
    expect(res.status).toBe(200);
    expect((await res.json()) as object).toMatchObject({ id: created.id, name: "New name", status: "connected", tool_count: 4 });
  });
});
