// Discovery (docs/interface.md 2.2, 3, docs/interface.md 6, docs/interface.md 8.3; docs/interface.md B): real SDK servers connected and their tools
// classified — hints, pagination, chatter before the response, bad names, redirects, lost
// sessions — and a refresh that replaces the snapshot everywhere: the list, the agent toggles and
// the tool server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, like } from "drizzle-orm";
import { agentActionToggles } from "../../src/db/schema/index.ts";
import { discover } from "../../src/connectors/discovery.ts";
import { claimDueConnectors } from "../../src/connectors/scheduler.ts";
import { systemActor } from "../../src/kit/actor.ts";
import { setFeatureFlag } from "../../src/orgs/service.ts";
import { SNAPSHOT_TTL_MS } from "../../src/tools/registry.ts";
import type { TestApp } from "../support/app.ts";
import {
  BAD_NAMES,
  badNamesServer,
  forgetfulServer,
  notifyingServer,
  paginatingServer,
  redirectingServer,
  statefulSseServer,
  statelessJsonServer,
} from "../support/mcp-servers.ts";
import { rpc, tokensFor } from "../support/oauth.ts";
import { agentActions, api, connectOk, connectorRow, devApp, enableActions, fixtures, type Org, refreshOk, serverById, switchable } from "./helpers.ts";

let app: TestApp;
let org: Org;
let auth: Record<string, string>;
let token: string;
const running = fixtures();

beforeAll(async () => {
  ({ app, org, auth } = await devApp());
  token = (await tokensFor(app, org, "actions:read actions:write")).accessToken;
});
afterAll(async () => {
  await running.stopAll();
  await app.close();
});

async function mcpToolNames(prefix = "mcp."): Promise<string[]> {
  const { body } = await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/list" });
  return (body.result.tools as { name: string }[]).map((t) => t.name).filter((n) => n.startsWith(prefix));
}

async function mcpTools(prefix: string) {
  const { body } = await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/list" });
  return (body.result.tools as { name: string; annotations: { destructiveHint: boolean } }[]).filter((t) => t.name.startsWith(prefix));
}

