// Connectors with OAuth2 tokens (docs/interface.md 2.1, 3, docs/interface.md 5): a 401 from the server makes us refresh
// once at its authorization server (RFC 9728 → RFC 8414 → refresh_token grant), store the rotated
// tokens encrypted and retry; a refresh that fails puts the connector in error and tells the admin
// to reconnect. Calls go through OUR /api/mcp with the official SDK client.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { oauthProtectedServer, type OAuthFixture, type TokenPair } from "../support/mcp-servers.ts";
import { SNAPSHOT_TTL_MS } from "../../src/tools/registry.ts";
import {
  addEndUser,
  connectOk,
  connectorRow,
  enableConnector,
  FLAG,
  fixtures,
  type Org,
  refreshOk,
  sdkClient,
  serverById,
  sessionOf,
  textOf,
} from "./helpers.ts";

let app: ServedTestApp;
let org: Org;
let auth: Record<string, string>;
let client: Client;
let server: OAuthFixture;
let first: TokenPair;
let connectorId: string;
const CLIENT_SECRET = `client-secret-${crypto.randomUUID()}`;
const EXTERNAL_ID = "oauth-customer-7";
const running = fixtures();

beforeAll(async () => {
  app = await serveTestApp({ NODE_ENV: "development" });
  org = await seedOrg(app, { flags: [FLAG] });
  auth = await sessionOf(app, org);
  await addEndUser(app, org.org_id, EXTERNAL_ID);
  server = await running.start(oauthProtectedServer({ clientSecret: CLIENT_SECRET }));
  first = server.issue();
  const created = await connectOk(app, auth, {
    name: "OAuth server",
    slug: "oauthy",
    url: server.url,
    auth_method: "oauth2",
    credentials: { ...first, client_id: server.clientId, client_secret: CLIENT_SECRET },
  });
  if (created.status !== "connected") throw new Error(`not connected: ${created.error}`);
  connectorId = created.id;
  await enableConnector(app, auth, org.agent_id, connectorId);
  client = await sdkClient(app.url, org);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await running.stopAll();
  await app.close();
});

const echo = (text: string, slug = "oauthy") => client.callTool({ name: `mcp.${slug}.echo`, arguments: { text }, _meta: { bound_end_user_id: EXTERNAL_ID } });
const decrypt = (id: string, field: string, value: string) => app.deps.cipher.decrypt(value, `connectors.credentials.${field}:${id}`);

