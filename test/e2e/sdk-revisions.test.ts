// The official TypeScript SDK client at its newest published version (@modelcontextprotocol/client
// 2.4.0) connects through OAuth from the URL alone, lists and calls tools with each revision:
// 2025-03-26, 2025-06-18 and 2025-11-25 through initialize (the client offering only that one),
// and 2026-07-28 pinned, which never sends initialize (server/discover, then per-request _meta).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client, ProtocolError, SdkError, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import type { OAuthClientProvider } from "@modelcontextprotocol/client";
import { createDoc } from "../../src/knowledge/docs.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { Browserless, consentFields } from "../support/oauth.ts";
import { rejectionOf } from "../support/settle.ts";

type Provider = OAuthClientProvider & { urls: URL[] };
let app: ServedTestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  app = await serveTestApp();
  org = await seedOrg(app);
  await createDoc(app.deps, org.org_id, { title: "Shipping times", body: "Orders ship within two business days." });
}, 30_000);
afterAll(() => app.close());

function provider(port: number): Provider {
  let client: unknown;
  let tokens: unknown;
  let verifier = "";
  let discovery: unknown;
  const urls: URL[] = [];
  return {
    urls,
    get redirectUrl() {
      return `http://127.0.0.1:${port}/callback`;
    },
    get clientMetadata() {
      return {
        client_name: "SDK 2.4 test client",
        redirect_uris: [`http://127.0.0.1:${port}/callback`],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },
    clientInformation: () => client as never,
    saveClientInformation: (info) => void (client = info),
    tokens: () => tokens as never,
    saveTokens: (t) => void (tokens = t),
    redirectToAuthorization: (url) => void urls.push(url),
    saveCodeVerifier: (v) => void (verifier = v),
    codeVerifier: () => verifier,
    // The SDK binds the callback to the authorization server it discovered.
    saveDiscoveryState: (state: unknown) => void (discovery = state),
    discoveryState: () => discovery,
  } as Provider;
}

/** Plays the person on the authorization URL: signs in, allows; returns the redirect back. */
async function person(url: URL): Promise<URL> {
  const ua = new Browserless(app);
  await ua.signIn(org.admin_email, org.password);
  const page = await (await ua.get(url.pathname + url.search)).text();
  const answer = await ua.post("/api/mcp/oauth/consent", { ...consentFields(page), decision: "allow" });
  return new URL(answer.headers.get("location")!);
}

/** Every request the client sent: method, MCP-Protocol-Version, Mcp-Method. */
function recorder() {
  const sent: { method?: string; version: string | null; mcpMethod: string | null }[] = [];
  const fetchLike = async (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    if (init?.method === "POST" && typeof init.body === "string") {
      const body = JSON.parse(init.body) as { method?: string };
      sent.push({ method: body.method, version: headers.get("mcp-protocol-version"), mcpMethod: headers.get("mcp-method") });
    }
    return fetch(input, init);
  };
  return { sent, fetch: fetchLike };
}

async function connect(options: ConstructorParameters<typeof Client>[1], port: number) {
  const endpoint = new URL("/api/mcp", app.url);
  const auth = provider(port);
  const record = recorder();
  const first = new StreamableHTTPClientTransport(endpoint, { authProvider: auth, fetch: record.fetch });
  const probe = new Client({ name: "sdk-revisions", version: "1.0.0" }, options);
  expect(await rejectionOf(probe.connect(first))).toBeInstanceOf(UnauthorizedError);
  const back = await person(auth.urls.at(-1)!);
  await first.finishAuth(back.searchParams.get("code")!, back.searchParams.get("iss") ?? undefined);
  const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: auth, fetch: record.fetch });
  const client = new Client({ name: "sdk-revisions", version: "1.0.0" }, options);
  await client.connect(transport);
  return { client, sent: record.sent };
}

for (const [i, version] of ["2025-03-26", "2025-06-18", "2025-11-25"].entries()) {
  test(`${version}: initialize, tools/list, tools/call`, async () => {
    const { client, sent } = await connect({ supportedProtocolVersions: [version] }, 53700 + i);
    expect(sent.find((s) => s.method === "initialize")).toBeDefined();
    // After initialize the negotiated revision is on every request.
    expect(sent.filter((s) => s.method === "tools/list" || s.method === "notifications/initialized").every((s) => s.version === version)).toBe(true);
    const { tools } = await client.listTools();
    const search = tools.find((t) => t.name === "search_docs")!;
    expect(search.annotations?.readOnlyHint).toBe(true);
    expect(search.outputSchema !== undefined).toBe(version !== "2025-03-26");
    const result = await client.callTool({ name: "search_docs", arguments: { query: "shipping" } });
    expect(result.isError).toBe(false);
    if (version === "2025-03-26") expect(result.structuredContent).toBeUndefined();
    else expect((result.structuredContent as { results: { title: string }[] }).results[0]!.title).toBe("Shipping times");
    expect(sent.filter((s) => s.method !== undefined).at(-1)!.version).toBe(version);
    await client.close();
  });
}

test("2026-07-28 pinned: no initialize at all; server/discover, then tools/list and tools/call with the version and method headers", async () => {
  const { client, sent } = await connect({ versionNegotiation: { mode: { pin: "2026-07-28" } } }, 53710);
  const { tools } = await client.listTools();
  expect(tools.find((t) => t.name === "read_doc")?.annotations?.readOnlyHint).toBe(true);
  const result = await client.callTool({ name: "search_docs", arguments: { query: "shipping" } });
  expect(result.isError).toBe(false);
  expect((result.structuredContent as { results: { title: string }[] }).results[0]!.title).toBe("Shipping times");
  const methods = sent.map((s) => s.method);
  expect(methods).not.toContain("initialize");
  expect(methods).toContain("server/discover");
  for (const s of sent.filter((s) => s.method === "tools/list" || s.method === "tools/call"))
    expect(s).toMatchObject({ version: "2026-07-28", mcpMethod: s.method });
  await client.close();
});

test("2026-07-28: a tool that finds nothing is a JSON-RPC error in a 200 (-32601 naming what was not found), not a transport failure", async () => {
  const { client } = await connect({ versionNegotiation: { mode: { pin: "2026-07-28" } } }, 53711);
  const id = crypto.randomUUID();
  const error = await rejectionOf(client.callTool({ name: "read_doc", arguments: { id } }));
  expect(error).not.toBeInstanceOf(SdkError);
  expect(error).toBeInstanceOf(ProtocolError);
  expect((error as ProtocolError).code).toBe(-32601);
  expect(error.message).toContain(`No published article with id ${id}`);
  // The client goes on working after it.
  expect((await client.callTool({ name: "search_docs", arguments: { query: "shipping" } })).isError).toBe(false);
  await client.close();
});
