// Rate limits of the tool server (docs/interface.md 8.1, 7.1): per token per method class, per org per
// action, and the leased limiter that keeps them global across processes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createLeasedLimiter, RECHECK_MS } from "../../src/ratelimit/leased.ts";
import { createDoc } from "../../src/knowledge/docs.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { rpc, tokensFor } from "../support/oauth.ts";

/** Tests that sign in or run the OAuth flow (argon2, a fresh org) on a loaded machine. */
const SLOW_MS = 30_000;

/** Setup (a fresh database, an org, a token through the OAuth flow) on a loaded machine. */
const SETUP_MS = 30_000;

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  app = await createTestApp({ ACTION_RATE_LIMIT_PER_MINUTE: "3" });
  org = await seedOrg(app);
  await createDoc(app.deps, org.org_id, { title: "Returns", body: "Return anything within thirty days." });
  // Start at the beginning of a minute so the window cannot roll over mid-test.
  app.clock.now = new Date(Math.ceil(app.clock.now.getTime() / 60_000) * 60_000 + 1000);
}, SETUP_MS);
afterAll(() => app.close());

describe("per token", () => {
  test(
    "tools/list: 60 per minute pass with X-RateLimit-* headers, the 61st is 429 + Retry-After + -32002",
    async () => {
      const token = (await tokensFor(app, org, undefined, "203.0.113.50")).accessToken;
      for (let i = 1; i <= 60; i++) {
        const { res } = await rpc(app, token, { jsonrpc: "2.0", id: i, method: "tools/list" });
        expect(res.status).toBe(200);
        expect(res.headers.get("x-ratelimit-limit")).toBe("60");
        expect(res.headers.get("x-ratelimit-remaining")).toBe(String(60 - i));
        expect(Number(res.headers.get("x-ratelimit-reset"))).toBe(Math.ceil(app.clock.now.getTime() / 60_000) * 60);
      }
      const over = await rpc(app, token, { jsonrpc: "2.0", id: 61, method: "tools/list" });
      expect(over.res.status).toBe(429);
      expect(over.body.error.code).toBe(-32002);
      expect(over.body.error.message).toContain("Rate limit exceeded");
      expect(Number(over.res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(over.res.headers.get("x-ratelimit-remaining")).toBe("0");
      // Other classes have their own budget.
      expect((await rpc(app, token, { jsonrpc: "2.0", id: 62, method: "ping" })).res.status).toBe(200);
      // The next window starts afresh.
      app.clock.advance(60_000);
      expect((await rpc(app, token, { jsonrpc: "2.0", id: 63, method: "tools/list" })).res.status).toBe(200);
    },
    SLOW_MS,
  );

  test(
    "ping and other methods: 60 per minute",
    async () => {
      const token = (await tokensFor(app, org, undefined, "203.0.113.51")).accessToken;
      for (let i = 0; i < 60; i++) expect((await rpc(app, token, { jsonrpc: "2.0", id: i, method: "ping" })).res.status).toBe(200);
      expect((await rpc(app, token, { jsonrpc: "2.0", id: 60, method: "ping" })).res.status).toBe(429);
    },
    SLOW_MS,
  );
});

describe("per org per action", () => {
  test(
    "ACTION_RATE_LIMIT_PER_MINUTE=3: the 4th call of one action in a minute is refused, other actions are not",
    async () => {
      app.clock.advance(60_000);
      const a = (await tokensFor(app, org, undefined, "203.0.113.52")).accessToken;
      const b = (await tokensFor(app, org, undefined, "203.0.113.53")).accessToken;
      const call = (token: string, id: number) =>
        rpc(app, token, { jsonrpc: "2.0", id, method: "tools/call", params: { name: "search_docs", arguments: { query: "returns" } } });
      expect((await call(a, 1)).res.status).toBe(200);
      expect((await call(b, 2)).res.status).toBe(200); // another token, same org: same budget
      expect((await call(a, 3)).res.status).toBe(200);
      const fourth = await call(b, 4);
      expect(fourth.res.status).toBe(429);
      expect(fourth.body.error.code).toBe(-32002);
      expect(fourth.body.error.message).toContain("search_docs is rate limited for this organisation");
      const other = await rpc(app, a, { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "read_doc", arguments: { id: crypto.randomUUID() } } });
      expect(other.body.error.code).toBe(-32601); // ran (not found), not rate limited
    },
    SLOW_MS,
  );
});

describe("leased limiter: several processes on one database never grant more than the limit", () => {
  const now = new Date("2030-01-01T00:00:10Z");

  test("small limits lease one unit at a time: exact when two processes alternate", async () => {
    const [p1, p2] = [createLeasedLimiter(app.deps.db), createLeasedLimiter(app.deps.db)];
    const results: boolean[] = [];
    for (let i = 0; i < 61; i++) results.push((await (i % 2 ? p2 : p1).take("t:alternate", { limit: 60, windowSeconds: 60 }, now)).allowed);
    expect(results.slice(0, 60).every(Boolean)).toBe(true);
    expect(results[60]).toBe(false);
    expect((await p1.take("t:alternate", { limit: 60, windowSeconds: 60 }, now)).allowed).toBe(false);
  });

  test("large limits lease in batches; concurrent processes stay within the limit", async () => {
    const limiters = [createLeasedLimiter(app.deps.db), createLeasedLimiter(app.deps.db), createLeasedLimiter(app.deps.db)];
    const limit = { limit: 5000, windowSeconds: 60 };
    const takes = await Promise.all(Array.from({ length: 6000 }, (_, i) => limiters[i % 3]!.take("t:batch", limit, now)));
    const granted = takes.filter((t) => t.allowed).length;
    expect(granted).toBeLessThanOrEqual(5000);
    // What can go unused: at most one lease per other process, and a lease is at most a tenth of the limit.
    expect(granted).toBeGreaterThanOrEqual(5000 - 2 * Math.ceil(5000 / 10));
  });

  test("a refund through one process is seen by another that found the counter full, within RECHECK_MS", async () => {
    const [p1, p2] = [createLeasedLimiter(app.deps.db), createLeasedLimiter(app.deps.db)];
    const limit = { limit: 2, windowSeconds: 60 };
    expect((await p1.take("t:refund", limit, now)).allowed).toBe(true);
    expect((await p1.take("t:refund", limit, now)).allowed).toBe(true);
    expect((await p2.take("t:refund", limit, now)).allowed).toBe(false); // exactly at the limit, one over fails
    await p1.refund("t:refund", limit, now);
    // p2 saw the counter full just now: it refuses without asking until RECHECK_MS has passed…
    expect((await p2.take("t:refund", limit, new Date(now.getTime() + RECHECK_MS - 1))).allowed).toBe(false);
    // …then asks again and gets the unit given back; the counter is full again.
    expect((await p2.take("t:refund", limit, new Date(now.getTime() + RECHECK_MS))).allowed).toBe(true);
    expect((await p1.take("t:refund", limit, new Date(now.getTime() + RECHECK_MS))).allowed).toBe(false);
  });
});
