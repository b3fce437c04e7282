// Kept handshakes of sessionless servers (src/connectors/calls.ts, McpSession.resume): a server that
// issued no Mcp-Session-Id is called again on its earlier handshake by read-only or idempotent
// tools (one request per call), for as long as the org's tool snapshot lives (SNAPSHOT_TTL_MS, or
// until a change drops it); destructive calls and servers with sessions keep a fresh session per
// call (docs/interface.md B.7); a refusal (the server started keeping sessions) handshakes again and retries
// once (B.6). Everything through our /api/mcp with the official SDK client, against real SDK
// servers; every test starts on a new snapshot (the test clock moved past its TTL).
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { SNAPSHOT_TTL_MS } from "../../src/tools/registry.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { type McpFixture, statefulSseServer, statelessJsonServer } from "../support/mcp-servers.ts";
import { connectOk, enableConnector, FLAG, fixtures, type Org, refreshOk, sdkClient, sessionOf, type Switchable, switchable, textOf } from "./helpers.ts";

/** A sessionless SDK server (a new server per POST, JSON answers) with a destructive tool and a read-only one. */
function sessionlessWithDestructive() {
  const counters: Record<string, number> = {};
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = (await req
        .clone()
        .json()
        .catch(() => undefined)) as { method?: string } | undefined;
      if (body?.method) counters[body.method] = (counters[body.method] ?? 0) + 1;
      const mcp = new McpServer({ name: "sessionless-destructive", version: "1.0.0" });
      mcp.registerTool("wipe", { description: "Wipes (a fixture).", annotations: { destructiveHint: true } }, async () => ({
        content: [{ type: "text", text: "wiped" }],
      }));
      mcp.registerTool("look", { description: "Looks.", annotations: { readOnlyHint: true } }, async () => ({ content: [{ type: "text", text: "looked" }] }));
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await mcp.connect(transport);
      return transport.handleRequest(req);
    },
  });
  return { url: `http://127.0.0.1:${server.port}/mcp`, counters, stop: () => void server.stop(true) };
}

let app: ServedTestApp;
let org: Org;
let auth: Record<string, string>;
let client: Client;
const running = fixtures();
let stateless: McpFixture;
let stateful: McpFixture & { sessions(): number };
let later: McpFixture & { sessions(): number };
let destructive: ReturnType<typeof sessionlessWithDestructive>;
let proxy: Switchable;
const ids: Record<string, string> = {};

beforeAll(async () => {
  app = await serveTestApp({ NODE_ENV: "development" });
  org = await seedOrg(app, { flags: [FLAG, "mcp_destructive_tools"] });
  auth = await sessionOf(app, org);
  stateless = await running.start(statelessJsonServer());
  stateful = await running.start(statefulSseServer());
  later = await running.start(statefulSseServer());
  destructive = await running.start(sessionlessWithDestructive());
  // Starts in front of a sessionless server; a test moves it to one that keeps sessions.
  proxy = await running.start(switchable(await running.start(statelessJsonServer())));
  for (const [slug, url] of [
    ["nosess", stateless.url],
    ["sess", stateful.url],
    ["wipes", destructive.url],
    ["moving", proxy.url],
  ] as const) {
    const created = await connectOk(app, auth, { name: `Server ${slug}`, slug, url });
    if (created.status !== "connected") throw new Error(`${slug} did not connect: ${created.error}`);
    ids[slug] = created.id;
    await enableConnector(app, auth, org.agent_id, created.id);
  }
  client = await sdkClient(app.url, org);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await running.stopAll();
  await app.close();
});

beforeEach(() => app.clock.advance(SNAPSHOT_TTL_MS));

const call = async (name: string, args: Record<string, unknown> = {}) => {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBe(false);
  return textOf(result);
};
const count = (fixture: { counters: Record<string, number> }, method: string) => fixture.counters[method] ?? 0;