describe("hints (docs/interface.md 2.2, docs/interface.md B.8)", () => {
  test("destructiveHint missing → destructive; readOnlyHint true → not; destructiveHint true → destructive", async () => {
    const server = await running.start(statefulSseServer());
    const created = await connectOk(app, auth, { name: "Hints", slug: "hints", url: server.url });
    expect(created).toMatchObject({ status: "connected", tool_count: 4, error: null });
    const listed = (await serverById(app, auth, created.id))!;
    const destructive = Object.fromEntries(listed.discovered_tools.map((t) => [t.name, t.destructive]));
    expect(destructive).toEqual({ echo: false, add: false, delete_everything: true, no_hints: true });
    expect(listed.discovered_tools.map((t) => t.action_id)).toEqual(["mcp.hints.echo", "mcp.hints.add", "mcp.hints.delete_everything", "mcp.hints.no_hints"]);
    expect(listed.server_info).toMatchObject({ name: "fixture-stateful", version: "1.0.0" });
    // The operation ended its session (docs/interface.md B.7).
    expect(server.counters.deletes).toBe(1);
    expect(server.sessions()).toBe(0);
  });

  test("connector tools start disabled in the toggles, with their source, destructiveness and scope", async () => {
    const connectorId = (
      (await api(app, auth)
        .list()
        .then((r) => r.json())) as { servers: { id: string; slug: string }[] }
    ).servers.find((s) => s.slug === "hints")!.id;
    const actions = (await agentActions(app, auth, org.agent_id)).filter((a) => a.id.startsWith("mcp.hints."));
    expect(actions.map((a) => [a.id, a.enabled, a.destructive, a.scope])).toEqual([
      ["mcp.hints.echo", false, false, "actions:read"],
      ["mcp.hints.add", false, false, "actions:read"],
      ["mcp.hints.delete_everything", false, true, "actions:write"],
      ["mcp.hints.no_hints", false, true, "actions:write"],
    ]);
    expect(actions.every((a) => a.source.kind === "connector" && a.source.id === connectorId && a.source.label === "Hints")).toBe(true);
    expect(await mcpToolNames("mcp.hints.")).toEqual([]); // disabled tools are not listed
  });

  test("on the tool server: destructiveHint as classified; destructive tools need mcp_destructive_tools", async () => {
    await enableActions(app, auth, org.agent_id, ["mcp.hints.echo", "mcp.hints.add", "mcp.hints.delete_everything", "mcp.hints.no_hints"]);
    expect((await mcpTools("mcp.hints.")).map((t) => [t.name, t.annotations.destructiveHint])).toEqual([
      ["mcp.hints.echo", false],
      ["mcp.hints.add", false],
    ]);
    await setFeatureFlag(app.deps, org.org_id, systemActor("test"), "mcp_destructive_tools", true);
    app.clock.advance(SNAPSHOT_TTL_MS);
    expect((await mcpTools("mcp.hints.")).map((t) => [t.name, t.annotations.destructiveHint])).toEqual([
      ["mcp.hints.echo", false],
      ["mcp.hints.add", false],
      ["mcp.hints.delete_everything", true],
      ["mcp.hints.no_hints", true],
    ]);
    const readOnly = (await tokensFor(app, org, "actions:read")).accessToken;
    const { body } = await rpc(app, readOnly, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect((body.result.tools as { name: string }[]).map((t) => t.name).filter((n) => n.startsWith("mcp.hints."))).toEqual(["mcp.hints.echo", "mcp.hints.add"]);
  });
});

describe("protocol variants", () => {
  test("pagination (docs/interface.md B.5): 250 tools over 3 pages, all discovered in order, in one session", async () => {
    const server = await running.start(paginatingServer());
    const created = await connectOk(app, auth, { name: "Pages", slug: "pages", url: server.url });
    expect(created).toMatchObject({ status: "connected", tool_count: 250 });
    expect(server.counters.pages).toBe(3);
    expect(server.counters.initialize).toBe(1);
    const names = (await serverById(app, auth, created.id))!.discovered_tools.map((t) => t.name);
    expect(names).toEqual(Array.from({ length: 250 }, (_, i) => `tool_${String(i).padStart(3, "0")}`));
  });

  test("a server that repeats its cursor → status error, not an endless loop", async () => {
    const server = await running.start(paginatingServer({ repeatCursor: true }));
    const created = await connectOk(app, auth, { name: "Loop", slug: "pages_loop", url: server.url });
    expect(created.status).toBe("error");
    expect(created.error).toContain("cursor");
    expect(server.counters.pages).toBeLessThanOrEqual(3);
  });

  test("notifications and a server request before the response are tolerated (docs/interface.md 6, docs/interface.md B.3)", async () => {
    const server = await running.start(notifyingServer());
    const created = await connectOk(app, auth, { name: "Chatty", slug: "chatty", url: server.url });
    expect(created).toMatchObject({ status: "connected", tool_count: 1, error: null });
    expect((await serverById(app, auth, created.id))!.discovered_tools).toMatchObject([{ name: "echo", destructive: false }]);
    expect(server.counters["tools/list"]).toBe(1);
  });

  test("stateless JSON server: no session, no DELETE needed", async () => {
    const server = await running.start(statelessJsonServer());
    const created = await connectOk(app, auth, { name: "Stateless", slug: "stateless", url: server.url });
    expect(created).toMatchObject({ status: "connected", tool_count: 2 });
    const initialize = server.requests.find((r) => (r.body as { method?: string })?.method === "initialize")!;
    expect(initialize.headers.accept).toBe("application/json, text/event-stream");
    // The newest handshake revision is proposed; the server (the SDK) accepts it and it is sent after.
    expect((initialize.body as { params: { protocolVersion: string } }).params.protocolVersion).toBe("2025-11-25");
    const list = server.requests.find((r) => (r.body as { method?: string })?.method === "tools/list")!;
    expect(list.headers["mcp-protocol-version"]).toBe("2025-11-25");
    expect(list.headers["mcp-session-id"]).toBeUndefined();
  });

  test("a server that speaks only 2025-03-26 answers with it, and the client follows its choice", async () => {
    const seen: { method: string; version: string | null }[] = [];
    const old = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        if (req.method !== "POST") return new Response(null, { status: 405 });
        const message = (await req.json()) as { id?: number; method: string };
        seen.push({ method: message.method, version: req.headers.get("mcp-protocol-version") });
        if (message.id === undefined) return new Response(null, { status: 202 });
        const result =
          message.method === "initialize"
            ? { protocolVersion: "2025-03-26", capabilities: { tools: {} }, serverInfo: { name: "old", version: "1" } }
            : { tools: [{ name: "ping_old", description: "d", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }] };
        return Response.json({ jsonrpc: "2.0", id: message.id, result });
      },
    });
    try {
      const created = await connectOk(app, auth, { name: "Old", slug: "old", url: `http://127.0.0.1:${old.port}/mcp` });
      expect(created).toMatchObject({ status: "connected", tool_count: 1 });
      expect(seen.find((s) => s.method === "tools/list")?.version).toBe("2025-03-26");
    } finally {
      old.stop(true);
    }
  });

  test("bad names (docs/interface.md 2.2): invalid and duplicate names dropped with reasons, the rest kept, the 64-char name kept, a warning logged", async () => {
    const server = await running.start(badNamesServer());
    const created = await connectOk(app, auth, { name: "Names", slug: "names", url: server.url });
    expect(created).toMatchObject({ status: "connected", tool_count: BAD_NAMES.valid.length });
    const listed = (await serverById(app, auth, created.id))!;
    expect(listed.discovered_tools.map((t) => t.name)).toEqual(BAD_NAMES.valid);
    expect(listed.discovered_tools.find((t) => t.name === "dup")!.description).toBe(BAD_NAMES.dupDescription);
    expect(listed.discovered_tools.find((t) => t.name === "A".repeat(64))!.action_id).toBe(`mcp.names.${"A".repeat(64)}`);
    expect(listed.dropped_tools.map((d) => d.name).sort()).toEqual([...BAD_NAMES.invalid, "dup"].sort());
    for (const d of listed.dropped_tools) expect(d.reason.length).toBeGreaterThan(0);
    expect(listed.dropped_tools.find((d) => d.name === "dup")!.reason).toContain("earlier");
    const warnings = app.logs.filter((l) => l.msg === "connector tool dropped" && l.connector_id === created.id);
    expect(warnings).toHaveLength(BAD_NAMES.invalid.length + 1);
  });
});

