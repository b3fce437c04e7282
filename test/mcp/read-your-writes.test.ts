// Read-your-writes: after each kind of change — connector delete,
// toggle, flag, agent, revocation — the very next request on the same process sees it. The clock never
// moves here: no snapshot or token-cache TTL can be what makes these pass.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { systemActor } from "../../src/kit/actor.ts";
import { setFeatureFlag } from "../../src/orgs/service.ts";
import type { TestApp } from "../support/app.ts";
import { bearerServer, type McpFixture } from "../support/mcp-servers.ts";
import { rpc, tokensFor } from "../support/oauth.ts";
import { api, connectOk, devApp, enableConnector, fixtures, type Org } from "../connectors/helpers.ts";

/** Tests that sign in or run the OAuth flow (argon2, a fresh org) on a loaded machine. */
const SLOW_MS = 30_000;

/** Setup (a fresh database, an org, a token through the OAuth flow) on a loaded machine. */
const SETUP_MS = 30_000;

let app: TestApp;
let org: Org;
let auth: Record<string, string>;
let token: string;
let clientId: string;
let server: McpFixture;
const BEARER = `bearer-${crypto.randomUUID()}`;
const running = fixtures();

beforeAll(async () => {
  ({ app, org, auth } = await devApp());
  ({ accessToken: token, clientId } = await tokensFor(app, org, "docs:read actions:read actions:write"));
  server = await running.start(bearerServer({ token: BEARER }));
}, SETUP_MS);
afterAll(async () => {
  await running.stopAll();
  await app.close();
});

const names = async () => ((await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).body.result.tools as { name: string }[]).map((t) => t.name);
const call = (name: string, args: Record<string, unknown>) =>
  rpc(app, token, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name, arguments: args } });

describe("the next request on the same process sees the change", () => {
  test(
    "connector delete: its tools are gone from tools/list and tools/call at once",
    async () => {
      const created = await connectOk(app, auth, { name: "Soon gone", slug: "ryw", url: server.url, auth_method: "bearer", credentials: { token: BEARER } });
      await enableConnector(app, auth, org.agent_id, created.id);
      expect(await names()).toContain("mcp.ryw.secret_echo");
      expect((await call("mcp.ryw.secret_echo", { text: "hi" })).body.result.isError).toBe(false);
      expect((await api(app, auth).disconnect(created.id)).status).toBe(204);
      expect((await names()).filter((n) => n.startsWith("mcp.ryw."))).toEqual([]);
      expect((await call("mcp.ryw.secret_echo", { text: "hi" })).body.error.code).toBe(-32601);
    },
    SLOW_MS,
  );

  test("toggle: switched off, the next call is refused; switched on, it runs", async () => {
    expect((await call("search_docs", { query: "x" })).body.result).toBeDefined();
    const off = await app.request(`/api/agents/${org.agent_id}/actions`, { method: "PATCH", json: { disable: ["search_docs"] }, headers: auth });
    expect(off.status).toBe(200);
    const refused = await call("search_docs", { query: "x" });
    expect(refused.body.error).toMatchObject({ code: -32002, data: { reason: "toggle" } });
    expect(await names()).not.toContain("search_docs");
    await app.request(`/api/agents/${org.agent_id}/actions`, { method: "PATCH", json: { enable: ["search_docs"] }, headers: auth });
    expect(await names()).toContain("search_docs");
  });

  test(
    "flag: switching mcp_external_servers off removes connector tools at once",
    async () => {
      const created = await connectOk(app, auth, { name: "Flagged", slug: "flagged", url: server.url, auth_method: "bearer", credentials: { token: BEARER } });
      await enableConnector(app, auth, org.agent_id, created.id);
      expect(await names()).toContain("mcp.flagged.secret_echo");
      await setFeatureFlag(app.deps, org.org_id, systemActor("test"), "mcp_external_servers", false);
      expect((await names()).filter((n) => n.startsWith("mcp.flagged."))).toEqual([]);
      expect((await call("mcp.flagged.secret_echo", { text: "hi" })).body.error.code).toBe(-32601);
      await setFeatureFlag(app.deps, org.org_id, systemActor("test"), "mcp_external_servers", true);
      expect(await names()).toContain("mcp.flagged.secret_echo");
    },
    SLOW_MS,
  );

  test(
    "agent: activating another agent switches to its toggles at once",
    async () => {
      const off = await app.request(`/api/agents/${org.agent_id}/actions`, { method: "PATCH", json: { disable: ["read_doc"] }, headers: auth });
      expect(off.status).toBe(200);
      expect(await names()).not.toContain("read_doc");
      const created = await app.request("/api/agents", { json: { name: "Second" }, headers: auth });
      expect(created.status).toBe(201);
      const second = (await created.json()) as { id: string };
      expect((await app.request(`/api/agents/${second.id}/activate`, { method: "POST", headers: auth })).status).toBe(200);
      expect(await names()).toContain("read_doc"); // the new active agent has its defaults
      expect((await app.request(`/api/agents/${org.agent_id}/activate`, { method: "POST", headers: auth })).status).toBe(200);
      expect(await names()).not.toContain("read_doc");
    },
    SLOW_MS,
  );

  test("revocation: a revoked access token is refused on the very next request", async () => {
    expect((await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "ping" })).res.status).toBe(200); // cached as valid
    const revoked = await app.request("/api/mcp/oauth/revoke", { form: { token, client_id: clientId } });
    expect(revoked.status).toBe(200);
    const after = await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "ping" });
    expect(after.res.status).toBe(401);
    expect(after.body.error.code).toBe(-32001);
  });
});
