// The tool server's JSON-RPC surface (docs/interface.md 4.2, 7.1; docs/interface.md A.1–A.6): every error code
// provoked, batches, notifications, descriptor, scope filtering, binding and the audit record.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { actionExecutions, endUsers, memberships } from "../../src/db/schema/index.ts";
import { ACCESS_CACHE_TTL_MS } from "../../src/oauth/token-cache.ts";
import { systemActor } from "../../src/kit/actor.ts";
import { setFeatureFlag } from "../../src/orgs/service.ts";
import { SNAPSHOT_TTL_MS } from "../../src/tools/registry.ts";
import { createDoc } from "../../src/knowledge/docs.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { rpc, tokensFor } from "../support/oauth.ts";

/** Tests that sign in or run the OAuth flow (argon2, a fresh org) on a loaded machine. */
const SLOW_MS = 30_000;

/** Setup (a fresh database, an org, a token through the OAuth flow) on a loaded machine. */
const SETUP_MS = 30_000;

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let full: string;
let readOnly: string;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  full = (await tokensFor(app, org, "docs:read data:read data:write actions:read actions:write")).accessToken;
  readOnly = (await tokensFor(app, org)).accessToken;
  await createDoc(app.deps, org.org_id, { title: "Shipping times", body: "Orders ship within two business days from our warehouse." });
  await createDoc(app.deps, org.org_id, { title: "Draft: secret roadmap", body: "Shipping to Mars next year.", status: "draft" });
}, SETUP_MS);
afterAll(() => app.close());

const call = (id: number, name: string, args: unknown = {}, meta?: unknown) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