describe("redirects (docs/interface.md 8.2.4, docs/interface.md B.10)", () => {
  test("302 to the metadata address → status error naming the Location", async () => {
    const server = await running.start(redirectingServer());
    const created = await connectOk(app, auth, { name: "Redirect", slug: "redirect", url: server.url });
    expect(created.status).toBe("error");
    expect(created.error).toContain("http://169.254.169.254/latest/meta-data/");
    expect((await serverById(app, auth, created.id))!.last_error).toBe(created.error);
    expect(server.counters.redirects).toBe(1);
  });

  test("the redirect target is never requested", async () => {
    const hits: string[] = [];
    const target = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => (hits.push(req.url), Response.json({ jsonrpc: "2.0", id: 1, result: {} })) });
    try {
      const location = `http://127.0.0.1:${target.port}/mcp`; // loopback: would pass the guard in development
      const server = await running.start(redirectingServer(location));
      const created = await connectOk(app, auth, { name: "Redirect 2", slug: "redirect_loop", url: server.url });
      expect(created.status).toBe("error");
      expect(created.error).toContain(location);
      expect(hits).toEqual([]);
    } finally {
      target.stop(true);
    }
  });
});

describe("lost sessions (docs/interface.md B.6, B.7)", () => {
  test("404 for a known session before tools/list → re-initialised once, discovery succeeds", async () => {
    const server = await running.start(forgetfulServer());
    const created = await connectOk(app, auth, { name: "Forgetful", slug: "forgetful", url: server.url });
    expect(created).toMatchObject({ status: "connected", tool_count: 4, error: null });
    expect(server.counters.forgets).toBe(1);
    expect(server.counters.unknown_session).toBe(1);
    expect(server.counters.initialize).toBe(2);
  });

  test("a server that keeps forgetting → status error after one re-initialisation, not a loop", async () => {
    const server = await running.start(forgetfulServer({ times: Infinity }));
    const created = await connectOk(app, auth, { name: "Amnesiac", slug: "amnesiac", url: server.url });
    expect(created.status).toBe("error");
    expect(created.error).toContain("404");
    expect(server.counters.initialize).toBe(2);
  });

  test("404 on the closing DELETE is ignored", async () => {
    const server = await running.start(forgetfulServer({ forgetAfter: "request" }));
    const created = await connectOk(app, auth, { name: "Forgets late", slug: "forgets_late", url: server.url });
    expect(created).toMatchObject({ status: "connected", tool_count: 4 });
    expect(server.counters.deletes).toBe(1);
  });

  test("404 already on notifications/initialized → re-initialised once, discovery succeeds", async () => {
    const server = await running.start(forgetfulServer({ forgetAfter: "initialize" }));
    const created = await connectOk(app, auth, { name: "Forgets early", slug: "forgets_early", url: server.url });
    expect(created).toMatchObject({ status: "connected", tool_count: 4, error: null });
    expect(server.counters.initialize).toBe(2);
  });
});

