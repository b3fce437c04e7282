// A 401 from /api/mcp names the least scope the request needs (docs/interface.md A.5; 2025-11-25
// authorization, scope selection), and a client that follows it gets a consent page asking only
// for that: raw for a tools/call of search_docs, and the official SDK client from the URL alone;
// a 403 at step-up names the scopes held plus the one lacking, and its consent page asks for that set.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SCOPES } from "../../src/oauth/scopes.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { connectWithOAuth, TestOAuthProvider } from "../support/mcp-client.ts";
import { Browserless, consentFields, pkcePair, registerPublicClient, rpc, tokensFor } from "../support/oauth.ts";

let app: ServedTestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  app = await serveTestApp();
  org = await seedOrg(app);
}, 30_000);
afterAll(() => app.close());

const scopeOf = (challenge: string | null) => /(?:^|[ ,])scope="([^"]*)"/.exec(challenge ?? "")?.[1];
/** Which scopes a consent page asks for, by their plain-words descriptions. */
const asked = (page: string) =>
  Object.entries(SCOPES)
    .filter(([, words]) => page.includes(words))
    .map(([scope]) => scope);

test("the 401 names the tool's scope for a tools/call, the read-only default for initialize, none for ping", async () => {
  const call = await rpc(app, undefined, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_docs", arguments: { query: "x" } } });
  expect(call.res.status).toBe(401);
  expect(scopeOf(call.res.headers.get("www-authenticate"))).toBe("docs:read");
  expect(call.res.headers.get("www-authenticate")).toContain('resource_metadata="');
  const write = await rpc(app, undefined, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "inbox_reply", arguments: {} } });
  expect(scopeOf(write.res.headers.get("www-authenticate"))).toBe("inbox:write");
  const custom = await rpc(app, undefined, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "custom.refund", arguments: {} } });
  expect(scopeOf(custom.res.headers.get("www-authenticate"))).toBe("actions:read");
  const init = await rpc(app, undefined, {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  });
  expect(
    scopeOf(init.res.headers.get("www-authenticate"))!
      .split(" ")
      .every((s) => s.endsWith(":read")),
  ).toBe(true);
  const bad = await rpc(app, "svc_at_forged", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "read_doc", arguments: { id: "x" } } });
  expect(bad.res.headers.get("www-authenticate")).toContain('error="invalid_token"');
  expect(scopeOf(bad.res.headers.get("www-authenticate"))).toBe("docs:read");
  const ping = await rpc(app, undefined, { jsonrpc: "2.0", id: 1, method: "ping" });
  expect(scopeOf(ping.res.headers.get("www-authenticate"))).toBeUndefined();
});

test("following the hint, the consent page asks only for docs:read", async () => {
  const call = await rpc(app, undefined, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_docs", arguments: { query: "x" } } });
  const scope = scopeOf(call.res.headers.get("www-authenticate"))!;
  const client = await registerPublicClient(app);
  const ua = new Browserless(app);
  await ua.signIn(org.admin_email, org.password);
  const { challenge } = pkcePair();
  const { status, page } = await ua.authorize({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: "http://127.0.0.1:9/callback",
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope,
  });
  expect(status).toBe(200);
  expect(asked(page)).toEqual(["docs:read"]);
});

test("the official SDK client, given no scope, asks for what the 401 named: no write scope on the consent page", async () => {
  const pages: string[] = [];
  const authorize = async (url: URL) => {
    const ua = new Browserless(app);
    await ua.signIn(org.admin_email, org.password);
    const page = await (await ua.get(url.pathname + url.search)).text();
    pages.push(page);
    const answer = await ua.post("/api/mcp/oauth/consent", { ...consentFields(page), decision: "allow" });
    return new URL(answer.headers.get("location")!).searchParams.get("code")!;
  };
  const provider = new TestOAuthProvider("http://127.0.0.1:53695/callback", async () => {});
  const { client } = await connectWithOAuth(app.url, provider, authorize);
  const requested = provider.authorizationUrls.at(-1)!.searchParams.get("scope")!.split(" ");
  expect(requested.length).toBeGreaterThan(0);
  expect(requested.every((s) => s.endsWith(":read"))).toBe(true);
  expect(asked(pages[0]!).sort()).toEqual([...requested].sort());
  expect(asked(pages[0]!).some((s) => s.endsWith(":write"))).toBe(false);
  expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  await client.close();
});

test("step-up: a 403 names the scopes held plus the one lacking, and a client following it gets a consent page for that combined set", async () => {
  const held = await tokensFor(app, org, "docs:read data:read");
  const denied = await rpc(app, held.accessToken, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "data_update_user", arguments: { user_id: "x", name: "y" } },
  });
  expect(denied.res.status).toBe(403);
  const challenge = denied.res.headers.get("www-authenticate")!;
  expect(challenge).toContain('error="insufficient_scope"');
  expect(challenge).toContain('resource_metadata="');
  const scope = scopeOf(challenge)!;
  expect(scope.split(" ").sort()).toEqual(["data:read", "data:write", "docs:read"]);
  const ua = new Browserless(app);
  await ua.signIn(org.admin_email, org.password);
  const { challenge: pkce } = pkcePair();
  const { status, page } = await ua.authorize({
    response_type: "code",
    client_id: held.clientId,
    redirect_uri: "http://127.0.0.1:9/callback",
    code_challenge: pkce,
    code_challenge_method: "S256",
    scope,
  });
  expect(status).toBe(200);
  expect(asked(page).sort()).toEqual(["data:read", "data:write", "docs:read"]);
  // The stepped-up token makes the call (an unknown user: a tool error, no longer a 403).
  const stepped = await tokensFor(app, org, scope);
  const after = await rpc(app, stepped.accessToken, {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "data_update_user", arguments: { user_id: "x", name: "y" } },
  });
  expect(after.res.status).toBe(200);
});
