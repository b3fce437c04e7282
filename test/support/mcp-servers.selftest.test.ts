// Self-test of the MCP server fixtures (test/support/mcp-servers.ts): each one driven by the SDK's
// own Client + StreamableHTTPClientTransport, or by raw fetch where the point is what goes over
// the wire (SSE order, keep-alive comments, status codes).
import { afterEach, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  BAD_NAMES,
  badNamesServer,
  bearerServer,
  everythingInstalled,
  everythingServer,
  forgetfulServer,
  type McpFixture,
  notifyingServer,
  oauthProtectedServer,
  paginatingServer,
  redirectingServer,
  slowServer,
  statefulSseServer,
  statelessJsonServer,
} from "./mcp-servers.ts";
import { rejectionOf } from "./settle.ts";

const open: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((f) => f.stop()));
});
async function start<T extends McpFixture>(fixture: Promise<T>): Promise<T> {
  const f = await fixture;
  open.push(f);
  return f;
}

async function connect(url: string, headers?: Record<string, string>) {
  const transport = new StreamableHTTPClientTransport(new URL(url), headers ? { requestInit: { headers } } : undefined);
  const client = new Client({ name: "fixture-selftest", version: "1.0.0" });
  await client.connect(transport);
  open.push({ stop: () => client.close() });
  return { client, transport };
}

const textOf = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text ?? "";

