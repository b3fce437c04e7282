// Hostile input against EVERY route the app registers. The routes come
// from the app itself (Elysia's route list of createApp), so a route added later is covered without
// editing this file. Each route gets: nesting 10^4–10^5 deep (objects and arrays), control
// characters in every string field of its schema (and in keys, forms, queries and path params),
// wrong types, huge numbers, duplicate keys, wrong content types and an oversized body; and, over a
// raw socket, the request without Host (and with `Host: user@localhost`); an undecodable session
// cookie; and the sign-in's return_to table, through the GET form and the POST.
//
// Expected (docs/decisions.md, "Hostile input"): only documented statuses (the route's normal answer
// or a documented 4xx), never a 5xx, every answer within HOSTILE_RESPONSE_BOUND_MS, /healthz
// answering within HEALTH_BOUND_MS throughout (a served app probed concurrently), and an audit row
// for every tools/call the tool server accepted as a call.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createApp } from "../../../src/app.ts";
import { actionExecutions, endUsers } from "../../../src/db/schema/index.ts";
import { BODY_LIMITS } from "../../../src/http/body.ts";
import { seedOrg, serveTestApp, signIn, type ServedTestApp } from "../../support/app.ts";
import { formReturnTo, RETURN_TO_TABLE, UNDECODABLE_COOKIES } from "../../support/hostile-values.ts";
import { rawRequest } from "../../support/raw-http.ts";
import { tokensFor } from "../../support/oauth.ts";

/** Statuses a hostile request may get: a route's normal answers and the documented refusals. */
// 410: a one-time link (password reset, rating) that is used up or expired (README "Accounts", "CSAT").
const DOCUMENTED = new Set([200, 201, 202, 204, 302, 303, 400, 401, 403, 404, 405, 406, 409, 410, 413, 415, 421, 429]);
export const HOSTILE_RESPONSE_BOUND_MS = 2000;
export const HEALTH_BOUND_MS = 100;

type Schema = Record<string, any>;
interface Route {
  method: string;
  path: string;
  body?: Schema;
  query?: Schema;
}
interface Case {
  route: string;
  label: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** A tools/call: audited unless the message was refused as unparseable or not a request. */
  toolsCall?: true;
  /** Sent as these bytes (request line and headers) on a raw socket instead of through fetch. */
  raw?: string;
  /** Where the answer must point (Location, or the sign-in form's return_to). */
  lands?: string;
}

let app: ServedTestApp;
let sessionToken: string;
/** For the routes that end a session (sign-out): the main session must survive the whole run. */
let throwawayToken: string;
let mcpToken: string;
let widgetKey: string;
let orgId: string;
let admin: { email: string; password: string };
let routes: Route[];
const results: { c: Case; status: number; ms: number; text: string; at: number; landed?: string | null }[] = [];
const probes: { at: number; ms: number }[] = [];
let auditRows = 0;

// ---- value builders ------------------------------------------------------------------------
const deepArray = (n: number) => "[".repeat(n) + "]".repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);
const HUGE = "__HUGE__";

type Mode = "nul" | "control" | "wrongType" | "huge" | "valid";
const CONTROL: Record<string, string> = { nul: "a\u0000b", control: "\u001b[31mx\u0007\u0008" };

/** A value for `schema` where every string is poisoned by `mode` (bounded walk, TypeBox JSON Schema). */
function sample(schema: Schema | undefined, mode: Mode, depth = 0): unknown {
  if (!schema || depth > 5) return mode === "wrongType" ? { x: 1 } : "x";
  if (schema.anyOf) return sample(schema.anyOf.find((s: Schema) => s.type !== "null") ?? schema.anyOf[0], mode, depth + 1);
  if (schema.const !== undefined) return mode === "wrongType" ? [schema.const] : schema.const;
  switch (schema.type) {
    case "object": {
      if (mode === "wrongType" && depth > 0) return "not an object";
      const out: Record<string, unknown> = {};
      for (const [k, s] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) out[k] = sample(s, mode, depth + 1);
      if (Object.keys(out).length === 0) out.key = mode in CONTROL ? CONTROL[mode] : mode === "huge" ? HUGE : "v";
      return out;
    }
    case "array":
      return mode === "wrongType" ? "not an array" : [sample(schema.items, mode, depth + 1)];
    case "string":
      if (mode in CONTROL) return CONTROL[mode];
      if (mode === "wrongType") return { not: "a string" };
      if (mode === "huge") return "9".repeat(Math.min(schema.maxLength ?? 400, 400));
      return schema.format === "email" ? "a@example.com" : "x";
    case "integer":
    case "number":
      return mode === "huge" ? HUGE : mode === "wrongType" ? "12" : 1;
    case "boolean":
      return mode === "wrongType" ? "true" : true;
    default:
      return mode in CONTROL ? CONTROL[mode] : mode === "huge" ? HUGE : "x";
  }
}

