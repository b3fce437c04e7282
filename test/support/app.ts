// The app in-process, as the server runs it (outer handler included), on a per-file database,
// with a clock tests can move and a log they can read.
import { randomBytes } from "node:crypto";
import { createAppHandler } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import { createFieldCipher } from "../../src/crypto/fields.ts";
import { buildDeps } from "../../src/compose.ts";
import type { Deps } from "../../src/deps.ts";
import type { Handler } from "../../src/http/handler.ts";
import { createPasswordHasher } from "../../src/kit/passwords.ts";
import type { Timers } from "../../src/kit/timers.ts";
import { createLogger } from "../../src/log.ts";
import { createOrg, type CreatedOrg } from "../../src/orgs/service.ts";
import type { DbObserver } from "../../src/db/observe.ts";
import { createTestDatabase, type TestDatabase } from "./db.ts";

export interface TestApp {
  deps: Deps;
  database: TestDatabase;
  /** Every log line written so far, parsed. */
  logs: Record<string, unknown>[];
  rawLogs: string[];
  clock: { now: Date; advance(ms: number): void };
  /** Names the outbound guard resolves, for this app: tests map hostnames to addresses. */
  hosts: Map<string, string[]>;
  /** DNS records inbound mail's SPF/DKIM/DMARC checks see, by "TYPE name" (e.g. "TXT _dmarc.example.org"); anything else is ENOTFOUND. */
  mailDns: Map<string, string[][] | string[]>;
  handle: Handler;
  request(path: string, init?: TestRequestInit): Promise<Response>;
  close(): Promise<void>;
}

export type TestRequestInit = RequestInit & { json?: unknown; form?: Record<string, string>; ip?: string };

/** A Request as tests write them: `json` or `form` bodies, `ip` as X-Forwarded-For, POST when there is a body. */
export function buildRequest(base: string, path: string, init: TestRequestInit = {}): Request {
  const { json, form, ip, ...rest } = init;
  const headers = new Headers(rest.headers);
  let body = rest.body;
  if (json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(json);
  } else if (form !== undefined) {
    headers.set("content-type", "application/x-www-form-urlencoded");
    body = new URLSearchParams(form).toString();
  }
  if (ip) headers.set("x-forwarded-for", ip);
  return new Request(new URL(path, base), { ...rest, method: rest.method ?? (body !== undefined ? "POST" : "GET"), headers, body, redirect: "manual" });
}

export function testConfig(env: Record<string, string> = {}): Readonly<Config> {
  return loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "debug",
    BASE_URL: "http://localhost:3000",
    TRUST_PROXY: "1",
    SECRET_KEY: randomBytes(32).toString("base64"),
    ...env,
  });
}

export async function createTestApp(env: Record<string, string> = {}, options: { observe?: DbObserver } = {}): Promise<TestApp> {
  const database = await createTestDatabase(options);
  const rawLogs: string[] = [];
  // Deadlines and intervals follow the test clock: they fire when `advance` moves the clock to or past them.
  const deadlines = new Set<{ at: number; controller: AbortController }>();
  const intervals = new Set<{ next: number; ms: number; run: () => void }>();
  const clock = {
    now: new Date(),
    advance(ms: number) {
      clock.now = new Date(clock.now.getTime() + ms);
      for (const d of deadlines)
        if (d.at <= clock.now.getTime()) {
          deadlines.delete(d);
          d.controller.abort(new DOMException("The operation timed out.", "TimeoutError"));
        }
      for (const i of intervals) for (; i.next <= clock.now.getTime(); i.next += i.ms) i.run();
    },
  };
  const timers: Timers = {
    deadline(ms) {
      const controller = new AbortController();
      deadlines.add({ at: clock.now.getTime() + ms, controller });
      return controller.signal;
    },
    every(ms, run) {
      const interval = { next: clock.now.getTime() + ms, ms, run };
      intervals.add(interval);
      return { cancel: () => intervals.delete(interval) };
    },
  };
  const config = testConfig(env);
  const hosts = new Map<string, string[]>();
  const resolver = async (host: string) => {
    const known = hosts.get(host) ?? (host === "localhost" ? ["127.0.0.1"] : undefined);
    if (!known) throw new Error(`test resolver: unknown host ${host}`);
    return known;
  };
  const mailDns = new Map<string, string[][] | string[]>();
  const deps = await buildDeps({
    mailDns: async (name, type) => {
      const records = mailDns.get(`${type} ${name.toLowerCase()}`);
      if (!records) throw Object.assign(new Error(`test DNS: no ${type} record for ${name}`), { code: "ENOTFOUND" });
      return records;
    },
    config,
    // argon2id at 1 MiB and one pass: the suite hashes and verifies hundreds of passwords; the cost
    // itself is not under test (processes the tests spawn keep the real parameters).
    passwords: createPasswordHasher({ memoryCost: 1024, timeCost: 1 }),
    db: database.db,
    listen: database.listen,
    cipher: createFieldCipher(config.secretKey!),
    log: createLogger("debug", (line) => rawLogs.push(line)),
    now: () => clock.now,
    guard: { allowLoopback: config.nodeEnv === "development", resolver: async (host) => resolver(host) },
    timers,
  });
  const handle = createAppHandler(deps);
  const app: TestApp = {
    deps,
    database,
    rawLogs,
    hosts,
    mailDns,
    get logs() {
      return rawLogs.map((l) => JSON.parse(l));
    },
    clock,
    handle,
    request: (path, init = {}) => handle(buildRequest(config.baseUrl, path, init)),
    close: () => database.close(),
  };
  return app;
}

let orgCounter = 0;
/** Creates an org through the same function `org create` uses. */
export async function seedOrg(
  app: TestApp,
  overrides: Partial<{ name: string; email: string; password: string; flags: string[] }> = {},
): Promise<CreatedOrg & { password: string }> {
  orgCounter++;
  const password = overrides.password ?? `pw-${randomBytes(9).toString("base64url")}`;
  const created = await createOrg(app.deps, {
    name: overrides.name ?? `Org ${orgCounter}`,
    adminEmail: overrides.email ?? `admin${orgCounter}-${randomBytes(4).toString("hex")}@example.com`,
    adminPassword: password,
    flags: overrides.flags,
  });
  return { ...created, password };
}

/** Signs in through the session API and returns the bearer token. */
export async function signIn(app: TestApp, email: string, password: string): Promise<string> {
  const res = await app.request("/api/auth/session", { json: { email, password } });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

export interface ServedTestApp extends TestApp {
  url: string;
  server: ReturnType<typeof Bun.serve>;
}

/** The test app listening on a loopback port, BASE_URL set to it: for clients that need a real URL. */
export async function serveTestApp(env: Record<string, string> = {}): Promise<ServedTestApp> {
  const { freePort } = await import("./process.ts");
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const app = await createTestApp({ BASE_URL: url, ...env });
  const server = Bun.serve({ port, hostname: "127.0.0.1", fetch: (request, srv) => app.handle(request, srv) });
  return Object.assign(app, {
    url,
    server,
    close: async () => {
      server.stop(true);
      await app.database.close();
    },
  });
}
