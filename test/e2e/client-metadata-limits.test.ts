// Client ID Metadata Documents fetched on a stranger's request (src/oauth/client-metadata.ts): the
// authorization endpoint answers anyone, signed in or not, so what it makes us fetch is bounded.
// Fetches are limited per client address and per document URL (at the limit and one over), a
// document is kept at least 60 s whatever its Cache-Control says, concurrent requests for one URL
// share one fetch, a failure says only "could not be read" (the cause is in the log), and the
// client's row is written when a signed-in member reaches consent, not before. The documents are
// served over real TLS on loopback with a throwaway certificate, as in client-metadata.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { eq } from "drizzle-orm";
import { oauthClients } from "../../src/db/schema/index.ts";
import { METADATA_DOCUMENT_LIMITS, ttlSeconds } from "../../src/oauth/client-metadata.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { Browserless, pkcePair } from "../support/oauth.ts";
import { certificateIn } from "../support/tls.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let server: Server<unknown>;
let dir: string;
/** Fetches seen by the document server, by path and query. */
const hits = new Map<string, number>();
const CALLBACK = "http://127.0.0.1:9/callback";
let releaseSlow: () => void = () => {};
const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));

const base = () => `https://localhost:${server.port}`;
const goodDocument = (url: string, cacheControl: string) =>
  new Response(JSON.stringify({ client_id: url, client_name: "Acme Assistant", redirect_uris: [CALLBACK] }), {
    headers: { "content-type": "application/json", "cache-control": cacheControl },
  });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-cimd-limits-"));
  const cert = certificateIn(dir, "localhost");
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert: cert.cert, key: cert.key },
    async fetch(req) {
      const { pathname, search } = new URL(req.url);
      const url = `${base()}${pathname}${search}`;
      hits.set(pathname + search, (hits.get(pathname + search) ?? 0) + 1);
      if (pathname.startsWith("/good/")) return goodDocument(url, "max-age=600");
      if (pathname === "/max-age-0.json") return goodDocument(url, "max-age=0");
      if (pathname === "/no-store.json") return goodDocument(url, "no-store");
      if (pathname === "/slow.json") {
        await slowGate;
        return goodDocument(url, "max-age=600");
      }
      return new Response("upstream secret detail", { status: 404 });
    },
  });
  app = await createTestApp({ NODE_ENV: "development" });
  Object.assign(app.deps.guard, { ca: cert.cert });
  org = await seedOrg(app);
}, 30_000);
afterAll(async () => {
  releaseSlow();
  await app.close();
  server.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const authorizePath = (clientId: string) =>
  `/api/mcp/oauth/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: CALLBACK,
    code_challenge: pkcePair().challenge,
    code_challenge_method: "S256",
    scope: "docs:read",
  })}`;
/** A stranger's browser (not signed in) at the authorization endpoint. */
const stranger = (clientId: string, ip: string) => app.request(authorizePath(clientId), { ip });
const clientRow = async (id: string) => (await app.deps.db.select().from(oauthClients).where(eq(oauthClients.id, id)))[0];

test("a stranger's request writes no client row; a signed-in member reaching consent does", async () => {
  const clientId = `${base()}/good/row.json`;
  const res = await stranger(clientId, "192.0.2.1");
  expect(res.status).toBe(302);
  expect(res.headers.get("location")).toStartWith("/signin?");
  expect(await clientRow(clientId)).toBeUndefined();

  const ua = new Browserless(app);
  await ua.signIn(org.admin_email, org.password);
  const consent = await ua.get(authorizePath(clientId));
  expect(consent.status).toBe(200);
  expect(await consent.text()).toContain("Acme Assistant");
  expect((await clientRow(clientId))?.redirectUris).toEqual([CALLBACK]);
});

describe("fetches are limited", () => {
  test(`per client address: ${METADATA_DOCUMENT_LIMITS.perAddress.limit} fetches a minute; one more is a 429 with Retry-After and fetches nothing`, async () => {
    const ip = "192.0.2.10";
    const { limit } = METADATA_DOCUMENT_LIMITS.perAddress;
    for (let i = 1; i <= limit; i++) expect((await stranger(`${base()}/good/address-${i}.json`, ip)).status).toBe(302);
    const over = await stranger(`${base()}/good/address-over.json`, ip);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await over.text()).toContain("Too many applications were checked from your address; try again in");
    expect(hits.get("/good/address-over.json")).toBeUndefined();
    // A document already kept costs nothing; another address is not affected.
    expect((await stranger(`${base()}/good/address-1.json`, ip)).status).toBe(302);
    expect((await stranger(`${base()}/good/address-over.json`, "192.0.2.11")).status).toBe(302);
    expect(hits.get("/good/address-over.json")).toBe(1);
  });

  test(`per document URL: ${METADATA_DOCUMENT_LIMITS.perUrl.limit} fetches a minute from any addresses; one more fetches nothing`, async () => {
    const clientId = `${base()}/missing.json?per-url`;
    const { limit } = METADATA_DOCUMENT_LIMITS.perUrl;
    for (let i = 1; i <= limit; i++) expect((await stranger(clientId, `192.0.2.${100 + i}`)).status).toBe(400);
    expect(hits.get("/missing.json?per-url")).toBe(limit);
    const over = await stranger(clientId, "192.0.2.200");
    expect(over.status).toBe(429);
    expect(await over.text()).toContain("This application was checked too often; try again in");
    expect(hits.get("/missing.json?per-url")).toBe(limit);
  });
});

test("concurrent requests for one URL share one fetch (and charge one)", async () => {
  const clientId = `${base()}/slow.json`;
  const ip = "192.0.2.20";
  const count = 2 * METADATA_DOCUMENT_LIMITS.perAddress.limit;
  const answers = Array.from({ length: count }, () => stranger(clientId, ip));
  // Hold the document until every request has had its chance to start a fetch of its own.
  for (let i = 0; i < 500 && !hits.has("/slow.json"); i++) await Bun.sleep(10);
  await Bun.sleep(200);
  releaseSlow();
  const statuses = (await Promise.all(answers)).map((r) => r.status);
  expect(statuses).toEqual(Array(count).fill(302));
  expect(hits.get("/slow.json")).toBe(1);
});

describe(`a document is kept at least ${METADATA_DOCUMENT_LIMITS.minTtlS} s, whatever it says`, () => {
  for (const path of ["/max-age-0.json", "/no-store.json"])
    test(path, async () => {
      const clientId = `${base()}${path}`;
      const ip = `192.0.2.${path.length}`;
      expect((await stranger(clientId, ip)).status).toBe(302);
      app.clock.advance(METADATA_DOCUMENT_LIMITS.minTtlS * 1000 - 1);
      expect((await stranger(clientId, ip)).status).toBe(302);
      expect(hits.get(path)).toBe(1);
      app.clock.advance(1);
      expect((await stranger(clientId, ip)).status).toBe(302);
      expect(hits.get(path)).toBe(2);
    });

  test("Cache-Control read within 60 s to 24 h, 5 minutes when silent", () => {
    expect([ttlSeconds("max-age=0"), ttlSeconds("max-age=59"), ttlSeconds("max-age=61"), ttlSeconds("no-cache"), ttlSeconds(null)]).toEqual([
      60, 60, 61, 60, 300,
    ]);
    expect(ttlSeconds("max-age=999999")).toBe(86_400);
  });
});

test("a document that cannot be read says only that; the cause goes to the log with the host alone", async () => {
  const res = await stranger(`${base()}/missing.json?page`, "192.0.2.30");
  expect(res.status).toBe(400);
  const page = await res.text();
  expect(page).toContain("could not be read");
  expect(page).not.toContain("404");
  expect(page).not.toContain("upstream secret detail");
  const line = app.logs.findLast((l) => l.msg === "client metadata document unreadable")!;
  expect(line).toMatchObject({ level: "warn", host: `localhost:${server.port}`, reason: "answered 404" });
  expect(JSON.stringify(line)).not.toContain("missing.json");
});
