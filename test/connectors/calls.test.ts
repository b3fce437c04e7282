// Connector tools called end to end (docs/interface.md 4.2, 6, docs/interface.md 8.3; docs/interface.md B): the official SDK client,
// signed in through our OAuth flow, calls `mcp.<slug>.<tool>` on OUR /api/mcp; we call the real
// third-party server with the customer binding in `_meta.bound_end_user_id`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { actionExecutions } from "../../src/db/schema/index.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import {
  BAD_NAMES,
  badNamesServer,
  bearerServer,
  everythingServer,
  forgetfulServer,
  type McpFixture,
  notifyingServer,
  paginatingServer,
  statefulSseServer,
  statelessJsonServer,
} from "../support/mcp-servers.ts";
import { addEndUser, connectOk, enableConnector, FLAG, fixtures, type Org, sdkClient, sessionOf, type Switchable, switchable, textOf } from "./helpers.ts";

let app: ServedTestApp;
let org: Org;
let auth: Record<string, string>;
let client: Client;
let customer: Awaited<ReturnType<typeof addEndUser>>;
const EXTERNAL_ID = "cust-ext-42";
const BEARER_TOKEN = `bearer-${crypto.randomUUID()}`;
const running = fixtures();
const servers: Record<string, McpFixture> = {};
const connectorIds: Record<string, string> = {};
let forgetfulProxy: Switchable;

beforeAll(async () => {
  app = await serveTestApp({ NODE_ENV: "development" });
  org = await seedOrg(app, { flags: [FLAG, "mcp_destructive_tools"] });
  auth = await sessionOf(app, org);
  customer = await addEndUser(app, org.org_id, EXTERNAL_ID);
  const started = await Promise.all([
    running.start(statefulSseServer()),
    running.start(statelessJsonServer()),
    running.start(paginatingServer()),
    running.start(notifyingServer()),
    running.start(badNamesServer()),
    running.start(statefulSseServer()), // behind the forgetful proxy: the same tools as forgetfulServer

    running.start(bearerServer({ token: BEARER_TOKEN })),
    running.start(everythingServer()),
  ]);
  const slugs = ["stateful", "stateless", "pages", "chatty", "names", "forgetful", "bearer", "everything"];
  slugs.forEach((slug, i) => (servers[slug] = started[i]!));
  forgetfulProxy = await running.start(switchable(servers.forgetful!));
  for (const slug of slugs) {
    const bearer = slug === "bearer" ? { auth_method: "bearer", credentials: { token: BEARER_TOKEN } } : {};
    const url = slug === "forgetful" ? forgetfulProxy.url : servers[slug]!.url;
    const created = await connectOk(app, auth, { name: `Server ${slug}`, slug, url, ...bearer });
    if (created.status !== "connected") throw new Error(`${slug} did not connect: ${created.error}`);
    connectorIds[slug] = created.id;
    await enableConnector(app, auth, org.agent_id, created.id);
  }
  client = await sdkClient(app.url, org);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await running.stopAll();
  await app.close();
});

const bound = { bound_end_user_id: EXTERNAL_ID };
const call = (name: string, args: Record<string, unknown>, meta: Record<string, unknown> | null = bound) =>
  client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) });

describe("tools/list through the SDK client", () => {
  test("every enabled connector tool as mcp.<slug>.<tool>, with its destructiveHint", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of [
      "mcp.stateful.echo",
      "mcp.stateful.add",
      "mcp.stateless.whoami",
      "mcp.pages.tool_000",
      "mcp.pages.tool_249",
      "mcp.chatty.echo",
      `mcp.names.${"A".repeat(64)}`,
      "mcp.bearer.secret_echo",
      "mcp.everything.echo",
    ])
      expect(byName.has(name)).toBe(true);
    expect(byName.get("mcp.stateful.echo")!.annotations?.destructiveHint).toBe(false);
    expect(byName.get("mcp.stateful.no_hints")!.annotations?.destructiveHint).toBe(true);
    expect(byName.get("mcp.stateful.delete_everything")!.annotations?.destructiveHint).toBe(true);
    expect(byName.get("mcp.stateful.add")!.inputSchema).toMatchObject({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } } });
    expect(tools.filter((t) => t.name.startsWith("mcp.pages."))).toHaveLength(250);
    expect(tools.some((t) => t.name === "mcp.names.dup")).toBe(true);
    expect(tools.some((t) => t.name.startsWith("mcp.names.bad"))).toBe(false);
  });
});