describe("OAuth2 connector", () => {
  test("connected with the tokens; a call works without any refresh", async () => {
    const result = await echo("with the first token");
    expect(result.isError).toBe(false);
    expect(textOf(result)).toBe("with the first token");
    expect(server.calls.at(-1)).toMatchObject({ tool: "echo", meta: { bound_end_user_id: EXTERNAL_ID } });
    expect(server.counters.token_requests ?? 0).toBe(0);
    expect(server.requests.find((r) => r.path === "/mcp")!.headers.authorization).toBe(`Bearer ${first.access_token}`);
  });

  test("after the access token expires, the next call refreshes exactly once and succeeds; the rotated tokens are stored encrypted", async () => {
    const before = await connectorRow(app, connectorId);
    server.expireAccessTokens();
    const result = await echo("after expiry");
    expect(result.isError).toBe(false);
    expect(textOf(result)).toBe("after expiry");
    expect(server.counters.token_refreshes).toBe(1);
    expect(server.counters.token_requests).toBe(1);
    const tokenRequest = server.requests.find((r) => r.path === "/token")!;
    expect(tokenRequest.body).toMatchObject({
      grant_type: "refresh_token",
      refresh_token: first.refresh_token,
      client_id: server.clientId,
      client_secret: CLIENT_SECRET,
    });

    const after = await connectorRow(app, connectorId);
    expect(after.status).toBe("connected");
    expect(after.credentials.access_token).not.toBe(before.credentials.access_token);
    expect(after.credentials.refresh_token).not.toBe(before.credentials.refresh_token);
    const access = decrypt(connectorId, "access_token", after.credentials.access_token!);
    const refresh = decrypt(connectorId, "refresh_token", after.credentials.refresh_token!);
    expect(access).not.toBe(first.access_token);
    expect(refresh).not.toBe(first.refresh_token);
    expect(access).toStartWith("at_");
    const stored = JSON.stringify(after.credentials);
    for (const plaintext of [access, refresh, first.access_token, first.refresh_token, CLIENT_SECRET]) expect(stored).not.toContain(plaintext);
    for (const value of Object.values(after.credentials)) expect(value).toStartWith("v1.");
    // client_id and client_secret are kept (re-encrypted) for the next refresh.
    expect(decrypt(connectorId, "client_id", after.credentials.client_id!)).toBe(server.clientId);
    expect(decrypt(connectorId, "client_secret", after.credentials.client_secret!)).toBe(CLIENT_SECRET);
    // The MCP request after the refresh carried the new token.
    expect(server.requests.filter((r) => r.path === "/mcp").at(-1)!.headers.authorization).toBe(`Bearer ${access}`);
  });

  test("later calls use the stored token: no further refresh", async () => {
    const refreshes = server.counters.token_refreshes;
    expect((await echo("soon after")).isError).toBe(false);
    app.clock.advance(SNAPSHOT_TTL_MS);
    const unauthorized = server.counters.unauthorized ?? 0;
    expect((await echo("a while after")).isError).toBe(false);
    expect(server.counters.unauthorized ?? 0).toBe(unauthorized); // the fresh snapshot has the rotated token
    expect(server.counters.token_refreshes).toBe(refreshes);
  });

  test("discovery (PATCH refresh) after expiry refreshes the tokens too", async () => {
    const refreshes = server.counters.token_refreshes!;
    server.expireAccessTokens();
    const view = await refreshOk(app, auth, connectorId);
    expect(view).toMatchObject({ status: "connected", last_error: null, tool_count: 1 });
    expect(server.counters.token_refreshes).toBe(refreshes + 1);
    app.clock.advance(SNAPSHOT_TTL_MS);
    expect((await echo("after a refreshed discovery")).isError).toBe(false);
    expect(server.counters.token_refreshes).toBe(refreshes + 1);
  });

  test("refresh token revoked too: the call fails, status error, last_error tells the admin to reconnect, the tools go", async () => {
    app.clock.advance(SNAPSHOT_TTL_MS);
    server.revokeRefreshTokens();
    server.expireAccessTokens();
    const failures = server.counters.token_failures ?? 0;
    const result = await echo("revoked");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/reconnect/i);
    expect(server.counters.token_failures).toBe(failures + 1);
    const listed = (await serverById(app, auth, connectorId))!;
    expect(listed.status).toBe("error");
    expect(listed.last_error).toMatch(/reconnect/i);
    app.clock.advance(SNAPSHOT_TTL_MS);
    const { tools } = await client.listTools();
    expect(tools.some((t) => t.name === "mcp.oauthy.echo")).toBe(false);
    const denied = await echo("while in error").catch((e: { code?: number }) => e);
    expect((denied as { code?: number }).code).toBe(-32002);
  });

  test("reconnecting with new tokens (PATCH credentials) brings it back", async () => {
    const fresh = server.issue();
    const view = await refreshOk(app, auth, connectorId, {
      auth_method: "oauth2",
      credentials: { ...fresh, client_id: server.clientId, client_secret: CLIENT_SECRET },
    });
    expect(view).toMatchObject({ status: "connected", last_error: null });
    app.clock.advance(SNAPSHOT_TTL_MS);
    expect((await echo("reconnected")).isError).toBe(false);
  });
});

describe("expiry under concurrency", () => {
  test("three parallel calls after the access token expired: all succeed, one refresh, the connector stays connected", async () => {
    const other = await running.start(oauthProtectedServer());
    const pair = other.issue();
    const created = await connectOk(app, auth, {
      name: "Parallel",
      slug: "parallel",
      url: other.url,
      auth_method: "oauth2",
      credentials: { ...pair, client_id: other.clientId },
    });
    expect(created.status).toBe("connected");
    await enableConnector(app, auth, org.agent_id, created.id);
    other.expireAccessTokens();
    const results = await Promise.all([echo("one", "parallel"), echo("two", "parallel"), echo("three", "parallel")]);
    expect(results.map((r) => [r.isError, textOf(r)])).toEqual([
      [false, "one"],
      [false, "two"],
      [false, "three"],
    ]);
    expect(other.counters.token_refreshes).toBe(1);
    expect((await serverById(app, auth, created.id))!.status).toBe("connected");
  });
});
