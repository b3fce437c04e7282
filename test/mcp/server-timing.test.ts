// SERVER_TIMING=1 (src/kit/stage-timer.ts): tool server answers say where their time went, in a
// W3C Server-Timing header the benchmark reads; off by default, so nothing about our internals
// is told to clients unless the operator asks.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createDoc } from "../../src/knowledge/docs.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { rpc, tokensFor } from "../support/oauth.ts";

const CALL = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_docs", arguments: { query: "refund" } } };

async function setUp(env: Record<string, string>) {
  const app = await createTestApp(env);
  const org = await seedOrg(app);
  await createDoc(app.deps, org.org_id, { title: "Refunds", body: "Refunds are paid back within five days." });
  const { accessToken } = await tokensFor(app, org, "docs:read");
  return { app, token: accessToken };
}

let on: { app: TestApp; token: string };
let off: { app: TestApp; token: string };
beforeAll(async () => {
  [on, off] = await Promise.all([setUp({ SERVER_TIMING: "1" }), setUp({})]);
}, 60_000);
afterAll(() => Promise.all([on.app.close(), off.app.close()]));

const stagesOf = (header: string | null) =>
  (header ?? "")
    .split(", ")
    .filter(Boolean)
    .map((e) => e.split(";dur=")[0]);

describe("Server-Timing", () => {
  test("a tools/call names its stages, each with a duration", async () => {
    const { res } = await rpc(on.app, on.token, CALL);
    expect(res.status).toBe(200);
    const header = res.headers.get("server-timing");
    expect(stagesOf(header)).toEqual(["auth", "checks", "index", "query", "search", "snippets", "tool", "audit", "rpc"]);
    for (const entry of header!.split(", ")) expect(entry).toMatch(/^[a-z]+;dur=\d+\.\d{3}$/);
  });

  test("ping has only the edge's stages", async () => {
    expect(stagesOf((await rpc(on.app, on.token, { jsonrpc: "2.0", id: 1, method: "ping" })).res.headers.get("server-timing"))).toEqual(["auth", "rpc"]);
  });

  test("off by default", async () => {
    const { res } = await rpc(off.app, off.token, CALL);
    expect(res.status).toBe(200);
    expect(res.headers.get("server-timing")).toBeNull();
  });
});
