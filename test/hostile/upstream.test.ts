// Hostile answers from upstream (issue #10, "any other hostile shape"): a custom action's partner
// API answering JSON nested 100,000 levels gives the caller a result (the text as is), not a call
// that holds the whole process for its 30 s deadline (Bun's JSON.stringify of such a value blocks
// for over ten seconds before it throws); a NUL escape in its JSON is its data, passed on.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setFeatureFlag } from "../../src/orgs/service.ts";
import { systemActor } from "../../src/activity/actor.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { rpc, tokensFor } from "../support/oauth.ts";

let app: TestApp;
let token: string;
let partner: ReturnType<typeof Bun.serve>;
const DEEP = "[".repeat(100_000) + "]".repeat(100_000);

beforeAll(async () => {
  // Development mode: the partner API is a loopback server standing in for a public one.
  app = await createTestApp({ NODE_ENV: "development" });
  const org = await seedOrg(app);
  await setFeatureFlag(app.deps, org.org_id, systemActor("test"), "mcp_destructive_tools", true);
  const session = await signIn(app, org.admin_email, org.password);
  token = (await tokensFor(app, org, "actions:read actions:write")).accessToken;
  partner = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/deep") return new Response(DEEP, { headers: { "content-type": "application/json" } });
      return new Response('{"name":"a\\u0000b","ok":true}', { headers: { "content-type": "application/json" } });
    },
  });
  app.hosts.set("api.partner.example", ["127.0.0.1"]);
  for (const slug of ["deep", "nul"]) {
    const res = await app.request("/api/integrations/custom-actions", {
      json: { slug, description: slug, method: "GET", url: `http://api.partner.example:${partner.port}/${slug}`, destructive: false },
      headers: { authorization: `Bearer ${session}` },
    });
    expect(res.status).toBe(201);
  }
}, 30_000);
afterAll(async () => {
  partner.stop(true);
  await app.close();
});

const call = (name: string) => rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: {} } });

describe("custom action answers", () => {
  test("JSON nested 100,000 levels: a result, quickly", async () => {
    const started = performance.now();
    const { res, body } = await call("custom.deep");
    expect(res.status).toBe(200);
    expect(body.error).toBeUndefined();
    expect(body.result.content[0].text.length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(2000);
    expect((await app.request("/healthz")).status).toBe(200);
  });

  test("JSON with a NUL escape is someone else's data: parsed and passed on", async () => {
    const { res, body } = await call("custom.nul");
    expect(res.status).toBe(200);
    expect(body.error).toBeUndefined();
    expect(body.result.content[0].text).toContain('"ok": true');
  });
});
