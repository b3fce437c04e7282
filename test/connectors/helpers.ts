// Shared plumbing of the connector tests (test/connectors/*.test.ts): a development-mode app with
// an org that may connect servers, the dashboard API of docs/interface.md 4.1 as small functions, agent toggles,
// the official SDK client signed in through our OAuth flow, a switchable proxy in front of the
// real fixture servers (so one connector URL can serve different tool sets, icons and a favicon
// between two discoveries), and tiny real raster images.
import { SCOPES_SUPPORTED } from "../../src/oauth/scopes.ts";
import { deflateSync } from "node:zlib";
import { expect } from "bun:test";
import { eq } from "drizzle-orm";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { connectors, endUsers } from "../../src/db/schema/index.ts";
import { SNAPSHOT_TTL_MS } from "../../src/tools/registry.ts";
import { buildRequest, createTestApp, seedOrg, signIn, type TestApp, type TestRequestInit } from "../support/app.ts";
import { connectWithOAuth, TestOAuthProvider } from "../support/mcp-client.ts";
import type { McpFixture } from "../support/mcp-servers.ts";
import { Browserless, consentFields } from "../support/oauth.ts";

export const FLAG = "mcp_external_servers";
export const SERVERS = "/api/integrations/mcp/servers";

export type Org = Awaited<ReturnType<typeof seedOrg>>;

export interface DiscoveredToolView {
  name: string;
  action_id: string;
  description: string;
  input_schema: Record<string, unknown>;
  destructive: boolean;
  read_only: boolean;
  idempotent: boolean;
  open_world: boolean;
  title?: string;
  output_schema?: Record<string, unknown>;
}

export interface ConnectorView {
  id: string;
  name: string;
  slug: string;
  url: string;
  auth_method: string;
  status: string;
  last_discovered_at: string | null;
  last_error: string | null;
  tool_count: number;
  discovered_tools: DiscoveredToolView[];
  dropped_tools: { name: string; reason: string }[];
  icon_url: string | null;
  server_info: Record<string, unknown>;
  created_at: string;
}

export interface ConnectResult {
  id: string;
  status: string;
  tool_count: number;
  error: string | null;
}

export interface ApiError {
  error: { code: string; message: string; details?: { path: string; message: string }[] };
}

/** Dashboard session headers for a member. */
export async function sessionOf(app: TestApp, member: { admin_email: string; password: string }): Promise<Record<string, string>> {
  return { authorization: `Bearer ${await signIn(app, member.admin_email, member.password)}` };
}

/** A development-mode app (loopback servers allowed) and an org with the connector flag on. */
export async function devApp(flags: string[] = [FLAG]) {
  const app = await createTestApp({ NODE_ENV: "development" });
  const org = await seedOrg(app, { flags });
  const auth = await sessionOf(app, org);
  return { app, org, auth };
}

/** The docs/interface.md 4.1 endpoints for one member. */
export function api(app: TestApp, auth: Record<string, string>) {
  return {
    connect: (body: Record<string, unknown>) => app.request(SERVERS, { method: "POST", json: body, headers: auth }),
    list: () => app.request(SERVERS, { headers: auth }),
    refresh: (id: string, body: unknown = {}) =>
      app.request(`${SERVERS}/${id}`, { method: "PATCH", ...(body === undefined ? {} : { json: body }), headers: auth }),
    disconnect: (id: string) => app.request(`${SERVERS}/${id}`, { method: "DELETE", headers: auth }),
  };
}

/** POST that must answer 201; returns the connect response. */
export async function connectOk(app: TestApp, auth: Record<string, string>, body: Record<string, unknown>): Promise<ConnectResult> {
  const res = await api(app, auth).connect({ auth_method: "none", ...body });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`connect answered ${res.status}: ${text}`);
  return JSON.parse(text) as ConnectResult;
}

export async function listServers(app: TestApp, auth: Record<string, string>): Promise<{ enabled: boolean; servers: ConnectorView[] }> {
  const res = await api(app, auth).list();
  expect(res.status).toBe(200);
  return (await res.json()) as { enabled: boolean; servers: ConnectorView[] };
}

