// Client ID Metadata Documents end to end (src/oauth/client-metadata.ts): a client whose client_id
// is an https URL on loopback, served over real TLS with a throwaway certificate. The app runs with
// NODE_ENV=development (the outbound guard's loopback rule) and trusts that certificate through
// the guard's `ca` option (deps.guard, as tests inject its resolver): the guard's code is the one
// production runs. Authorize, consent naming the host, tokens; then the refusals: a client_id
// that is not the URL, an oversized document, a private address, a redirect URI not in it.
// The limits on fetching are in client-metadata-limits.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { Browserless, consentFields, pkcePair, rpc, tokenRequest } from "../support/oauth.ts";
import { certificateIn } from "../support/tls.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let server: Server<unknown>;
let dir: string;
const hits = new Map<string, number>();
const CALLBACK = "http://127.0.0.1:9/callback";

const base = () => `https://localhost:${server.port}`;
const documents: Record<string, (url: string) => { body: string; headers?: Record<string, string> }> = {
  "/good.json": (url) => ({
    body: JSON.stringify({ client_id: url, client_name: "Acme Assistant", redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" }),
    headers: { "cache-control": "max-age=60" },
  }),
  "/mismatch.json": () => ({ body: JSON.stringify({ client_id: `${base()}/good.json`, client_name: "Impostor", redirect_uris: [CALLBACK] }) }),
  "/big.json": (url) => ({ body: JSON.stringify({ client_id: url, client_name: "Big", redirect_uris: [CALLBACK], padding: "x".repeat(6000) }) }),
  "/secret.json": (url) => ({ body: JSON.stringify({ client_id: url, redirect_uris: [CALLBACK], token_endpoint_auth_method: "client_secret_basic" }) }),
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-cimd-"));
  const cert = certificateIn(dir, "localhost");
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: cert.cert, key: cert.key },
    fetch(req) {
      const path = new URL(req.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const doc = documents[path]?.(`${base()}${path}`);
      return doc ? new Response(doc.body, { headers: { "content-type": "application/json", ...doc.headers } }) : new Response("no", { status: 404 });
    },
  });
  app = await createTestApp({ NODE_ENV: "development" });
  Object.assign(app.deps.guard, { ca: cert.cert });
  app.hosts.set("private.example", ["10.0.0.5"]);
  org = await seedOrg(app);
}, 30_000);
afterAll(async () => {
  await app.close();
  server.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

async function signedIn() {
  const ua = new Browserless(app);
  await ua.signIn(org.admin_email, org.password);
  return ua;
}
const query = (clientId: string, challenge: string, redirectUri = CALLBACK) => ({
  response_type: "code",
  client_id: clientId,
  redirect_uri: redirectUri,
  code_challenge: challenge,
  code_challenge_method: "S256",
  scope: "docs:read",
});

test("the authorization server advertises client_id_metadata_document_supported", async () => {
  const metadata = (await (await app.request("/.well-known/oauth-authorization-server")).json()) as Record<string, unknown>;
  expect(metadata.client_id_metadata_document_supported).toBe(true);
});

test("a URL client_id: the consent page names the document's host, tokens are issued and work; the document is cached per max-age", async () => {
  const clientId = `${base()}/good.json`;
  const ua = await signedIn();
  const { verifier, challenge } = pkcePair();
  const first = await ua.authorize(query(clientId, challenge));
  expect(first.status).toBe(200);
  expect(first.page).toContain("Acme Assistant");
  expect(first.page).toContain(`<strong>localhost:${server.port}</strong>`);
  const answer = await ua.post("/api/mcp/oauth/consent", { ...consentFields(first.page), decision: "allow" });
  expect(answer.status).toBe(303);
  const code = new URL(answer.headers.get("location")!).searchParams.get("code")!;
  const { res, body } = await tokenRequest(app, {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: CALLBACK,
  });
  expect(res.status).toBe(200);
  expect(body.token_type).toBe("Bearer");
  const list = await rpc(app, body.access_token as string, { jsonrpc: "2.0", id: 1, method: "tools/list" });
  expect(list.body.result.tools.map((t: { name: string }) => t.name)).toContain("search_docs");
  // Within max-age=60 the document is not fetched again; after it, it is.
  expect(hits.get("/good.json")).toBe(1);
  await ua.authorize(query(clientId, pkcePair().challenge));
  expect(hits.get("/good.json")).toBe(1);
  app.clock.advance(61_000);
  await ua.authorize(query(clientId, pkcePair().challenge));
  expect(hits.get("/good.json")).toBe(2);
});

describe("refused, on the error page and never redirected", () => {
  const refused = async (clientId: string, redirectUri = CALLBACK) => {
    const ua = await signedIn();
    const res = await ua.authorize(query(clientId, pkcePair().challenge, redirectUri));
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    return res.page;
  };

  test("a document whose client_id is not its own URL", async () => {
    expect(await refused(`${base()}/mismatch.json`)).toContain("names another client_id");
  });

  // A document that cannot be read says only that; the log says why (src/oauth/client-metadata.ts).
  const loggedReason = () => app.logs.findLast((l) => l.msg === "client metadata document unreadable")?.reason;

  test("a document larger than 5 KiB", async () => {
    expect(await refused(`${base()}/big.json`)).toContain("could not be read");
    expect(loggedReason()).toBe("larger than 5120 bytes");
  });

  test("a document asking for client authentication other than none", async () => {
    expect(await refused(`${base()}/secret.json`)).toContain("token_endpoint_auth_method");
  });

  test("a document at a private address is never fetched", async () => {
    expect(await refused("https://private.example/client.json")).toContain("could not be read");
    expect(loggedReason()).toContain("blocked address");
  });

  test("a redirect URI the document does not list (exactly: another loopback port too)", async () => {
    expect(await refused(`${base()}/good.json`, "https://evil.example/callback")).toContain("not one it registered");
    expect(await refused(`${base()}/good.json`, "http://127.0.0.1:10/callback")).toContain("not one it registered");
  });

  test("an http URL is not a metadata document (and not a registered client)", async () => {
    expect(await refused(`http://localhost:${server.port}/good.json`)).toContain("not registered");
  });
});

test("registration accepts application_type and echoes it", async () => {
  const res = await app.request("/api/mcp/oauth/register", {
    json: { redirect_uris: [CALLBACK], token_endpoint_auth_method: "none", application_type: "native" },
  });
  expect(res.status).toBe(201);
  expect(((await res.json()) as Record<string, unknown>).application_type).toBe("native");
  const bad = await app.request("/api/mcp/oauth/register", {
    json: { redirect_uris: [CALLBACK], token_endpoint_auth_method: "none", application_type: "toaster" },
  });
  expect(bad.status).toBe(400);
});
