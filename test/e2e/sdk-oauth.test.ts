// The official MCP SDK client reaches /api/mcp with nothing but its URL: discovery →
// registration → authorize → sign-in → consent → token → initialize → tools/list → tools/call,
// then keeps going across access-token expiry by refreshing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createDoc } from "../../src/knowledge/docs.ts";
import { REFRESH_REUSE_GRACE_MS } from "../../src/oauth/rotation.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { connectWithOAuth, TestOAuthProvider } from "../support/mcp-client.ts";
import { Browserless, consentFields, tokenRequest, verifyAccessToken } from "../support/oauth.ts";

let app: ServedTestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  app = await serveTestApp();
  org = await seedOrg(app);
  await createDoc(app.deps, org.org_id, {
    title: "Resetting your password",
    body: "To reset your password, open Settings, choose Security and click Reset password. A link arrives by email.",
  });
  await createDoc(app.deps, org.org_id, { title: "Billing and invoices", body: "Invoices are emailed monthly. Change your card under Billing." });
});
afterAll(() => app.close());

/** Plays the person: follows the authorization URL, signs in, clicks Allow; returns the code. */
function person(email: string, password: string) {
  const ua = new Browserless(app);
  return async (url: URL): Promise<string> => {
    const path = url.pathname + url.search;
    const first = await ua.get(path);
    expect(first.status).toBe(302);
    expect(first.headers.get("location")).toStartWith("/signin?return_to=");
    const signin = await ua.post("/signin", { email, password, return_to: decodeURIComponent(first.headers.get("location")!.split("return_to=")[1]!) });
    expect(signin.status).toBe(303);
    const back = await ua.get(signin.headers.get("location")!);
    expect(back.status).toBe(200);
    const page = await back.text();
    expect(page).toContain(">Allow</button>");
    expect(page).toContain(">Deny</button>");
    const answer = await ua.post("/api/mcp/oauth/consent", { ...consentFields(page), decision: "allow" });
    expect(answer.status).toBe(303);
    const redirect = new URL(answer.headers.get("location")!);
    expect(redirect.searchParams.get("iss")).toBe(app.url);
    return redirect.searchParams.get("code")!;
  };
}

describe("official SDK client with OAuth", () => {
  let provider: TestOAuthProvider;
  let client: Awaited<ReturnType<typeof connectWithOAuth>>["client"];

  test("from the URL alone to initialize, tools/list and tools/call", async () => {
    provider = new TestOAuthProvider("http://127.0.0.1:53682/callback");
    ({ client } = await connectWithOAuth(app.url, provider, person(org.admin_email, org.password)));
    expect(provider.client?.client_id).toStartWith("mcp_");
    expect(provider.savedTokens?.access_token).toMatch(/^svc_at_[A-Za-z0-9_-]{43}$/);
    expect(provider.savedTokens?.refresh_token).toMatch(/^svc_rt_/);
    // The SDK proposes 2025-11-25 and gets it, with that revision's serverInfo (title, websiteUrl, icons).
    expect(client.getServerVersion()).toMatchObject({ name: "svc-agents", version: "1.0.0", title: "Support agents", websiteUrl: app.url });
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });

    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain("search_docs");
    expect(names).toContain("read_doc");
    // The SDK asked for the scope the 401 named (the read-only default), not every published one: no writes.
    expect(names).toContain("data_get_user");
    expect(names).not.toContain("data_update_user");

    const result = await client.callTool({ name: "search_docs", arguments: { query: "how do I reset my password" } });
    expect(result.isError).toBe(false);
    const content = result.content as { type: string; text: string }[];
    expect(content).toHaveLength(1);
    expect(content[0]!.type).toBe("text");
    const parsed = JSON.parse(content[0]!.text) as { results: { title: string; snippet: string }[] };
    expect(parsed.results[0]!.title).toBe("Resetting your password");
    expect(content[0]!.text).toBe(JSON.stringify(parsed, null, 2));
  });

  test("after the access token expires, three parallel calls continue by refreshing, without a new sign-in", async () => {
    const before = provider.savedTokens!;
    const urlsBefore = provider.authorizationUrls.length;
    app.clock.advance(3600_000 + 1000);
    expect(await verifyAccessToken(app.deps, before.access_token)).toBeNull();
    const results = await Promise.all([client.listTools(), client.listTools(), client.ping()]);
    expect(results[0].tools.length).toBeGreaterThan(0);
    expect(provider.authorizationUrls.length).toBe(urlsBefore);
    expect(provider.savedTokens!.access_token).not.toBe(before.access_token);
    expect(provider.savedTokens!.refresh_token).not.toBe(before.refresh_token);

    // The refresh token the SDK started from is still valid until a successor is used…
    app.clock.advance(3600_000 + 1000);
    await client.listTools(); // …which this refresh does.
    app.clock.advance(REFRESH_REUSE_GRACE_MS + 1000); // past the grace for refreshes in flight
    const reused = await tokenRequest(app, { grant_type: "refresh_token", refresh_token: before.refresh_token!, client_id: provider.client!.client_id });
    expect(reused.res.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
    expect(String(reused.body.error_description)).toContain("grant has been revoked");
    // Reuse revoked the whole grant: the SDK's current token is dead too.
    expect(await verifyAccessToken(app.deps, provider.savedTokens!.access_token)).toBeNull();
  });
});