export async function serverById(app: TestApp, auth: Record<string, string>, id: string): Promise<ConnectorView | undefined> {
  return (await listServers(app, auth)).servers.find((s) => s.id === id);
}

export async function refreshOk(app: TestApp, auth: Record<string, string>, id: string, body: unknown = {}): Promise<ConnectorView> {
  const res = await api(app, auth).refresh(id, body);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`refresh answered ${res.status}: ${text}`);
  return JSON.parse(text) as ConnectorView;
}

/** The error details' paths of a 4xx answer. */
export async function errorPaths(res: Response): Promise<string[]> {
  const body = (await res.json()) as ApiError;
  return (body.error.details ?? []).map((d) => d.path);
}

export async function connectorRow(app: TestApp, id: string) {
  const [row] = await app.deps.db.select().from(connectors).where(eq(connectors.id, id));
  return row!;
}

// ---------------------------------------------------------------------------------------------
// Agent toggles.

export interface ActionView {
  id: string;
  source: { kind: string; id?: string; label: string };
  destructive: boolean;
  enabled: boolean;
  scope: string;
}

export async function agentActions(app: TestApp, auth: Record<string, string>, agentId: string): Promise<ActionView[]> {
  const res = await app.request(`/api/agents/${agentId}/actions`, { headers: auth });
  expect(res.status).toBe(200);
  return ((await res.json()) as { actions: ActionView[] }).actions;
}

/** Switches actions on (and the registry snapshot over, so the tool server sees it at once). */
export async function enableActions(app: TestApp, auth: Record<string, string>, agentId: string, ids: string[]) {
  const res = await app.request(`/api/agents/${agentId}/actions`, { method: "PATCH", json: { enable: ids }, headers: auth });
  if (res.status !== 200) throw new Error(`enabling ${ids.join(", ")} answered ${res.status}: ${await res.text()}`);
  app.clock.advance(SNAPSHOT_TTL_MS);
}

/** Every discovered action of a connector, switched on. */
export async function enableConnector(app: TestApp, auth: Record<string, string>, agentId: string, connectorId: string) {
  const server = await serverById(app, auth, connectorId);
  if (!server) throw new Error(`no connector ${connectorId}`);
  await enableActions(
    app,
    auth,
    agentId,
    server.discovered_tools.map((t) => t.action_id),
  );
  return server;
}

export async function addEndUser(app: TestApp, orgId: string, externalId: string) {
  const [user] = await app.deps.db
    .insert(endUsers)
    .values({ orgId, externalId, email: `${externalId}@customers.example`, name: `Customer ${externalId}` })
    .returning();
  return user!;
}

// ---------------------------------------------------------------------------------------------
// The official SDK client, through our OAuth flow.

/** The minimum of TestApp that Browserless needs, over real HTTP to `base`. */
function httpApp(base: string): TestApp {
  const request = (path: string, init: TestRequestInit = {}) => fetch(buildRequest(base, path, init));
  return { request } as unknown as TestApp;
}

/** Plays the person at the authorization URL: signs in, clicks Allow, returns the code. */
export function person(base: string, email: string, password: string) {
  const ua = new Browserless(httpApp(base));
  return async (url: URL): Promise<string> => {
    const first = await ua.get(url.pathname + url.search);
    if (first.status !== 302) throw new Error(`authorize answered ${first.status}`);
    const returnTo = decodeURIComponent(first.headers.get("location")!.split("return_to=")[1]!);
    const signin = await ua.post("/signin", { email, password, return_to: returnTo });
    if (signin.status !== 303) throw new Error(`sign-in answered ${signin.status}`);
    const back = await ua.get(signin.headers.get("location")!);
    const page = await back.text();
    const answer = await ua.post("/api/mcp/oauth/consent", { ...consentFields(page), decision: "allow" });
    if (answer.status !== 303) throw new Error(`consent answered ${answer.status}`);
    return new URL(answer.headers.get("location")!).searchParams.get("code")!;
  };
}