describe("tools/call with the customer binding (docs/interface.md 4.2 _meta, docs/interface.md 8.3)", () => {
  test("stateful SSE server: result passed through, binding received upstream, session closed", async () => {
    const server = servers.stateful as McpFixture & { sessions(): number };
    const result = await call("mcp.stateful.echo", { text: "hello over SSE" });
    expect(result.isError).toBe(false);
    expect(textOf(result)).toBe("hello over SSE");
    const upstream = server.calls.at(-1)!;
    expect(upstream).toMatchObject({ tool: "echo", args: { text: "hello over SSE" } });
    expect((upstream.meta as Record<string, unknown>).bound_end_user_id).toBe(EXTERNAL_ID);
    expect(textOf(await call("mcp.stateful.add", { a: 2, b: 40 }))).toBe("42");
    expect(server.sessions()).toBe(0); // every operation ended its session (docs/interface.md B.7)
    // The request carried the negotiated version and the session id after initialize (docs/interface.md 8.3).
    const callRequest = server.requests.find((r) => (r.body as { method?: string })?.method === "tools/call")!;
    expect(callRequest.headers["mcp-protocol-version"]).toBeString();
    expect(callRequest.headers["mcp-session-id"]).toBeString();
  });

  test("stateless JSON server: whoami sees exactly the binding", async () => {
    const server = servers.stateless!;
    const result = await call("mcp.stateless.whoami", {});
    expect(result.isError).toBe(false);
    expect(JSON.parse(textOf(result))).toMatchObject({ bound_end_user_id: EXTERNAL_ID });
    expect((server.calls.at(-1)!.meta as Record<string, unknown>).bound_end_user_id).toBe(EXTERNAL_ID);
    expect(textOf(await call("mcp.stateless.echo", { text: "json" }))).toBe("json");
  });

  test("a call without _meta sends no binding", async () => {
    const server = servers.stateless!;
    await call("mcp.stateless.echo", { text: "anonymous" }, null);
    const meta = server.calls.at(-1)!.meta as Record<string, unknown> | undefined;
    expect(meta?.bound_end_user_id).toBeUndefined();
  });

  test("an unknown customer is refused (-32602) and nothing reaches the server", async () => {
    const server = servers.stateless!;
    const before = server.calls.length;
    const error = await call("mcp.stateless.echo", { text: "x" }, { bound_end_user_id: "nobody-like-this" }).catch((e) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect(server.calls.length).toBe(before);
  });

  test("paginating server: the last page's tool is callable", async () => {
    const server = servers.pages!;
    const result = await call("mcp.pages.tool_249", { text: "page three" });
    expect(result.isError).toBe(false);
    expect(JSON.parse(textOf(result))).toEqual({ text: "page three" });
    expect(server.calls.at(-1)).toMatchObject({ tool: "tool_249", meta: { bound_end_user_id: EXTERNAL_ID } });
  });

  test("notifying server: notifications and a ping before the result are tolerated", async () => {
    const server = servers.chatty!;
    const result = await call("mcp.chatty.echo", { text: "through the chatter" });
    expect(result.isError).toBe(false);
    expect(textOf(result)).toBe("through the chatter");
    expect((server.calls.at(-1)!.meta as Record<string, unknown>).bound_end_user_id).toBe(EXTERNAL_ID);
  });

  test("bad-names server: the kept tools, including the 64-character name, are callable", async () => {
    const server = servers.names!;
    const long = BAD_NAMES.valid[3]!;
    const result = await call(`mcp.names.${long}`, { text: "long name" });
    expect(result.isError).toBe(false);
    expect(server.calls.at(-1)).toMatchObject({ tool: long, args: { text: "long name" }, meta: { bound_end_user_id: EXTERNAL_ID } });
    expect((await call("mcp.names.ok_tool", { text: "ok" })).isError).toBe(false);
  });

  test("bearer server: the token is sent, the call works", async () => {
    const server = servers.bearer!;
    const result = await call("mcp.bearer.secret_echo", { text: "authorised" });
    expect(result.isError).toBe(false);
    expect(textOf(result)).toBe("authorised");
    const sent = server.requests.filter((r) => r.method === "POST").at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${BEARER_TOKEN}`);
    expect(server.counters.unauthorized ?? 0).toBe(0);
    expect((server.calls.at(-1)!.meta as Record<string, unknown>).bound_end_user_id).toBe(EXTERNAL_ID);
  });

  test("server-everything (the reference server): echo and get-sum end to end", async () => {
    const server = servers.everything!;
    const echo = await call("mcp.everything.echo", { message: "hello everything" });
    expect(echo.isError).toBe(false);
    expect(textOf(echo)).toContain("hello everything");
    expect(server.calls.at(-1)).toEqual({
      tool: "echo",
      args: { message: "hello everything" },
      meta: { bound_end_user_id: EXTERNAL_ID, bound_end_user_verified: true },
    });
    const sum = await call("mcp.everything.get-sum", { a: 19, b: 23 });
    expect(sum.isError).toBe(false);
    expect(textOf(sum)).toContain("42");
  });

  test("every call is recorded against the connector and the bound customer", async () => {
    const rows = await app.deps.db
      .select()
      .from(actionExecutions)
      .where(and(eq(actionExecutions.orgId, org.org_id), eq(actionExecutions.tool, "mcp.stateful.echo")));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]).toMatchObject({ channel: "mcp", sourceKind: "connector", sourceId: connectorIds.stateful, boundEndUserId: customer.id, outcome: "ok" });
  });
});

describe("lost sessions on a call (docs/interface.md B.6)", () => {
  // The connector was discovered through a proxy; each test puts a fresh forgetfulServer behind it,
  // which forgets the session once, right after notifications/initialized: the tools/call meets 404.
  test("a read-only tool is retried after re-initialising: it succeeds and runs once", async () => {
    const server = await running.start(forgetfulServer());
    forgetfulProxy.use(server);
    const result = await call("mcp.forgetful.echo", { text: "again" });
    expect(result.isError).toBe(false);
    expect(textOf(result)).toBe("again");
    expect(server.counters).toMatchObject({ forgets: 1, unknown_session: 1, initialize: 2, "tools/call": 1 });
    expect(server.calls).toMatchObject([{ tool: "echo", args: { text: "again" }, meta: { bound_end_user_id: EXTERNAL_ID } }]);
  });

  test("a destructive tool is not retried: isError, and it never ran", async () => {
    const server = await running.start(forgetfulServer());
    forgetfulProxy.use(server);
    const result = await call("mcp.forgetful.delete_everything", { confirm: true });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("mcp.forgetful.delete_everything");
    // One tools/call POST met the 404 (the closing DELETE meets it too, which is ignored).
    expect(server.requests.filter((r) => r.method === "POST" && (r.body as { method?: string })?.method === "tools/call")).toHaveLength(1);
    expect(server.counters.unknown_session).toBe(2);
    expect(server.counters.initialize).toBe(1); // no re-initialisation, no retry
    expect(server.counters["tools/call"]).toBeUndefined();
    expect(server.calls).toEqual([]);
    const [audit] = await app.deps.db
      .select()
      .from(actionExecutions)
      .where(and(eq(actionExecutions.orgId, org.org_id), eq(actionExecutions.tool, "mcp.forgetful.delete_everything")));
    expect(audit).toMatchObject({ outcome: "tool_error", sourceId: connectorIds.forgetful });
  });
});
