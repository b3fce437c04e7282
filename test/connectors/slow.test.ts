// Total deadlines toward connected servers (docs/interface.md 8.1: discovery 15 s, tool call 30 s;
// docs/interface.md B.4): the slow fixture answers after 20 s (or 40 s) while writing SSE keep-alive comments
// every 500 ms, so an idle timer would never fire — only a total deadline ends the wait.
//
// In-process, the deadlines follow the test clock (deps.timers): each is checked at its boundary,
// still waiting one millisecond before it and ended at it. The end-to-end call runs against the
// real server (src/server.ts `serve`, as `npm start` runs it) in real time, because the Bun
// server's own idle timeout is part of what a client sees.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { createOrg } from "../../src/orgs/service.ts";
import { serve } from "../../src/server.ts";
import type { TestApp } from "../support/app.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { slowServer, statelessJsonServer } from "../support/mcp-servers.ts";
import { rpc, tokensFor } from "../support/oauth.ts";
import { freePort, tempDir } from "../support/process.ts";
import { connectOk, devApp, enableConnector, FLAG, fixtures, type Org, sdkClient, serverById, switchable, textOf } from "./helpers.ts";

let app: TestApp;
let org: Org;
let auth: Record<string, string>;
const running = fixtures();

beforeAll(async () => {
  ({ app, org, auth } = await devApp());
});
afterAll(async () => {
  await running.stopAll();
  await app.close();
});

async function eventually(check: () => boolean, ms = 3000) {
  const until = Date.now() + ms;
  while (!check() && Date.now() < until) await Bun.sleep(50);
  return check();
}

/** Whether `promise` is still unsettled after `ms` of real time (the fixture keeps writing meanwhile). */
async function stillWaiting(promise: Promise<unknown>, ms = 300): Promise<boolean> {
  const waiting = Symbol("waiting");
  return (
    (await Promise.race([
      promise.then(
        () => null,
        () => null,
      ),
      Bun.sleep(ms).then(() => waiting),
    ])) === waiting
  );
}

describe("discovery deadline: 15 s", () => {
  test("a server answering tools/list after 20 s → still waiting at 14.999 s, status error at 15 s, and the wait is abandoned", async () => {
    const server = await running.start(slowServer());
    const connecting = connectOk(app, auth, { name: "Slow", slug: "slow_discovery", url: server.url });
    expect(await eventually(() => (server.counters["tools/list"] ?? 0) >= 1)).toBe(true);
    app.clock.advance(14_999);
    expect(await stillWaiting(connecting)).toBe(true);
    app.clock.advance(1);
    const created = await connecting;
    expect(created.status).toBe("error");
    expect(created.tool_count).toBe(0);
    expect(created.error).toContain("deadline");
    expect((await serverById(app, auth, created.id))!.last_error).toBe(created.error);
    expect(server.counters.completed ?? 0).toBe(0);
    expect(await eventually(() => (server.counters.aborted ?? 0) >= 1)).toBe(true);
  });
});

describe("call deadline: 30 s", () => {
  test("a tool answering after 40 s → still waiting at 29.999 s, isError at 30 s (in-process tool server)", async () => {
    const quick = await running.start(statelessJsonServer());
    const slow = await running.start(slowServer({ delayMs: 40_000 }));
    const proxy = await running.start(switchable(quick));
    const created = await connectOk(app, auth, { name: "Slow call", slug: "slow_call", url: proxy.url });
    expect(created.status).toBe("connected");
    await enableConnector(app, auth, org.agent_id, created.id);
    const token = (await tokensFor(app, org, "actions:read actions:write")).accessToken;
    proxy.use(slow);
    const calling = rpc(app, token, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "mcp.slow_call.echo", arguments: { text: "take your time" } },
    });
    expect(await eventually(() => (slow.counters["tools/call"] ?? 0) >= 1)).toBe(true);
    app.clock.advance(29_999);
    expect(await stillWaiting(calling)).toBe(true);
    app.clock.advance(1);
    const { body } = await calling;
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0].text).toContain("deadline");
    expect(slow.counters.completed ?? 0).toBe(0);
    expect(await eventually(() => (slow.counters.aborted ?? 0) >= 1)).toBe(true);
    expect((await serverById(app, auth, created.id))!.status).toBe("connected"); // a slow call is not a broken connector
  });
});

describe("call deadline through the real server and the official SDK client", () => {
  let base: string;
  let stop: () => Promise<void>;
  let database: TestDatabase | undefined;
  let dataDir: string | undefined;
  let member: Org;
  let client: Client;

  beforeAll(async () => {
    const port = freePort();
    base = `http://127.0.0.1:${port}`;
    database = process.env.TEST_DATABASE_URL ? await createTestDatabase() : undefined;
    dataDir = database ? undefined : tempDir("svc-connectors-slow-");
    const config = loadConfig({
      NODE_ENV: "development",
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: base,
      SECRET_KEY: randomBytes(32).toString("base64"),
      SEED_DEMO: "0",
      LOG_LEVEL: "error",
      ...(database ? { DATABASE_URL: database.url! } : { DATA_DIR: dataDir! }),
    });
    const served = await serve(
      config,
      createLogger("error", () => {}),
    );
    stop = served.stop;
    const password = `pw-${randomBytes(9).toString("base64url")}`;
    const created = await createOrg(served.deps, {
      name: "Slow org",
      adminEmail: `slow-${randomBytes(4).toString("hex")}@example.com`,
      adminPassword: password,
      flags: [FLAG],
    });
    member = { ...created, password };
  }, 60_000);
  afterAll(async () => {
    await client?.close().catch(() => {});
    await stop?.();
    await database?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test("the SDK client receives an isError result after ~30 s (the server's idle timeout must not cut the response first)", async () => {
    const session = await fetch(`${base}/api/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: member.admin_email, password: member.password }),
    });
    const auth = { authorization: `Bearer ${((await session.json()) as { token: string }).token}` };
    const quick = await running.start(statelessJsonServer());
    const slow = await running.start(slowServer({ delayMs: 40_000 }));
    const proxy = await running.start(switchable(quick));
    const http = {
      request: (path: string, init: RequestInit & { json?: unknown } = {}) =>
        fetch(new URL(path, base), {
          ...init,
          headers: { ...(init.headers as Record<string, string>), ...(init.json !== undefined ? { "content-type": "application/json" } : {}) },
          body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
          method: init.method ?? (init.json !== undefined ? "POST" : "GET"),
        }),
      clock: { advance() {} },
    } as unknown as TestApp;
    const created = await connectOk(http, auth, { name: "Slow call", slug: "slow_call", url: proxy.url });
    expect(created.status).toBe("connected");
    await enableConnector(http, auth, member.agent_id, created.id);
    await Bun.sleep(1100); // the real clock moves the registry snapshot on
    client = await sdkClient(base, member);
    proxy.use(slow);
    const started = performance.now();
    const result = await client
      .callTool({ name: "mcp.slow_call.echo", arguments: { text: "take your time" } })
      .catch((error: unknown) => ({ transportError: String(error) }));
    const seconds = (performance.now() - started) / 1000;
    expect(result).not.toHaveProperty("transportError");
    expect((result as { isError?: boolean }).isError).toBe(true);
    expect(textOf(result)).toContain("deadline");
    expect(seconds).toBeGreaterThanOrEqual(29);
    expect(seconds).toBeLessThan(36);
  }, 45_000);
});