const text = (value: unknown, huge = "1e400") => JSON.stringify(value).replaceAll(`"${HUGE}"`, huge);

// ---- cases -----------------------------------------------------------------------------------
function concretePath(path: string, param: string = crypto.randomUUID()): string {
  return path.replace(/:[A-Za-z_]+/g, param).replace(/\*$/, "x");
}

function authFor(path: string): Record<string, string> {
  if (path === "/api/mcp") return { authorization: `Bearer ${mcpToken}`, accept: "application/json, text/event-stream" };
  if (path === "/api/auth/session" || path === "/signout") return { authorization: `Bearer ${throwawayToken}` };
  // The widget SDK's public API authenticates with the org's publishable key.
  if (path.startsWith("/api/sdk/")) return { authorization: `Bearer ${widgetKey}` };
  return { authorization: `Bearer ${sessionToken}` };
}

const JSON_TYPE = { "content-type": "application/json" };

/** The body cap that applies to `path` (longest matching prefix of BODY_LIMITS, as the parser picks). */
function bodyLimit(path: string): number {
  const matching = BODY_LIMITS.filter((l) => (l.exact ? path === l.prefix : path.startsWith(l.prefix)));
  return matching.sort((a, b) => b.prefix.length - a.prefix.length)[0]!.bytes;
}

function casesFor(route: Route): Case[] {
  const name = `${route.method} ${route.path}`;
  const path = concretePath(route.path);
  const base = { route: name, method: route.method, path, headers: authFor(route.path) };
  const cases: Case[] = [];
  const withBody = (label: string, body: string, headers: Record<string, string> = JSON_TYPE) =>
    cases.push({ ...base, label, body, headers: { ...base.headers, ...headers } });

  // Path parameters and query strings, for every method.
  if (route.path.includes(":")) {
    for (const [label, param] of [
      ["NUL in path param", "%00"],
      ["control in path param", "%1b%07"],
      ["long path param", "x".repeat(4000)],
      ["number path param", "1e400"],
    ] as const) {
      cases.push({ ...base, label, path: concretePath(route.path, param) });
    }
  }
  const queryKeys = Object.keys(route.query?.properties ?? {});
  for (const key of [...queryKeys.slice(0, 6), "q"]) {
    cases.push({ ...base, label: `NUL in query ${key}`, path: `${path}?${key}=a%00b` });
    cases.push({ ...base, label: `huge number in query ${key}`, path: `${path}?${key}=1e400&${key}=-99999999999999999999` });
  }
  cases.push({ ...base, label: "NUL in query name", path: `${path}?a%00b=1` });

  if (route.method === "GET" || route.method === "OPTIONS" || route.method === "HEAD") return cases;

  // Nesting 10^4–10^5 levels: the parser must refuse it in linear time without recursion.
  withBody("arrays nested 7,000 deep", deepArray(7_000));
  withBody("objects nested 10,000 deep", deepObject(10_000));
  withBody("arrays nested 100,000 deep", deepArray(100_000));
  const fields = Object.keys(route.body?.properties ?? {}).slice(0, 6);
  for (const field of fields) withBody(`arrays nested 6,000 deep in ${field}`, `{${JSON.stringify(field)}:${deepArray(6_000)}}`);
  // Control characters: in every string field of the schema, in a key, raw in a string.
  if (route.body) {
    withBody("NUL in every string field", text(sample(route.body, "nul")));
    withBody("C0 controls in every string field", text(sample(route.body, "control")));
    withBody("wrong type in every field", text(sample(route.body, "wrongType")));
    withBody("1e400 in every number", text(sample(route.body, "huge")));
    withBody("-1e308 in every number", text(sample(route.body, "huge"), "-1e308"));
    withBody("2^64 in every number", text(sample(route.body, "huge"), "18446744073709551616"));
    const valid = sample(route.body, "valid") as Record<string, unknown>;
    const first = Object.keys(valid)[0] ?? "a";
    withBody("duplicate keys", `{${JSON.stringify(first)}:1,${JSON.stringify(first)}:${JSON.stringify(valid[first] ?? 2)}}`);
    withBody("valid body as XML", text(valid), { "content-type": "application/xml" });
    withBody("valid body as multipart", text(valid), { "content-type": "multipart/form-data; boundary=x" });
  }
  withBody("NUL in a key", '{"a\\u0000b":1}');
  withBody("raw control character in a string", '{"a":"x\u0001y"}');
  withBody("lone surrogate", '{"a":"\\ud800"}');
  withBody("__proto__ key", '{"__proto__":{"admin":true}}');
  for (const value of ["[]", '"s"', "1e400", "null", "true", "{"]) withBody(`top-level ${value}`, value);
  withBody("form with NUL", "a=%00&email=x%00%40example.com&client_id=%00", { "content-type": "application/x-www-form-urlencoded" });
  withBody("text with NUL", "a\u0000b", { "content-type": "text/plain" });
  withBody("no content type", '{"a":1}', {});
  withBody("unknown content type", '{"a":1}', { "content-type": "application/x-made-up" });
  withBody("oversized body", `{"a":"${"x".repeat(bodyLimit(path))}"}`);
  return cases;
}

