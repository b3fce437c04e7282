// The connector client against official SDK servers of every revision, through the dashboard API,
// the outbound guard (development mode allows loopback) and our /api/mcp with the official SDK
// client: stateful SSE and JSON, stateless JSON, servers of 2025-03-26, 2025-06-18 and 2025-11-25
// (SDK 1.x), and 2026-07-28 servers built with @modelcontextprotocol/server 2.x, modern-only and
// dual-era. Each is discovered and its tools called; the revision negotiated is the newest both
// speak (server/discover first, initialize after a legacy refusal) and is what later calls use;
// a server that changes era between discovery and a call is followed both ways; an
// UnsupportedProtocolVersion answer picks the newest revision it names; a tool its
// 2026-07-28 server marks destructive goes through the same gates as ours.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { systemActor } from "../../src/kit/actor.ts";
import { setFeatureFlag } from "../../src/orgs/service.ts";
import { SNAPSHOT_TTL_MS } from "../../src/tools/registry.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { type McpFixture, modernServer, revisionServer, statefulSseServer, statelessJsonServer } from "../support/mcp-servers.ts";
import { rejectionOf } from "../support/settle.ts";
import {
  agentActions,
  connectOk,
  enableConnector,
  FLAG,
  fixtures,
  type Org,
  refreshOk,
  sdkClient,
  serverById,
  sessionOf,
  type Switchable,
  switchable,
  textOf,
} from "./helpers.ts";

const MODES = [
  { slug: "sse", make: () => statefulSseServer(), revision: "2025-11-25" },
  { slug: "ssejson", make: () => statefulSseServer({ json: true }), revision: "2025-11-25" },
  { slug: "nosess", make: () => statelessJsonServer(), revision: "2025-11-25" },
  { slug: "r0326", make: () => revisionServer("2025-03-26"), revision: "2025-03-26" },
  { slug: "r0618", make: () => revisionServer("2025-06-18"), revision: "2025-06-18" },
  { slug: "r1125", make: () => revisionServer("2025-11-25"), revision: "2025-11-25" },
  { slug: "modern", make: () => modernServer(), revision: "2026-07-28" },
  { slug: "dual", make: () => modernServer({ legacy: "stateless" }), revision: "2026-07-28" },
] as const;

let app: ServedTestApp;
let org: Org;
let auth: Record<string, string>;
let client: Client;
const running = fixtures();
const servers: Record<string, McpFixture> = {};
const ids: Record<string, string> = {};

beforeAll(async () => {
  app = await serveTestApp({ NODE_ENV: "development" });
  org = await seedOrg(app, { flags: [FLAG] }); // mcp_destructive_tools off until a test turns it on
  auth = await sessionOf(app, org);
  for (const mode of MODES) {
    servers[mode.slug] = await running.start(mode.make());
    const created = await connectOk(app, auth, { name: `Server ${mode.slug}`, slug: mode.slug, url: servers[mode.slug]!.url });
    if (created.status !== "connected") throw new Error(`${mode.slug} did not connect: ${created.error}`);
    ids[mode.slug] = created.id;
  }
  client = await sdkClient(app.url, org);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await running.stopAll();
  await app.close();
});

const posts = (fixture: McpFixture) => fixture.requests.filter((r) => r.method === "POST");
const methodOf = (r: { body: unknown }) => (r.body as { method?: string } | undefined)?.method;

