// Hostile answers from upstream ("any other hostile shape"): a custom action's partner
// API answering JSON nested 100,000 levels gives the caller a result (the text as is), not a call
// that holds the whole process for its 30 s deadline (Bun's JSON.stringify of such a value blocks
// for over ten seconds before it throws); a NUL escape in its JSON is its data, passed on.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setFeatureFlag } from "../../../src/orgs/service.ts";
import { systemActor } from "../../../src/kit/actor.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../../support/app.ts";
import { rpc, tokensFor } from "../../support/oauth.ts";

let app: TestApp;
let token: string;
let partner: ReturnType<typeof Bun.serve>;
const DEEP = "[".repeat(100_000) + "]".repeat(100_000);

beforeAll(async () => {
  // Development mode: the partner API is a loopback server standing in for a public one.
  app = await createTestApp({ NODE_ENV: "development" });
  const org = await seedOrg(app);
  await setFeatureFlag(app.deps, org.org_id, systemActor("test"), "mcp_destructive_tools", true);
  const session = await signIn(app, org.admin_email, org.password);
  token = (await tokensFor(app, org, "actions:read actions:write")).accessToken;
  partner = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/deep") return new Response(DEEP, { headers: { "content-type": "application/json" } });
      return new Response('{"name":"a\\u0000b","ok":true}', { headers: { "content-type": "application/json" } });
    },
  });
  app.hosts.set("api.partner.example", ["127.0.0.1"]);
  for (const slug of ["deep", "nul"]) {
    const res = await app.request("/api/integrations/custom-actions", {
      json: { slug, description: slug, method: "GET", url: `http://api.partner.example:${partner.port}/${slug}`, destructive: false },
      headers: { authorization: `Bearer ${session}` },
    });
    expect(res.status).toBe(201);
  }
}, 30_000);
afterAll(async () => {
  partner.stop(true);
  await app.close();
});

const call = (name: string) => rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } });

describe("custom action answers", () => {
  test("JSON nested 100,000 levels: a result, quickly", async () => {
    const started = performance.now();
    const { res, body } = await call("custom.deep");
    expect(res.status).toBe(200);
    expect(body.error).toBeUndefined();
    expect(body.result.content[0].text.length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(2000);
    expect((await app.request("/healthz")).status).toBe(200);
  });

  test("JSON with a NUL escape is someone else's data: parsed and passed on", async () => {
    const { res, body } = await call("custom.nul");
    expect(res.status).toBe(200);
    expect(body.error).toBeUndefined();
    expect(body.result.content[0].text).toContain('"ok": true');
  });
});

describe("a connected MCP server answering a tools/call with a result nested 100,000 levels", () => {
  let dev: TestApp;
  let mcp: ReturnType<typeof Bun.serve>;
  let mcpToken: string;

  beforeAll(async () => {
    dev = await createTestApp({ NODE_ENV: "development" });
    const org = await seedOrg(dev, { flags: ["mcp_external_servers"] });
    const session = { authorization: `Bearer ${await signIn(dev, org.admin_email, org.password)}` };
    // A plain JSON (no SSE) MCP server: one read-only tool whose result is the hostile shape.
    mcp = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });
        const message = (await request.json()) as { id?: number; method: string };
        const reply = (result: string) =>
          new Response(`{"jsonrpc":"2.0","id":${message.id},"result":${result}}`, { headers: { "content-type": "application/json" } });
        if (message.method === "initialize")
          return reply('{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"deep","version":"1"}}');
        if (message.id === undefined) return new Response(null, { status: 202 });
        if (message.method === "tools/list")
          return reply('{"tools":[{"name":"deep","description":"d","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}');
        return reply(`{"content":[{"type":"text","text":"x"}],"structuredContent":{"v":${DEEP}}}`);
      },
    });
    const connect = await dev.request("/api/integrations/mcp/servers", {
      json: { name: "Deep", slug: "deep", url: `http://127.0.0.1:${mcp.port}/mcp`, auth_method: "none" },
      headers: session,
    });
    const created = (await connect.json()) as { id: string; status: string; error?: string };
    expect([created.status, created.error ?? null]).toEqual(["connected", null]);
    const list = (await (await dev.request("/api/integrations/mcp/servers", { headers: session })).json()) as {
      servers: { id: string; discovered_tools: { action_id: string }[] }[];
    };
    const actions = list.servers.find((s) => s.id === created.id)!.discovered_tools.map((t) => t.action_id);
    const enable = await dev.request(`/api/agents/${org.agent_id}/actions`, { method: "PATCH", json: { enable: actions }, headers: session });
    expect(enable.status).toBe(200);
    mcpToken = (await tokensFor(dev, org, "actions:read actions:write")).accessToken;
  }, 30_000);
  afterAll(async () => {
    mcp.stop(true);
    await dev.close();
  });

  test("the call fails fast as the upstream's fault; the process is not held", async () => {
    const started = performance.now();
    const { res, body } = await rpc(dev, mcpToken, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "mcp.deep.deep", arguments: {} } });
    expect(res.status).toBeLessThan(500);
    expect(body.result?.isError === true || body.error !== undefined).toBe(true);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