/** Host missing or malformed (raw socket), an undecodable session cookie, and the return_to table. */
function requestEdgeCases(): Case[] {
  const cases: Case[] = [];
  for (const route of routes) {
    const path = concretePath(route.path);
    const base = { route: `${route.method} ${route.path}`, method: route.method, path };
    cases.push({ ...base, label: "no Host", raw: `${route.method} ${path} HTTP/1.0` });
    cases.push({ ...base, label: "Host with userinfo", raw: `${route.method} ${path} HTTP/1.1\r\nHost: user@localhost` });
    for (const value of route.path === "/api/me" ? UNDECODABLE_COOKIES : UNDECODABLE_COOKIES.slice(0, 1))
      cases.push({ ...base, label: `undecodable session cookie ${value}`, headers: { cookie: `svc_session=${value}` } });
  }
  for (const [raw, lands] of RETURN_TO_TABLE) {
    cases.push({ route: "GET /signin", label: `return_to ${JSON.stringify(raw)}`, method: "GET", path: `/signin?return_to=${encodeURIComponent(raw)}`, lands });
    const form = new URLSearchParams({ email: admin.email, password: admin.password, return_to: raw }).toString();
    cases.push({
      route: "POST /signin",
      label: `return_to ${JSON.stringify(raw)}`,
      method: "POST",
      path: "/signin",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form,
      lands,
    });
  }
  return cases;
}

