// Two server processes on one PostgreSQL: per-token limits are global (N instances never grant
// N× the limit), a revocation made through one instance takes effect on both within a second
// despite their verified-token caches, and a change made through one instance reaches the other's
// tool snapshot through NOTIFY well before the snapshot's TTL.
// PGlite is single-process, so this runs on the PostgreSQL pass only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { engine } from "../support/db.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { ACCESS_CACHE_TTL_MS } from "../../src/oauth/token-cache.ts";
import { SNAPSHOT_TTL_MS } from "../../src/tools/registry.ts";
import { tokensFor } from "../support/oauth.ts";
import { type RunningServer, startServer } from "../support/process.ts";

describe.skipIf(engine !== "postgres")("two instances on one PostgreSQL", () => {
  let app: TestApp;
  let org: Awaited<ReturnType<typeof seedOrg>>;
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    app = await createTestApp();
    org = await seedOrg(app);
    const env = { DATABASE_URL: app.database.url!, SECRET_KEY: app.deps.config.secretKey!.toString("base64"), SEED_DEMO: "0", LOG_LEVEL: "warn" };
    servers.push(await startServer(env), await startServer(env));
  }, 120_000);
  afterAll(async () => {
    for (const s of servers) await s.stop();
    await app.close();
  });

  async function post(server: RunningServer, token: string, body: unknown) {
    const res = await fetch(`${server.url}/api/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { res, body: (await res.json().catch(() => null)) as any };
  }

  test("the 61st tools/list in a minute is refused whichever instance answers", async () => {
    // Wait for a fresh minute window so all 61 requests fall into one.
    const msIntoMinute = Date.now() % 60_000;
    if (msIntoMinute > 45_000) await Bun.sleep(60_000 - msIntoMinute + 200);
    const token = (await tokensFor(app, org, undefined, "203.0.113.80")).accessToken;
    const [a, b] = servers as [RunningServer, RunningServer];
    for (let i = 0; i < 60; i++) {
      const { res } = await post(i % 2 ? b : a, token, { jsonrpc: "2.0", id: i, method: "tools/list" });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-ratelimit-remaining")).toBe(String(59 - i));
    }
    for (const server of [a, b]) {
      const { res, body } = await post(server, token, { jsonrpc: "2.0", id: 61, method: "tools/list" });
      expect(res.status).toBe(429);
      expect(body.error.code).toBe(-32002);
      expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
      expect(res.headers.get("retry-after")).not.toBeNull();
    }
  }, 120_000);

  test("revoking through one instance is seen by both within one second", async () => {
    const { accessToken, refreshToken, clientId } = await tokensFor(app, org, undefined, "203.0.113.81");
    const [a, b] = servers as [RunningServer, RunningServer];
    // Both instances have verified (and cached) the token.
    expect((await post(a, accessToken, { jsonrpc: "2.0", id: 1, method: "ping" })).res.status).toBe(200);
    expect((await post(b, accessToken, { jsonrpc: "2.0", id: 1, method: "ping" })).res.status).toBe(200);
    const revoked = await fetch(`${a.url}/api/mcp/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: refreshToken, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    const revokedAt = Date.now();
    const seen = await Promise.all(
      [a, b].map(async (server) => {
        for (;;) {
          const { res } = await post(server, accessToken, { jsonrpc: "2.0", id: 2, method: "ping" });
          if (res.status === 401) return Date.now() - revokedAt;
          if (Date.now() - revokedAt > 5000) return Infinity;
          await Bun.sleep(50);
        }
      }),
    );
    for (const ms of seen) expect(ms).toBeLessThanOrEqual(1000);
  }, 60_000);

  test("a toggle changed through one instance reaches the other's snapshot through NOTIFY, long before its TTL", async () => {
    const token = (await tokensFor(app, org, undefined, "203.0.113.82")).accessToken;
    const [a, b] = servers as [RunningServer, RunningServer];
    const signedIn = await fetch(`${a.url}/api/auth/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: org.admin_email, password: org.password }),
    });
    const session = ((await signedIn.json()) as { token: string }).token;
    const listed = async () =>
      ((await post(b, token, { jsonrpc: "2.0", id: 1, method: "tools/list" })).body.result.tools as { name: string }[]).map((t) => t.name);
    expect(await listed()).toContain("search_docs"); // b's snapshot is fresh from now for SNAPSHOT_TTL_MS
    const cachedAt = Date.now();
    const off = await fetch(`${a.url}/api/agents/${org.agent_id}/actions`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
      body: JSON.stringify({ disable: ["search_docs"] }),
    });
    expect(off.status).toBe(200);
    let seenAfter = Infinity;
    while (Date.now() - cachedAt < 3 * SNAPSHOT_TTL_MS) {
      if (!(await listed()).includes("search_docs")) {
        seenAfter = Date.now() - cachedAt;
        break;
      }
      await Bun.sleep(10);
    }
    // Without the notification b would keep its snapshot until SNAPSHOT_TTL_MS after cachedAt.
    expect(seenAfter).toBeLessThan(SNAPSHOT_TTL_MS * 0.6);
  }, 60_000);

  test("an access token revoked through one instance is refused by the other through NOTIFY, long before its cache TTL", async () => {
    const { accessToken, clientId } = await tokensFor(app, org, undefined, "203.0.113.83");
    const [a, b] = servers as [RunningServer, RunningServer];
    expect((await post(b, accessToken, { jsonrpc: "2.0", id: 1, method: "ping" })).res.status).toBe(200); // cached by b from now
    const cachedAt = Date.now();
    const revoked = await fetch(`${a.url}/api/mcp/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: accessToken, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    let refusedAfter = Infinity;
    while (Date.now() - cachedAt < 5 * ACCESS_CACHE_TTL_MS) {
      if ((await post(b, accessToken, { jsonrpc: "2.0", id: 2, method: "ping" })).res.status === 401) {
        refusedAfter = Date.now() - cachedAt;
        break;
      }
      await Bun.sleep(10);
    }
    // Without the notification b would accept the token until ACCESS_CACHE_TTL_MS after cachedAt.
    expect(refusedAfter).toBeLessThan(ACCESS_CACHE_TTL_MS * 0.8);
  }, 60_000);
});