describe("read-only calls on a sessionless server", () => {
  test("one handshake, then one request per call; each call still carries its arguments and the negotiated version", async () => {
    const before = { init: count(stateless, "initialize"), calls: count(stateless, "tools/call"), requests: stateless.requests.length };
    for (const text of ["one", "two", "three"]) expect(await call("mcp.nosess.echo", { text })).toBe(text);
    expect(count(stateless, "initialize") - before.init).toBe(1);
    expect(count(stateless, "tools/call") - before.calls).toBe(3);
    expect(stateless.requests.length - before.requests).toBe(2 + 3); // initialize, initialized, three calls
    const last = stateless.requests.at(-1)!;
    expect(last.body).toMatchObject({ method: "tools/call", params: { name: "echo", arguments: { text: "three" } } });
    expect(last.headers["mcp-protocol-version"]).toBeString();
    expect(last.headers["mcp-session-id"]).toBeUndefined();
  });

  test("the kept handshake lives with the org's tool snapshot: a new snapshot handshakes again", async () => {
    const before = count(stateless, "initialize");
    await call("mcp.nosess.echo", { text: "a" });
    await call("mcp.nosess.echo", { text: "b" });
    expect(count(stateless, "initialize") - before).toBe(1);
    app.clock.advance(SNAPSHOT_TTL_MS);
    await call("mcp.nosess.echo", { text: "c" });
    await call("mcp.nosess.echo", { text: "d" });
    expect(count(stateless, "initialize") - before).toBe(2);
  });

  test("a refresh of the connector (the row changes) drops the kept handshake", async () => {
    await call("mcp.nosess.echo", { text: "a" });
    const before = count(stateless, "initialize");
    await refreshOk(app, auth, ids.nosess!);
    expect(count(stateless, "initialize") - before).toBe(1); // the refresh's own discovery
    await call("mcp.nosess.echo", { text: "b" });
    expect(count(stateless, "initialize") - before).toBe(2);
    await call("mcp.nosess.echo", { text: "c" });
    expect(count(stateless, "initialize") - before).toBe(2);
  });

  test("concurrent calls share the kept handshake and each gets its own answer", async () => {
    await call("mcp.nosess.echo", { text: "warm" });
    const before = count(stateless, "initialize");
    const texts = Array.from({ length: 8 }, (_, i) => `parallel ${i}`);
    expect(await Promise.all(texts.map((text) => call("mcp.nosess.echo", { text })))).toEqual(texts);
    expect(count(stateless, "initialize") - before).toBe(0);
  });
});

describe("what keeps a fresh session per call", () => {
  test("a destructive tool on the same sessionless server: a handshake every call, while its read-only tool reuses one", async () => {
    const before = count(destructive, "initialize");
    expect(await call("mcp.wipes.wipe")).toBe("wiped");
    expect(await call("mcp.wipes.wipe")).toBe("wiped");
    expect(count(destructive, "initialize") - before).toBe(2);
    expect(await call("mcp.wipes.look")).toBe("looked"); // on the handshake the last wipe made
    expect(await call("mcp.wipes.look")).toBe("looked");
    expect(count(destructive, "initialize") - before).toBe(2);
  });

  test("a server that issues session ids: a session per call, each ended with DELETE (B.7)", async () => {
    const before = { init: count(stateful, "initialize"), deletes: count(stateful, "deletes") };
    for (const text of ["x", "y", "z"]) expect(await call("mcp.sess.echo", { text })).toBe(text);
    expect(count(stateful, "initialize") - before.init).toBe(3);
    expect(count(stateful, "deletes") - before.deletes).toBe(3);
    expect(stateful.sessions()).toBe(0);
  });

  test("a sessionless server that starts keeping sessions: the refused call handshakes again and retries once, and the next calls use sessions", async () => {
    expect(await call("mcp.moving.echo", { text: "before" })).toBe("before"); // handshake kept
    proxy.use(later);
    const before = { init: count(later, "initialize"), calls: count(later, "tools/call") };
    expect(await call("mcp.moving.echo", { text: "after" })).toBe("after");
    expect(count(later, "initialize") - before.init).toBe(1);
    expect(count(later, "tools/call") - before.calls).toBe(1); // the refused request never reached a session
    expect(await call("mcp.moving.echo", { text: "again" })).toBe("again");
    expect(count(later, "initialize") - before.init).toBe(2); // no kept handshake for a server with sessions
    expect(later.sessions()).toBe(0);
  });
});