/** The tool server's own hostile calls (its body is raw JSON-RPC): every tools/call must be audited. */
function toolServerCases(): Case[] {
  const headers = { ...authFor("/api/mcp"), ...JSON_TYPE };
  const call = (label: string, args: string, name = '"read_doc"'): Case => ({
    route: "POST /api/mcp",
    label: `tools/call ${label}`,
    method: "POST",
    path: "/api/mcp",
    headers,
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${name},"arguments":${args}}}`,
    toolsCall: true,
  });
  return [
    call("read_doc NUL id", '{"id":"\\u0000"}'),
    call("read_doc control id", '{"id":"\\u001b"}'),
    call("read_doc deep id", `{"id":${deepArray(10_000)}}`),
    call("read_doc id nested 60 deep", `{"id":${deepArray(60)}}`),
    call("read_doc huge id", '{"id":1e400}'),
    call("read_doc id wrong type", '{"id":{"a":1}}'),
    call("read_doc long id", JSON.stringify({ id: "x".repeat(50_000) })),
    call("search_docs NUL query", '{"query":"a\\u0000b"}', '"search_docs"'),
    call("search_docs C1 and DEL query", JSON.stringify({ query: "a\u0085\u007fb" }), '"search_docs"'),
    call("search_docs huge limit", '{"query":"a","limit":1e400}', '"search_docs"'),
    call("search_docs negative limit", '{"query":"a","limit":-99999999999999999999}', '"search_docs"'),
    call("data_get_user NUL id", '{"user_id":"\\u0000"}', '"data_get_user"'),
    call("data_update_user deep traits", `{"user_id":"hostile-user","traits":${deepObject(10_000)}}`, '"data_update_user"'),
    call("data_update_user traits nested 60 deep", `{"user_id":"hostile-user","traits":${deepObject(60)}}`, '"data_update_user"'),
    call("data_update_user NUL in trait key", '{"user_id":"hostile-user","traits":{"a\\u0000":1}}', '"data_update_user"'),
    call("arguments as array", "[]"),
    call("arguments as string", '"x"'),
    call("duplicate argument keys", '{"id":"a","id":"b"}'),
    call("unknown tool", "{}", '"no_such_tool"'),
    call("tool name with NUL", "{}", '"read\\u0000doc"'),
    call("tool name nested", "{}", deepArray(50)),
  ];
}

/** The OAuth endpoints read their bodies raw (RFC 6749 / RFC 7591 errors): hostile fields by name. */
function oauthCases(): Case[] {
  const json = { "content-type": "application/json" };
  const form = { "content-type": "application/x-www-form-urlencoded" };
  const register = (label: string, body: string): Case => ({
    route: "POST /api/mcp/oauth/register",
    label,
    method: "POST",
    path: "/api/mcp/oauth/register",
    headers: { ...json, "x-forwarded-for": "198.51.100.99" },
    body,
  });
  const formPost = (path: string, label: string, body: string): Case => ({ route: `POST ${path}`, label, method: "POST", path, headers: form, body });
  return [
    register("NUL in client_name", '{"client_name":"a\u0000b","redirect_uris":["https://c.example/cb"],"token_endpoint_auth_method":"none"}'),
    register("NUL in a redirect URI", '{"client_name":"c","redirect_uris":["https://c.example/cb\u0000"],"token_endpoint_auth_method":"none"}'),
    register("CRLF in a redirect URI", '{"client_name":"c","redirect_uris":["https://c.example/cb\r\nX: y"],"token_endpoint_auth_method":"none"}'),
    register("redirect_uris nested 10,000 deep", `{"client_name":"c","redirect_uris":${deepArray(10_000)}}`),
    register("client_name 1e400", '{"client_name":1e400,"redirect_uris":["https://c.example/cb"]}'),
    register("duplicate client_name", '{"client_name":"a","client_name":"b","redirect_uris":["https://c.example/cb"]}'),
    formPost("/api/mcp/oauth/token", "NUL in client_id", "grant_type=authorization_code&code=x&code_verifier=y&client_id=%00"),
    formPost("/api/mcp/oauth/token", "NUL in code", "grant_type=authorization_code&code=%00&code_verifier=y&client_id=abc"),
    formPost("/api/mcp/oauth/token", "NUL in refresh_token", "grant_type=refresh_token&refresh_token=svc_rt_%00&client_id=abc"),
    formPost("/api/mcp/oauth/revoke", "NUL in token", "token=%00&client_id=abc"),
    formPost("/api/mcp/oauth/revoke", "NUL in client_id", "token=x&client_id=%00"),
  ];
}

// ---- running ---------------------------------------------------------------------------------
/** The slowest /healthz answer while `c` is sent once more (probing every 5 ms). */
async function worstProbeDuring(c: Case): Promise<number> {
  let running = true;
  let worst = 0;
  const probe = (async () => {
    while (running) {
      const started = performance.now();
      await (await fetch(`${app.url}/healthz`)).arrayBuffer();
      worst = Math.max(worst, performance.now() - started);
      await Bun.sleep(5);
    }
  })();
  await Bun.sleep(10);
  await transmit(c);
  running = false;
  await probe;
  return worst;
}

/** One case over the wire: through fetch, or as raw bytes on a socket. */
async function transmit(c: Case): Promise<{ status: number; text: string; location: string | null }> {
  if (c.raw !== undefined) {
    const res = await rawRequest(app.server.port!, c.raw);
    return { status: res.status, text: res.body, location: res.headers.get("location") };
  }
  const res = await fetch(`${app.url}${c.path}`, { method: c.method, headers: c.headers, body: c.body, redirect: "manual" });
  return { status: res.status, text: await bodyText(res), location: res.headers.get("location") };
}

/** The answer's text; an event stream that opened (it never ends by itself) gives its first chunk and is closed. */
async function bodyText(res: Response): Promise<string> {
  if (!res.headers.get("content-type")?.startsWith("text/event-stream") || !res.body) return res.text();
  const reader = res.body.getReader();
  const first = await reader.read();
  await reader.cancel();
  return first.value ? new TextDecoder().decode(first.value) : "";
}

async function send(c: Case) {
  const started = performance.now();
  const res = await transmit(c);
  const landed = c.lands === undefined ? undefined : c.method === "GET" ? formReturnTo(res.text) : res.location;
  results.push({ c, status: res.status, ms: performance.now() - started, text: res.text.slice(0, 300), at: started, landed });
}

beforeAll(async () => {
  app = await serveTestApp();
  const org = await seedOrg(app);
  orgId = org.org_id;
  admin = { email: org.admin_email, password: org.password };
  widgetKey = org.widget_key;
  sessionToken = await signIn(app, org.admin_email, org.password);
  throwawayToken = await signIn(app, org.admin_email, org.password);
  mcpToken = (await tokensFor(app, org, "docs:read data:read data:write actions:read actions:write")).accessToken;
  await app.deps.db.insert(endUsers).values({ orgId, externalId: "hostile-user", email: "hostile@customers.example", name: "Hostile" });
  // The app's own route list: what a later route adds is covered here without an edit.
  routes = createApp(app.deps).routes.map((r) => {
    const hooks = (r.hooks ?? {}) as { body?: Schema; query?: Schema };
    return { method: r.method, path: r.path, body: hooks.body, query: hooks.query };
  });

  // Warm up first (the probe's connection, and one plain request per route, so first-use JIT and
  // lazy compilation are not counted): the bound is about stalls caused by hostile input.
  // Concurrently, so the client pool holds a connection for the probe and one for the cases.
  for (let i = 0; i < 3; i++) await Promise.all([0, 1, 2].map(async () => (await fetch(`${app.url}/healthz`)).arrayBuffer()));
  for (const route of routes)
    await bodyText(await fetch(`${app.url}${concretePath(route.path)}`, { method: route.method, headers: authFor(route.path), redirect: "manual" }));
  // Built before the probe starts: making the payloads is the suite's own work, not the server's.
  const cases = [...routes.flatMap(casesFor), ...toolServerCases(), ...oauthCases(), ...requestEdgeCases()];
  let running = true;
  const probe = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${app.url}/healthz`);
      await res.arrayBuffer();
      probes.push({ at: started, ms: performance.now() - started });
      await Bun.sleep(20);
    }
  })();
  for (const c of cases) await send(c);
  running = false;
  await probe;
  // Counted now: the /healthz check below may send suspects again.
  auditRows = (await app.deps.db.select({ tool: actionExecutions.tool }).from(actionExecutions).where(eq(actionExecutions.orgId, orgId))).length;
}, 240_000);
afterAll(() => app.close());