// Raw Streamable HTTP, the way our own client talks (proposing 2025-03-26).
const ACCEPT = { accept: "application/json, text/event-stream", "content-type": "application/json" };
async function rawInit(url: string, headers: Record<string, string> = {}) {
  const init = await fetch(url, {
    method: "POST",
    headers: { ...ACCEPT, ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  expect(init.status).toBe(200);
  await init.text();
  const session = init.headers.get("mcp-session-id");
  const h = { ...ACCEPT, ...headers, "mcp-protocol-version": "2025-03-26", ...(session && { "mcp-session-id": session }) };
  const ack = await fetch(url, { method: "POST", headers: h, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  expect(ack.status).toBe(202);
  return { session, headers: h, post: (body: unknown) => fetch(url, { method: "POST", headers: h, body: JSON.stringify(body) }) };
}

describe("statefulSseServer", () => {
  test("session, SSE, four tools with their hints, _meta recorded, icons, DELETE counted", async () => {
    const icons = [{ src: "https://example.com/icon.png", mimeType: "image/png", sizes: ["48x48"] }];
    const f = await start(statefulSseServer({ icons }));
    const { client, transport } = await connect(f.url);
    expect(client.getServerVersion()?.icons).toEqual(icons);
    expect(transport.sessionId).toBeString();
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(["add", "delete_everything", "echo", "no_hints"]);
    expect(byName.echo?.annotations).toEqual({ readOnlyHint: true, destructiveHint: false });
    expect(byName.add?.annotations).toEqual({ readOnlyHint: true });
    expect(byName.delete_everything?.annotations).toEqual({ destructiveHint: true });
    expect(byName.no_hints?.annotations).toBeUndefined();
    const result = await client.callTool({ name: "echo", arguments: { text: "hi" }, _meta: { bound_end_user_id: "u_1" } });
    expect(textOf(result)).toBe("hi");
    expect(textOf(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } }))).toBe("5");
    expect(f.calls[0]).toEqual({ tool: "echo", args: { text: "hi" }, meta: { bound_end_user_id: "u_1" } });
    expect(f.calls[1]?.tool).toBe("add");
    expect(f.counters).toMatchObject({ initialize: 1, "notifications/initialized": 1, "tools/list": 1, "tools/call": 2 });
    const sse = await rawInit(f.url);
    const listed = await sse.post({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(listed.headers.get("content-type")).toContain("text/event-stream");
    expect(await listed.text()).toContain('"tools"');
    expect(f.sessions()).toBe(2);
    await transport.terminateSession();
    expect(f.counters.deletes).toBe(1);
    expect(f.sessions()).toBe(1);
    const stale = await fetch(f.url, {
      method: "POST",
      headers: { ...ACCEPT, "mcp-session-id": transport.sessionId ?? "gone" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    expect(stale.status).toBe(404);
    expect(f.requests.every((r) => Object.keys(r.headers).every((k) => k === k.toLowerCase()))).toBe(true);
  });
});

describe("statelessJsonServer", () => {
  test("no session id, JSON bodies, whoami returns _meta, DELETE is 405", async () => {
    const f = await start(statelessJsonServer());
    const { client, transport } = await connect(f.url);
    expect(transport.sessionId).toBeUndefined();
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["echo", "whoami"]);
    const who = await client.callTool({ name: "whoami", arguments: {}, _meta: { bound_end_user_id: "end-user-7" } });
    expect(JSON.parse(textOf(who))).toEqual({ bound_end_user_id: "end-user-7" });
    expect(f.calls).toEqual([{ tool: "whoami", args: undefined, meta: { bound_end_user_id: "end-user-7" } }]);
    const raw = await rawInit(f.url);
    expect(raw.session).toBeNull();
    const res = await raw.post({ jsonrpc: "2.0", id: 3, method: "tools/list" });
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(((await res.json()) as { result: { tools: Tool[] } }).result.tools).toHaveLength(2);
    expect((await fetch(f.url, { method: "DELETE" })).status).toBe(405);
    expect(f.counters.deletes).toBe(1);
  });
});

describe("paginatingServer", () => {
  test("250 tools over 100/100/50 with opaque cursors; a bad cursor is -32602", async () => {
    const f = await start(paginatingServer());
    const { client } = await connect(f.url);
    const names: string[] = [];
    const cursors: (string | undefined)[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor });
      names.push(...page.tools.map((t) => t.name));
      cursors.push((cursor = page.nextCursor));
    } while (cursor !== undefined);
    expect(names).toHaveLength(250);
    expect(names[0]).toBe("tool_000");
    expect(names.at(-1)).toBe("tool_249");
    expect(new Set(names).size).toBe(250);
    expect(f.counters.pages).toBe(3);
    expect(cursors[0]).not.toContain("100");
    expect((await rejectionOf(client.listTools({ cursor: "bogus" }))).message).toMatch(/Invalid cursor/);
  });

  test("repeatCursor hands out the same cursor forever", async () => {
    const f = await start(paginatingServer({ repeatCursor: true }));
    const { client } = await connect(f.url);
    const first = await client.listTools();
    const second = await client.listTools({ cursor: first.nextCursor! });
    expect(second.nextCursor).toBe(first.nextCursor);
  });
});

describe("notifyingServer", () => {
  test("a ping, a log line and a progress notification arrive before each result", async () => {
    const f = await start(notifyingServer());
    const { client } = await connect(f.url);
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
    expect(textOf(await client.callTool({ name: "echo", arguments: { text: "yo" } }))).toBe("yo");
    expect(logs).toEqual(["tools/list: working on it", "tools/call: working on it"]);
    expect(f.counters.responses).toBe(2); // the SDK client answered both pings

    const raw = await rawInit(f.url);
    const body = await (await raw.post({ jsonrpc: "2.0", id: 5, method: "tools/list" })).text();
    const at = (s: string) => body.indexOf(s);
    expect(at('"method":"ping"')).toBeGreaterThan(-1);
    expect(at('"method":"notifications/message"')).toBeGreaterThan(-1);
    expect(at('"method":"notifications/progress"')).toBeGreaterThan(-1);
    const result = at('"result"');
    for (const m of ['"method":"ping"', '"method":"notifications/message"', '"method":"notifications/progress"']) expect(at(m)).toBeLessThan(result);
  });
});

describe("badNamesServer", () => {
  test("lists invalid names and a duplicate beside the valid ones", async () => {
    const f = await start(badNamesServer());
    const raw = await rawInit(f.url);
    const res = (await (await raw.post({ jsonrpc: "2.0", id: 2, method: "tools/list" })).json()) as { result: { tools: Tool[] } };
    const names = res.result.tools.map((t) => t.name);
    for (const n of [...BAD_NAMES.valid, ...BAD_NAMES.invalid]) expect(names).toContain(n);
    expect(names.filter((n) => n === "dup")).toHaveLength(2);
    const valid = names.filter((n) => /^[a-zA-Z0-9_-]{1,64}$/.test(n));
    expect([...new Set(valid)]).toEqual(BAD_NAMES.valid);
    expect(res.result.tools.find((t) => t.name === "dup")?.description).toBe(BAD_NAMES.dupDescription);
  });
});

describe("slowServer", () => {
  test("initialize at once; tools/list only after the delay, with keep-alive comments meanwhile", async () => {
    const f = await start(slowServer({ delayMs: 1500, keepAliveMs: 200 }));
    const t0 = Date.now();
    const raw = await rawInit(f.url);
    expect(Date.now() - t0).toBeLessThan(1000);
    const started = Date.now();
    const res = await raw.post({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const body = await res.text();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    const comments = body.split("\n").filter((l) => l.startsWith(":"));
    expect(comments.length).toBeGreaterThanOrEqual(4);
    expect(body.indexOf(":")).toBeLessThan(body.indexOf('"result"'));
    expect(f.counters.completed).toBe(1);
  });

  test("a client that gives up aborts the wait", async () => {
    const f = await start(slowServer({ delayMs: 10_000, keepAliveMs: 100 }));
    const raw = await rawInit(f.url);
    const controller = new AbortController();
    const res = await fetch(f.url, {
      method: "POST",
      headers: raw.headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: {} } }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toStartWith(":");
    controller.abort();
    for (let i = 0; i < 50 && !f.counters.aborted; i++) await Bun.sleep(20);
    expect(f.counters.aborted).toBe(1);
    expect(f.calls).toHaveLength(1);
  });
});

describe("redirectingServer", () => {
  test("302 with Location for everything", async () => {
    const f = await start(redirectingServer());
    const res = await fetch(f.url, { method: "POST", headers: ACCEPT, body: "{}", redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("http://169.254.169.254/latest/meta-data/");
    expect(f.counters.redirects).toBe(1);
  });
});

describe("forgetfulServer", () => {
  test("default: the session is gone after notifications/initialized, so tools/list gets 404; once", async () => {
    const f = await start(forgetfulServer());
    const raw = await rawInit(f.url);
    const lost = await raw.post({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(lost.status).toBe(404);
    expect(((await lost.json()) as { error: { code: number } }).error.code).toBe(-32001);
    expect(f.counters.forgets).toBe(1);
    const again = await rawInit(f.url); // the re-initialised session survives
    expect((await again.post({ jsonrpc: "2.0", id: 2, method: "tools/list" })).status).toBe(200);
    expect(f.counters.forgets).toBe(1);
  });

  test("the SDK client meets the 404 too; forget() by hand", async () => {
    const f = await start(forgetfulServer({ forgetAfter: "manual" }));
    const { client } = await connect(f.url);
    expect((await client.listTools()).tools).toHaveLength(4);
    await f.forget();
    expect((await rejectionOf(client.listTools())).message).toMatch(/404|Session not found/);
  });

  test("forgetAfter request: the DELETE after tools/list gets 404", async () => {
    const f = await start(forgetfulServer({ forgetAfter: "request" }));
    const raw = await rawInit(f.url);
    const listed = await raw.post({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(listed.status).toBe(200);
    await listed.text();
    for (let i = 0; i < 50 && !f.counters.forgets; i++) await Bun.sleep(10);
    expect((await fetch(f.url, { method: "DELETE", headers: raw.headers })).status).toBe(404);
  });
});

describe("bearerServer", () => {
  test("401 + WWW-Authenticate: Bearer without the token; secret_echo with it", async () => {
    const f = await start(bearerServer({ token: "s3cret" }));
    const none = await fetch(f.url, { method: "POST", headers: ACCEPT, body: "{}" });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    const wrong = await fetch(f.url, { method: "POST", headers: { ...ACCEPT, authorization: "Bearer nope" }, body: "{}" });
    expect(wrong.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const { client } = await connect(f.url, { authorization: "Bearer s3cret" });
    expect(textOf(await client.callTool({ name: "secret_echo", arguments: { text: "x" } }))).toBe("x");
    expect(f.counters.unauthorized).toBe(2);
    expect(f.calls.map((c) => c.tool)).toEqual(["secret_echo"]);
  });
});

describe("oauthProtectedServer", () => {
  const refresh = (f: { tokenEndpoint: string }, form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(f.tokenEndpoint, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: new URLSearchParams(form) });

  test("metadata, 401 challenge, rotation, expiry and revocation", async () => {
    const f = await start(oauthProtectedServer({ clientSecret: "shh" }));
    const prm = (await (await fetch(f.resourceMetadataUrl)).json()) as Record<string, unknown>;
    expect(prm).toMatchObject({ resource: f.url, authorization_servers: [f.origin] });
    expect(await (await fetch(`${f.origin}/.well-known/oauth-protected-resource`)).json()).toEqual(prm);
    const asm = (await (await fetch(`${f.origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(asm).toMatchObject({ issuer: f.origin, token_endpoint: f.tokenEndpoint });

    const challenge = await fetch(f.url, { method: "POST", headers: ACCEPT, body: "{}" });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${f.resourceMetadataUrl}"`);

    const first = f.issue();
    const { client } = await connect(f.url, { authorization: `Bearer ${first.access_token}` });
    expect(textOf(await client.callTool({ name: "echo", arguments: { text: "ok" } }))).toBe("ok");

    f.expireAccessTokens();
    const expired = await fetch(f.url, { method: "POST", headers: { ...ACCEPT, authorization: `Bearer ${first.access_token}` }, body: "{}" });
    expect(expired.status).toBe(401);
    expect(expired.headers.get("www-authenticate")).toContain('error="invalid_token"');

    expect((await refresh(f, { grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: f.clientId })).status).toBe(401); // no secret
    const basic = `Basic ${Buffer.from(`${f.clientId}:shh`).toString("base64")}`;
    const res = await refresh(f, { grant_type: "refresh_token", refresh_token: first.refresh_token }, { authorization: basic });
    expect(res.status).toBe(200);
    const second = (await res.json()) as { access_token: string; refresh_token: string; token_type: string };
    expect(second.token_type).toBe("Bearer");
    expect(second.refresh_token).not.toBe(first.refresh_token);
    const reused = await refresh(f, { grant_type: "refresh_token", refresh_token: first.refresh_token, client_id: f.clientId, client_secret: "shh" });
    expect(reused.status).toBe(400);
    expect(await reused.json()).toEqual({ error: "invalid_grant" });
    await connect(f.url, { authorization: `Bearer ${second.access_token}` });

    f.revokeRefreshTokens();
    expect((await refresh(f, { grant_type: "refresh_token", refresh_token: second.refresh_token, client_id: f.clientId, client_secret: "shh" })).status).toBe(
      400,
    );
    expect(f.counters).toMatchObject({ token_requests: 4, token_refreshes: 1, token_failures: 3 });
    expect(f.requests.find((r) => r.path === "/token")?.body).toMatchObject({ grant_type: "refresh_token" });
  });
});

// Runs when the package is installed in node_modules, or SERVER_EVERYTHING_DIR points at one.
const everythingDir = process.env.SERVER_EVERYTHING_DIR;
describe.skipIf(!everythingInstalled(everythingDir))("everythingServer", () => {
  test("the reference server over Streamable HTTP, through the recording proxy", async () => {
    const f = await start(everythingServer({ packageDir: everythingDir }));
    const { client, transport } = await connect(f.url);
    expect(transport.sessionId).toBeString();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("echo");
    const result = await client.callTool({ name: "echo", arguments: { message: "hello" }, _meta: { bound_end_user_id: "u" } });
    expect(textOf(result)).toContain("hello");
    expect(f.calls).toEqual([{ tool: "echo", args: { message: "hello" }, meta: { bound_end_user_id: "u" } }]);
    expect(f.counters).toMatchObject({ initialize: 1, "tools/list": 1, "tools/call": 1 });
  }, 30_000);
});