describe("refresh replaces the snapshot (docs/interface.md 3)", () => {
  test("tools removed upstream disappear from GET, toggles and tools/list; new tools appear disabled", async () => {
    const four = await running.start(statefulSseServer()); // echo, add, delete_everything, no_hints
    const two = await running.start(statelessJsonServer()); // echo, whoami
    const proxy = await running.start(switchable(four));
    const created = await connectOk(app, auth, { name: "Changing", slug: "changing", url: proxy.url });
    expect(created.tool_count).toBe(4);
    await enableActions(app, auth, org.agent_id, ["mcp.changing.echo", "mcp.changing.add", "mcp.changing.delete_everything", "mcp.changing.no_hints"]);
    await setFeatureFlag(app.deps, org.org_id, systemActor("test"), "mcp_destructive_tools", true);
    app.clock.advance(SNAPSHOT_TTL_MS);
    expect((await mcpToolNames("mcp.changing.")).sort()).toEqual([
      "mcp.changing.add",
      "mcp.changing.delete_everything",
      "mcp.changing.echo",
      "mcp.changing.no_hints",
    ]);

    proxy.use(two);
    const refreshed = await refreshOk(app, auth, created.id, {});
    expect(refreshed).toMatchObject({ status: "connected", tool_count: 2, last_error: null });
    expect(refreshed.discovered_tools.map((t) => t.name)).toEqual(["echo", "whoami"]);
    expect((await serverById(app, auth, created.id))!.discovered_tools.map((t) => t.action_id)).toEqual(["mcp.changing.echo", "mcp.changing.whoami"]);
    const toggles = (await agentActions(app, auth, org.agent_id)).filter((a) => a.id.startsWith("mcp.changing."));
    expect(toggles.map((a) => [a.id, a.enabled])).toEqual([
      ["mcp.changing.echo", true], // kept: still listed upstream
      ["mcp.changing.whoami", false], // new: disabled
    ]);
    const rows = await app.deps.db
      .select()
      .from(agentActionToggles)
      .where(and(eq(agentActionToggles.agentId, org.agent_id), like(agentActionToggles.actionId, "mcp.changing.%")));
    expect(rows.map((r) => r.actionId)).toEqual(["mcp.changing.echo"]);
    app.clock.advance(SNAPSHOT_TTL_MS);
    expect(await mcpToolNames("mcp.changing.")).toEqual(["mcp.changing.echo"]);
    const gone = await rpc(app, token, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "mcp.changing.add", arguments: { a: 1, b: 2 } } });
    expect(gone.body.error.code).toBe(-32601);

    // A tool that comes back starts disabled again (its toggle was forgotten).
    proxy.use(four);
    await refreshOk(app, auth, created.id, {});
    const back = (await agentActions(app, auth, org.agent_id)).filter((a) => a.id.startsWith("mcp.changing."));
    expect(back.map((a) => [a.id, a.enabled])).toEqual([
      ["mcp.changing.echo", true],
      ["mcp.changing.add", false],
      ["mcp.changing.delete_everything", false],
      ["mcp.changing.no_hints", false],
    ]);
  });

  test("PATCH without a body refreshes too", async () => {
    const server = await running.start(statelessJsonServer());
    const created = await connectOk(app, auth, { name: "No body", slug: "nobody", url: server.url });
    const before = server.counters["tools/list"];
    const res = await api(app, auth).refresh(created.id, undefined);
    expect(res.status).toBe(200);
    expect(server.counters["tools/list"]).toBe(before! + 1);
  });

  test("a refresh that fails → status error with last_error; the tools become unavailable; a later success recovers", async () => {
    const server = await running.start(statefulSseServer());
    const proxy = await running.start(switchable(server));
    const created = await connectOk(app, auth, { name: "Flaky", slug: "flaky", url: proxy.url });
    await enableActions(app, auth, org.agent_id, ["mcp.flaky.echo"]);
    expect(await mcpToolNames("mcp.flaky.")).toEqual(["mcp.flaky.echo"]);
    proxy.use(await running.start(redirectingServer())); // now broken
    const failed = await refreshOk(app, auth, created.id);
    expect(failed.status).toBe("error");
    expect(failed.last_error).toContain("169.254.169.254");
    app.clock.advance(SNAPSHOT_TTL_MS);
    expect(await mcpToolNames("mcp.flaky.")).toEqual([]);
    const denied = await rpc(app, token, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "mcp.flaky.echo", arguments: { text: "x" } } });
    expect(denied.body.error.code).toBe(-32002);
    expect(denied.body.error.message).toContain("in error");
    proxy.use(server);
    const recovered = await refreshOk(app, auth, created.id);
    expect(recovered).toMatchObject({ status: "connected", last_error: null });
    app.clock.advance(SNAPSHOT_TTL_MS);
    expect(await mcpToolNames("mcp.flaky.")).toEqual(["mcp.flaky.echo"]);
  });

  test("scheduled discovery: a due connector is claimed once and rediscovered", async () => {
    const four = await running.start(statefulSseServer());
    const two = await running.start(statelessJsonServer());
    const proxy = await running.start(switchable(four));
    const created = await connectOk(app, auth, { name: "Scheduled", slug: "scheduled", url: proxy.url });
    proxy.use(two);
    const nextAt = (await connectorRow(app, created.id)).nextDiscoveryAt;
    expect(nextAt.getTime()).toBeGreaterThan(app.clock.now.getTime());
    app.clock.advance(nextAt.getTime() - app.clock.now.getTime());
    const due = await claimDueConnectors(app.deps, 100);
    expect(due.map((r) => r.id)).toContain(created.id);
    expect((await claimDueConnectors(app.deps, 100)).map((r) => r.id)).not.toContain(created.id);
    for (const row of due) await discover(app.deps, row);
    expect((await serverById(app, auth, created.id))!.discovered_tools.map((t) => t.name)).toEqual(["echo", "whoami"]);
  });
});