describe("hostile input on every registered route", () => {
  test("the route list comes from the app and covers the known surface", () => {
    const names = routes.map((r) => `${r.method} ${r.path}`);
    for (const known of ["POST /api/auth/session", "POST /api/mcp", "POST /api/docs", "POST /api/mcp/oauth/register", "POST /signin"])
      expect(names).toContain(known);
    expect(results.length).toBeGreaterThan(routes.length * 5);
  });

  test("the run was authenticated throughout: the session and the access token still work", async () => {
    expect((await fetch(`${app.url}/api/me`, { headers: { authorization: `Bearer ${sessionToken}` } })).status).toBe(200);
    const list = await fetch(`${app.url}/api/mcp`, {
      method: "POST",
      headers: { ...authFor("/api/mcp"), ...JSON_TYPE },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(list.status).toBe(200);
    // And the routes behind a session were reached past authentication.
    const docs = results.filter((r) => r.c.route === "POST /api/docs" && r.c.label === "no content type");
    expect(docs.map((r) => r.status)).toEqual([400]);
  });

  test("never a 5xx, only documented statuses", () => {
    const bad = results.filter((r) => !DOCUMENTED.has(r.status)).map((r) => `${r.status} ${r.c.route} [${r.c.label}] ${r.text}`);
    expect(bad).toEqual([]);
  });

  test("no Host is 400 on every route, an undecodable cookie is signed out, return_to lands where the table says", () => {
    const on = (label: RegExp) => results.filter((r) => label.test(r.c.label));
    const hostless = on(/^(no Host|Host with userinfo)$/);
    expect(hostless.length).toBe(routes.length * 2);
    expect(hostless.filter((r) => r.status !== 400 || !r.text.includes('"/headers/host"')).map((r) => `${r.status} ${r.c.route} [${r.c.label}]`)).toEqual([]);
    const cookie = on(/^undecodable session cookie/);
    expect(cookie.length).toBeGreaterThanOrEqual(routes.length);
    expect(cookie.filter((r) => r.status >= 500).map((r) => `${r.status} ${r.c.route} [${r.c.label}]`)).toEqual([]);
    const me = cookie.filter((r) => r.c.route === "GET /api/me");
    expect(me.map((r) => r.status)).toEqual(UNDECODABLE_COOKIES.map(() => 401));
    const returnTo = results.filter((r) => r.c.lands !== undefined);
    expect(returnTo.length).toBe(RETURN_TO_TABLE.length * 2);
    expect(returnTo.map((r) => [r.c.route, r.c.label, r.status, r.landed])).toEqual(
      returnTo.map((r) => [r.c.route, r.c.label, r.c.method === "GET" ? 200 : 303, r.c.lands]),
    );
  });

  test(`every answer within ${HOSTILE_RESPONSE_BOUND_MS} ms`, async () => {
    // As for /healthz below: a slow answer is timed once more alone; only a repeat fails.
    const slow: string[] = [];
    for (const r of results.filter((r) => r.ms > HOSTILE_RESPONSE_BOUND_MS)) {
      const started = performance.now();
      await transmit(r.c);
      const again = performance.now() - started;
      if (again > HOSTILE_RESPONSE_BOUND_MS) slow.push(`${r.c.route} [${r.c.label}]: ${Math.round(r.ms)} ms, then ${Math.round(again)} ms`);
    }
    expect(slow).toEqual([]);
  });

  test("a body over the cap is 413, deep nesting and control characters are refused before any handler", () => {
    const on = (label: string) => results.filter((r) => r.c.label === label && !r.c.route.startsWith("POST /api/mcp"));
    for (const r of on("oversized body")) expect([413, 404, 405]).toContain(r.status);
    // 415: a route whose body is not JSON (a recording: /api/sdk/voice/transcribe) refuses it as the wrong media type.
    for (const r of on("arrays nested 7,000 deep")) expect([400, 404, 405, 415], r.c.route).toContain(r.status);
  });

  test(`/healthz answered within ${HEALTH_BOUND_MS} ms throughout`, async () => {
    expect(probes.length).toBeGreaterThan(5);
    // A slow probe names the hostile requests that were in flight while it waited. On a shared,
    // overloaded machine a probe can also wait for a CPU; a stall caused by input is repeatable,
    // so each suspect is sent again alone under a fresh probe, and only a repeated stall fails.
    const suspects = new Map<Case, number>();
    for (const p of probes.filter((p) => p.ms >= HEALTH_BOUND_MS)) {
      for (const r of results.filter((r) => r.at < p.at + p.ms && r.at + r.ms > p.at)) suspects.set(r.c, Math.max(suspects.get(r.c) ?? 0, p.ms));
    }
    const confirmed: string[] = [];
    for (const [c, first] of suspects) {
      const again = await worstProbeDuring(c);
      if (again >= HEALTH_BOUND_MS) confirmed.push(`${c.route} [${c.label}]: /healthz took ${Math.round(first)} ms, then ${Math.round(again)} ms`);
    }
    expect(confirmed).toEqual([]);
  });

  test("every tools/call the server accepted as a call left its audit row", () => {
    const calls = results.filter((r) => r.c.toolsCall);
    const parsed = calls.filter((r) => {
      // A message refused as unparseable (-32700) or not a request (-32600) is no call.
      const code = (() => {
        try {
          return (JSON.parse(r.text) as { error?: { code?: number | string } }).error?.code;
        } catch {
          return undefined;
        }
      })();
      return r.status !== 401 && code !== -32700 && code !== -32600 && code !== "invalid_json";
    });
    expect(auditRows).toBe(parsed.length);
    // Control characters in a call (arguments or tool name) are the call's problem, not the body's:
    // refused as -32602 / -32601 by the runtime, so they are among the audited.
    const withControls = calls.filter((r) => /NUL|control/.test(r.c.label));
    expect(withControls.length).toBeGreaterThan(3);
    for (const r of withControls) expect([-32602, -32601]).toContain((JSON.parse(r.text) as { error: { code: number } }).error.code);
  });
});