describe("every mode discovers and calls tools, in the newest revision both speak", () => {
  for (const mode of MODES) {
    test(`${mode.slug}: negotiated ${mode.revision}, tools discovered, echo called through /api/mcp`, async () => {
      const fixture = servers[mode.slug]!;
      const view = (await serverById(app, auth, ids[mode.slug]!))!;
      expect(view.status).toBe("connected");
      expect(view.server_info.protocolVersion).toBe(mode.revision);
      expect(view.discovered_tools.map((t) => t.name)).toContain("echo");
      // Discovery began with the server/discover probe.
      expect(methodOf(posts(fixture)[0]!)).toBe("server/discover");
      expect(posts(fixture)[0]!.headers["mcp-protocol-version"]).toBe("2026-07-28");

      await enableConnector(app, auth, org.agent_id, ids[mode.slug]!);
      const before = fixture.requests.length;
      const result = await client.callTool({ name: `mcp.${mode.slug}.echo`, arguments: { text: `hello ${mode.slug}` } });
      expect(result.isError).toBe(false);
      expect(textOf(result)).toBe(`hello ${mode.slug}`);
      const sent = fixture.requests.slice(before).filter((r) => r.method === "POST");
      const call = sent.find((r) => methodOf(r) === "tools/call")!;
      expect(call.headers["mcp-protocol-version"]).toBe(mode.revision);
      // The call used the revision discovery learnt: no probe of its own.
      expect(sent.map(methodOf)).not.toContain("server/discover");
      if (mode.revision === "2026-07-28") {
        // Stateless: no initialize ever, each request self-contained (2026-07-28 streamable-http.mdx, "Request Metadata").
        expect(fixture.counters.initialize ?? 0).toBe(0);
        expect(sent.map(methodOf)).toEqual(["tools/call"]);
        expect(call.headers["mcp-method"]).toBe("tools/call");
        expect(call.headers["mcp-name"]).toBe("echo");
        expect(call.headers["mcp-session-id"]).toBeUndefined();
        const meta = (call.body as { params: { _meta: Record<string, unknown> } }).params._meta;
        expect(meta["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
        expect(meta["io.modelcontextprotocol/clientCapabilities"]).toEqual({});
        expect(meta["io.modelcontextprotocol/clientInfo"]).toMatchObject({ name: "svc-agents" });
      } else {
        expect(sent.map(methodOf)).toContain("initialize");
        const init = sent.find((r) => methodOf(r) === "initialize")!;
        expect((init.body as { params: { protocolVersion: string } }).params.protocolVersion).toBe("2025-11-25"); // we propose the newest, the server picks
        expect(call.headers["mcp-method"]).toBeUndefined();
      }
    });
  }
});

describe("2026-07-28 specifics", () => {
  test("a tool parameter marked x-mcp-header is mirrored as Mcp-Param-*, Base64-encoded when it is not plain ASCII; the SDK server checks it", async () => {
    const fixture = servers.modern!;
    for (const region of ["eu-west-1", "Zürich "]) {
      const before = fixture.requests.length;
      const result = await client.callTool({ name: "mcp.modern.in_region", arguments: { region, text: "ran" } });
      expect(result.isError).toBe(false);
      expect(textOf(result)).toBe(`ran in ${region}`);
      const call = fixture.requests.slice(before).find((r) => methodOf(r) === "tools/call")!;
      expect(call.headers["mcp-param-region"]).toBe(region === "eu-west-1" ? region : `=?base64?${Buffer.from(region).toString("base64")}?=`);
    }
  });

  test("a tool the 2026-07-28 server marks destructive: off for agents by default, refused over MCP until mcp_destructive_tools, then called", async () => {
    const actions = await agentActions(app, auth, org.agent_id);
    expect(actions.find((a) => a.id === "mcp.modern.delete_everything")).toMatchObject({ destructive: true });
    expect(actions.find((a) => a.id === "mcp.modern.echo")).toMatchObject({ destructive: false });
    const listed = (await client.listTools()).tools.filter((t) => t.name.startsWith("mcp.modern."));
    expect(listed.map((t) => t.name)).not.toContain("mcp.modern.delete_everything");
    expect(listed.find((t) => t.name === "mcp.modern.echo")!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    const calls = servers.modern!.calls.length;
    const refused = await rejectionOf(client.callTool({ name: "mcp.modern.delete_everything", arguments: {} }));
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).message).toContain("destructive");
    expect(servers.modern!.calls.length).toBe(calls); // never reached the server
    await setFeatureFlag(app.deps, org.org_id, systemActor("test"), "mcp_destructive_tools", true);
    app.clock.advance(SNAPSHOT_TTL_MS);
    expect((await client.listTools()).tools.find((t) => t.name === "mcp.modern.delete_everything")!.annotations).toMatchObject({
      destructiveHint: true,
      readOnlyHint: false,
    });
    expect(textOf(await client.callTool({ name: "mcp.modern.delete_everything", arguments: {} }))).toBe("deleted everything");
  });
});

describe("a server that changes era between discovery and a call", () => {
  let proxy: Switchable;
  let legacy: McpFixture;
  let modern: McpFixture;
  let id: string;

  beforeAll(async () => {
    legacy = await running.start(revisionServer("2025-06-18"));
    modern = await running.start(modernServer());
    proxy = await running.start(switchable(legacy));
    const created = await connectOk(app, auth, { name: "Moving", slug: "moving", url: proxy.url });
    id = created.id;
    await enableConnector(app, auth, org.agent_id, id);
  });

  test("known as 2025-06-18, now 2026-07-28 only: initialize is refused with the versions it speaks, and the call goes stateless", async () => {
    expect((await serverById(app, auth, id))!.server_info.protocolVersion).toBe("2025-06-18");
    proxy.use(modern);
    app.clock.advance(SNAPSHOT_TTL_MS);
    expect(textOf(await client.callTool({ name: "mcp.moving.echo", arguments: { text: "forward" } }))).toBe("forward");
    expect(modern.calls.at(-1)!.tool).toBe("echo");
    expect(modern.counters.initialize).toBe(1); // the refused one
    expect(modern.counters["server/discover"]).toBe(1);
    expect((await refreshOk(app, auth, id)).server_info.protocolVersion).toBe("2026-07-28");
  });

  test("known as 2026-07-28, now a 2025 server: the stateless call is refused without a modern error, initialize follows, the call is retried once", async () => {
    proxy.use(legacy);
    app.clock.advance(SNAPSHOT_TTL_MS);
    const calls = legacy.calls.length;
    expect(textOf(await client.callTool({ name: "mcp.moving.echo", arguments: { text: "back" } }))).toBe("back");
    expect(legacy.calls.length).toBe(calls + 1);
  });
});

describe("an UnsupportedProtocolVersion answer to server/discover", () => {
  test("names only 2025-06-18: no fallback guesswork, initialize proposes exactly that revision", async () => {
    const upstream = await running.start(revisionServer("2025-06-18"));
    const proposed: string[] = [];
    // In front of the SDK server: server/discover answered as a server that speaks only 2025-06-18 would (2026-07-28 versioning).
    const front = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        const text = await req.text();
        const body = JSON.parse(text || "{}") as { id?: number; method?: string; params?: { protocolVersion?: string } };
        if (body.method === "server/discover")
          return Response.json(
            {
              jsonrpc: "2.0",
              id: body.id ?? null,
              error: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2025-06-18"], requested: "2026-07-28" } },
            },
            { status: 400 },
          );
        if (body.method === "initialize") proposed.push(body.params!.protocolVersion!);
        const headers = new Headers(req.headers);
        headers.delete("host");
        return fetch(upstream.url, { method: req.method, headers, body: text || undefined });
      },
    });
    await running.start({ stop: () => void front.stop(true) });
    const created = await connectOk(app, auth, { name: "Named", slug: "named", url: `http://127.0.0.1:${front.port}/mcp` });
    expect(created.status).toBe("connected");
    expect(proposed).toEqual(["2025-06-18"]);
    expect((await serverById(app, auth, created.id))!.server_info.protocolVersion).toBe("2025-06-18");
  });
});