/** The SDK client connected to `<base>/api/mcp` as the member (every published scope). */
export async function sdkClient(base: string, member: { admin_email: string; password: string }): Promise<Client> {
  // Configured with every scope: the 401 alone would hint only the read-only default.
  const provider = new TestOAuthProvider("http://127.0.0.1:53682/callback", async () => {}, { scope: SCOPES_SUPPORTED.join(" ") });
  const { client } = await connectWithOAuth(base, provider, person(base, member.admin_email, member.password));
  return client;
}

export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  expect(content).toHaveLength(1);
  expect(content[0]!.type).toBe("text");
  return content[0]!.text ?? "";
}

// ---------------------------------------------------------------------------------------------
// Fixtures.

/** Starts fixtures and stops them all at the end. */
export function fixtures() {
  const open: { stop(): Promise<void> | void }[] = [];
  return {
    async start<T extends { stop(): Promise<void> | void }>(fixture: T | Promise<T>): Promise<T> {
      const f = await fixture;
      open.push(f);
      return f;
    },
    async stopAll() {
      await Promise.all(open.splice(0).map((f) => Promise.resolve(f.stop()).catch(() => {})));
    },
  };
}

export interface Switchable {
  /** `<origin>/mcp`, forwarded to the current upstream's /mcp. */
  url: string;
  origin: string;
  port: number;
  /** Requests that reached the proxy (method and path). */
  requests: { method: string; path: string }[];
  /** Forward to another fixture from now on. */
  use(upstream: Pick<McpFixture, "url">): void;
  /** What /favicon.ico answers: bytes (200) or null (404). */
  favicon(bytes: Uint8Array<ArrayBuffer> | null, contentType?: string): void;
  stop(): void;
}

/**
 * A transparent proxy on 127.0.0.1 in front of a fixture: the connector keeps one URL while the
 * test switches the server behind it (other tools, other icons, a slow server), and it serves the
 * origin's /favicon.ico, which the fixtures do not.
 */
export function switchable(initial: Pick<McpFixture, "url">): Switchable {
  let target = new URL(initial.url);
  let icon: { bytes: Uint8Array<ArrayBuffer>; type: string } | null = null;
  const requests: { method: string; path: string }[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      requests.push({ method: req.method, path: url.pathname + url.search });
      if (url.pathname === "/favicon.ico")
        return icon ? new Response(icon.bytes, { headers: { "content-type": icon.type } }) : new Response("not found", { status: 404 });
      const headers = new Headers(req.headers);
      headers.delete("host");
      headers.delete("content-length");
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
      const upstream = await fetch(new URL(url.pathname + url.search, target), { method: req.method, headers, body, redirect: "manual", signal: req.signal });
      const out = new Headers(upstream.headers);
      out.delete("content-encoding");
      out.delete("content-length");
      return new Response(upstream.body, { status: upstream.status, headers: out });
    },
  });
  const origin = `http://127.0.0.1:${server.port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    port: server.port!,
    requests,
    use: (upstream) => void (target = new URL(upstream.url)),
    favicon: (bytes, type = "image/x-icon") => void (icon = bytes ? { bytes, type } : null),
    stop: () => void server.stop(true),
  };
}

// ---------------------------------------------------------------------------------------------
// Images.

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, "ascii"), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A real 1×1 RGBA PNG (signature, IHDR, IDAT, IEND) of the given colour. */
export function tinyPng(rgba: [number, number, number, number] = [255, 0, 0, 255]): Uint8Array<ArrayBuffer> {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0);
  ihdr.writeUInt32BE(1, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const idat = deflateSync(Buffer.from([0, ...rgba])); // filter byte 0, one pixel
  return new Uint8Array(
    Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", idat), chunk("IEND", new Uint8Array())]),
  );
}

/** A real 1×1 GIF89a. */
export const TINY_GIF: Uint8Array<ArrayBuffer> = new Uint8Array(Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64"));

export const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><script>alert(1)</script></svg>';

export const dataUrl = (type: string, bytes: Uint8Array | string) => `data:${type};base64,${Buffer.from(bytes).toString("base64")}`;