describe("GET /api/mcp", () => {
  test("the descriptor with absolute URLs", async () => {
    const res = await app.request("/api/mcp", { headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      name: "svc-agents",
      version: "1.0.0",
      protocolVersion: "2025-03-26",
      transport: "http+jsonrpc",
      methods: ["initialize", "ping", "tools/list", "tools/call"],
      authentication: {
        type: "oauth2",
        authorization_server: "http://localhost:3000/.well-known/oauth-authorization-server",
        protected_resource_metadata: "http://localhost:3000/.well-known/oauth-protected-resource/api/mcp",
      },
      mcp_url: "http://localhost:3000/api/mcp",
    });
  });

  test("docs/interface.md A.1: Accept only text/event-stream → 405 with Allow: POST", async () => {
    const res = await app.request("/api/mcp", { headers: { accept: "text/event-stream" } });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("authentication (docs/interface.md 5, docs/interface.md A.5)", () => {
  test("no token → 401, -32001, challenge without error", async () => {
    const { res, body } = await rpc(app, undefined, { jsonrpc: "2.0", id: 1, method: "ping" });
    expect(res.status).toBe(401);
    expect(body.error.code).toBe(-32001);
    expect(res.headers.get("www-authenticate")).toBe(
      'Bearer realm="svc-mcp", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/api/mcp", as_uri="http://localhost:3000/.well-known/oauth-authorization-server"',
    );
  });

  test('a bad token → 401 with error="invalid_token"', async () => {
    const { res, body } = await rpc(app, "svc_at_forged", { jsonrpc: "2.0", id: 1, method: "ping" });
    expect(res.status).toBe(401);
    expect(body.error.code).toBe(-32001);
    expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });
});

describe("JSON-RPC envelope and methods", () => {
  // Other proposals: test/mcp/revisions.test.ts (an unknown one gets the latest handshake revision).
  test("initialize with 2025-03-26 answers 2025-03-26 and the seed's exact result", async () => {
    const { res, body } = await rpc(app, full, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "x", version: "1" } },
    });
    expect(res.status).toBe(200);
    expect(body).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { protocolVersion: "2025-03-26", serverInfo: { name: "svc-agents", version: "1.0.0" }, capabilities: { tools: { listChanged: false } } },
    });
  });

  test("ping → {}", async () => {
    expect((await rpc(app, full, { jsonrpc: "2.0", id: "a", method: "ping" })).body).toEqual({ jsonrpc: "2.0", id: "a", result: {} });
  });

  test("-32700 parse error", async () => {
    const { res, body } = await rpc(app, full, "{not json");
    expect(res.status).toBe(400);
    expect(body.error.code).toBe(-32700);
    expect(body.id).toBeNull();
  });

  for (const [name, message] of [
    ["wrong jsonrpc", { jsonrpc: "1.0", id: 1, method: "ping" }],
    ["id of a bad type", { jsonrpc: "2.0", id: { x: 1 }, method: "ping" }],
    ["null id", { jsonrpc: "2.0", id: null, method: "ping" }],
    ["missing method", { jsonrpc: "2.0", id: 1 }],
    ["not an object", 42],
  ] as const) {
    test(`-32600 invalid request: ${name}`, async () => {
      const { res, body } = await rpc(app, full, message);
      expect(res.status).toBe(400);
      expect(body.error.code).toBe(-32600);
    });
  }

  test("-32601 unknown method and unknown tool", async () => {
    expect((await rpc(app, full, { jsonrpc: "2.0", id: 1, method: "resources/list" })).body.error.code).toBe(-32601);
    const unknown = await rpc(app, full, call(2, "no_such_tool"));
    expect(unknown.body.error).toMatchObject({ code: -32601, message: "Unknown tool: no_such_tool" });
  });

  test("-32602 invalid params names the failing JSON path", async () => {
    const missing = await rpc(app, full, call(1, "search_docs", {}));
    expect(missing.body.error.code).toBe(-32602);
    expect(missing.body.error.message).toContain("/query");
    const tooMany = await rpc(app, full, call(2, "search_docs", { query: "x", limit: 21 }));
    expect(tooMany.body.error.code).toBe(-32602);
    expect(tooMany.body.error.message).toContain("/limit");
    const notObject = await rpc(app, full, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "search_docs", arguments: [1] } });
    expect(notObject.body.error.code).toBe(-32602);
  });

  test("a tool's not_found maps to -32601 (docs/interface.md 7.1)", async () => {
    const { body } = await rpc(app, full, call(1, "read_doc", { id: crypto.randomUUID() }));
    expect(body.error.code).toBe(-32601);
  });

  test("notifications → 202 with no body; a batch → an array without entries for notifications", async () => {
    const note = await rpc(app, full, { jsonrpc: "2.0", method: "notifications/initialized" });
    expect(note.res.status).toBe(202);
    expect(note.text).toBe("");
    const batch = await rpc(app, full, [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "nope" },
      { jsonrpc: "1.0", id: 3, method: "ping" },
    ]);
    expect(batch.res.status).toBe(200);
    expect(batch.body).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found: nope" } },
      { jsonrpc: "2.0", id: 3, error: { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0".' } },
    ]);
    const allNotes = await rpc(app, full, [
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: {} },
    ]);
    expect(allNotes.res.status).toBe(202);
    expect((await rpc(app, full, [])).body.error.code).toBe(-32600);
  });

  test("an unknown MCP-Protocol-Version → 400; known or missing are accepted", async () => {
    expect((await rpc(app, full, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-protocol-version": "1999-01-01" })).res.status).toBe(400);
    expect((await rpc(app, full, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-protocol-version": "2025-06-18" })).res.status).toBe(200);
  });

  test("the body limit is 1 MiB: exactly at it is read, one byte over is 413", async () => {
    const padded = (size: number) => {
      const head = '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"';
      const tail = '"}}';
      return head + "x".repeat(size - head.length - tail.length) + tail;
    };
    expect((await rpc(app, full, padded(1024 * 1024))).res.status).toBe(200);
    const over = await rpc(app, full, padded(1024 * 1024 + 1));
    expect(over.res.status).toBe(413);
    expect(over.body.error.code).toBe(-32600);
  });
});

describe("tools/list and tools/call", () => {
  test("tools/call returns exactly one text block with 2-space JSON", async () => {
    const { body } = await rpc(app, full, call(1, "search_docs", { query: "when does my order ship" }));
    expect(body.result.isError).toBe(false);
    expect(body.result.content).toHaveLength(1);
    const value = JSON.parse(body.result.content[0].text);
    expect(body.result.content[0].text).toBe(JSON.stringify(value, null, 2));
    expect(value.results.map((r: { title: string }) => r.title)).toEqual(["Shipping times"]); // drafts never surface
  });

  test("scope filtering: a read-only token sees no write tools and gets -32002 / 403 insufficient_scope calling one", async () => {
    const list = await rpc(app, readOnly, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    const names = list.body.result.tools.map((t: { name: string }) => t.name);
    expect(names).toContain("search_docs");
    expect(names).toContain("data_get_user");
    expect(names).not.toContain("data_update_user");
    const denied = await rpc(app, readOnly, call(2, "data_update_user", { user_id: "x", name: "y" }));
    expect(denied.res.status).toBe(403);
    expect(denied.body.error.code).toBe(-32002);
    expect(denied.body.error.message).toContain("lacks the data:write scope");
    expect(denied.res.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    // The scopes held plus the one lacking (2025-11-25 "Scope Challenge Handling"): test/e2e/scope-hint.test.ts.
    const asked = /scope="([^"]*)"/.exec(denied.res.headers.get("www-authenticate")!)![1]!.split(" ");
    expect(asked).toContain("data:write");
    expect(asked).toContain("docs:read");
  });

  test("every tool carries name, description, an object inputSchema and destructiveHint", async () => {
    const { body } = await rpc(app, full, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    for (const tool of body.result.tools) {
      expect(typeof tool.description).toBe("string");
      expect(tool.inputSchema.type).toBe("object");
      expect(typeof tool.annotations.destructiveHint).toBe("boolean");
    }
  });
});

describe("customer binding (_meta)", () => {
  let alice: string;
  let bob: string;
  let foreign: string;

  beforeAll(async () => {
    const rows = await app.deps.db
      .insert(endUsers)
      .values([
        { orgId: org.org_id, externalId: "u-alice", email: "alice@example.com", name: "Alice" },
        { orgId: org.org_id, externalId: "u-bob", email: "bob@example.com", name: "Bob" },
      ])
      .returning({ id: endUsers.id });
    [alice, bob] = rows.map((r) => r.id) as [string, string];
    const other = await seedOrg(app);
    const [f] = await app.deps.db
      .insert(endUsers)
      .values({ orgId: other.org_id, externalId: "u-foreign", email: "f@example.com", name: "Foreign" })
      .returning({ id: endUsers.id });
    foreign = f!.id;
  });

  test("a bound call of a data-reading tool sees only that customer", async () => {
    const all = await rpc(app, full, call(1, "data_search_users", {}));
    expect(JSON.parse(all.body.result.content[0].text).users).toHaveLength(2);
    const bound = await rpc(app, full, call(2, "data_search_users", {}, { bound_end_user_id: "u-alice" }));
    expect(JSON.parse(bound.body.result.content[0].text).users.map((u: { name: string }) => u.name)).toEqual(["Alice"]);
    const other = await rpc(app, full, call(3, "data_get_user", { user_id: bob }, { bound_email: "alice@example.com" }));
    expect(other.body.error.code).toBe(-32601);
    const self = await rpc(app, full, call(4, "data_get_user", { user_id: alice }, { bound_end_user_id: alice }));
    expect(JSON.parse(self.body.result.content[0].text).name).toBe("Alice");
  });

  test("another org's customer, an unknown id and a forged email are rejected alike", async () => {
    const answers = await Promise.all([
      rpc(app, full, call(1, "data_search_users", {}, { bound_end_user_id: foreign })),
      rpc(app, full, call(1, "data_search_users", {}, { bound_end_user_id: "u-foreign" })),
      rpc(app, full, call(1, "data_search_users", {}, { bound_end_user_id: crypto.randomUUID() })),
      rpc(app, full, call(1, "data_search_users", {}, { bound_email: "f@example.com" })),
      rpc(app, full, call(1, "data_search_users", {}, { bound_end_user_id: alice, bound_email: "bob@example.com" })),
    ]);
    for (const a of answers) expect(a.body.error).toEqual({ code: -32602, message: "Invalid params: the bound customer is not known in this organisation." });
  });

  test("every tools/call is recorded, with the bound customer, without arguments", async () => {
    await rpc(app, full, call(9, "data_get_user", { user_id: alice }, { bound_end_user_id: "u-alice" }));
    const rows = await app.deps.db.select().from(actionExecutions).where(eq(actionExecutions.boundEndUserId, alice));
    const last = rows.at(-1)!;
    expect(last).toMatchObject({ orgId: org.org_id, channel: "mcp", tool: "data_get_user", sourceKind: "builtin", outcome: "ok" });
    expect(last.clientId).toStartWith("mcp_");
    expect(typeof last.durationMs).toBe("number");
    const denied = await app.deps.db.select().from(actionExecutions).where(eq(actionExecutions.outcome, "denied"));
    expect(denied.length).toBeGreaterThan(0);
  });
});

describe("-32002 reasons, each with its own message", () => {
  test(
    "agent disabled, toggle off, destructive blocked",
    async () => {
      const o = await seedOrg(app);
      const token = (await tokensFor(app, o, "docs:read actions:read actions:write", "198.51.100.9")).accessToken;
      const session = await signIn(app, o.admin_email, o.password);
      const auth = { authorization: `Bearer ${session}` };

      // A destructive custom action is hidden and blocked until the org allows destructive tools over MCP.
      app.hosts.set("api.partner.example", ["93.184.216.34"]);
      const created = await app.request("/api/integrations/custom-actions", {
        json: {
          slug: "refund",
          description: "Refund an order",
          method: "POST",
          url: "https://api.partner.example/refund",
          destructive: true,
          input_schema: { type: "object", properties: { order: { type: "string" } } },
        },
        headers: auth,
      });
      expect(created.status).toBe(201);
      const blocked = await rpc(app, token, call(1, "custom.refund", { order: "1" }));
      expect(blocked.body.error.code).toBe(-32002);
      expect(blocked.body.error.message).toContain("blocks destructive tools over MCP");
      expect((await rpc(app, token, { jsonrpc: "2.0", id: 2, method: "tools/list" })).body.result.tools.map((t: { name: string }) => t.name)).not.toContain(
        "custom.refund",
      );
      await setFeatureFlag(app.deps, o.org_id, systemActor("test"), "mcp_destructive_tools", true);
      app.clock.advance(SNAPSHOT_TTL_MS); // changes reach the tool server within the snapshot's life
      expect((await rpc(app, token, { jsonrpc: "2.0", id: 3, method: "tools/list" })).body.result.tools.map((t: { name: string }) => t.name)).toContain(
        "custom.refund",
      );

      // Toggle off through the dashboard API.
      const agentId = o.agent_id;
      const off = await app.request(`/api/agents/${agentId}/actions`, { method: "PATCH", json: { disable: ["search_docs"] }, headers: auth });
      expect(off.status).toBe(200);
      app.clock.advance(SNAPSHOT_TTL_MS);
      const toggled = await rpc(app, token, call(4, "search_docs", { query: "x" }));
      expect(toggled.body.error.code).toBe(-32002);
      expect(toggled.body.error.message).toContain("switched off for this organisation's agent");

      // No active agent.
      const { agents } = await import("../../src/db/schema/index.ts");
      await app.deps.db.update(agents).set({ status: "disabled" }).where(eq(agents.id, agentId));
      app.clock.advance(SNAPSHOT_TTL_MS);
      const disabled = await rpc(app, token, call(5, "read_doc", { id: crypto.randomUUID() }));
      expect(disabled.body.error.code).toBe(-32002);
      expect(disabled.body.error.message).toContain("agent is disabled");
      expect((await rpc(app, token, { jsonrpc: "2.0", id: 6, method: "tools/list" })).body.result.tools).toEqual([]);
    },
    SLOW_MS,
  );

  test(
    "a member removed from the org loses access within the verified-token cache's life",
    async () => {
      const o = await seedOrg(app);
      const token = (await tokensFor(app, o, undefined, "198.51.100.10")).accessToken;
      expect((await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "ping" })).res.status).toBe(200);
      await app.deps.db.delete(memberships).where(eq(memberships.orgId, o.org_id));
      app.clock.advance(ACCESS_CACHE_TTL_MS);
      expect((await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "ping" })).res.status).toBe(401);
    },
    SLOW_MS,
  );
});
