// What the outbound guard says when it refuses this machine (README "Configuration"): outside
// development a loopback name or address is refused as before, and the message names the one
// setting that allows it, NODE_ENV=development; other internal targets, which development does not
// allow either, get no such hint. The message reaches a person as it is: in the 400 of a knowledge
// source and of a connector, by the field.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BlockedUrlError, checkUrl, LOOPBACK_HINT, type Resolver } from "../../src/net/guard.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { rejectionOf } from "../support/settle.ts";

const resolver: Resolver = async (host) => ({ "loop.example": ["127.0.0.1"], "six.example": ["::1"], "private.example": ["10.0.0.8"] })[host] ?? [];
const refusal = async (url: string, allowLoopback: boolean) => {
  const error = await rejectionOf(checkUrl(url, { allowLoopback, resolver }));
  expect(error).toBeInstanceOf(BlockedUrlError);
  return (error as Error).message;
};

describe("the guard's refusal of this machine", () => {
  test("outside development: refused, naming NODE_ENV=development", async () => {
    expect(LOOPBACK_HINT).toContain("NODE_ENV=development");
    expect(await refusal("http://localhost:3000/", false)).toBe(`the host localhost is internal-only; ${LOOPBACK_HINT}`);
    expect(await refusal("https://docs.localhost/", false)).toBe(`the host docs.localhost is internal-only; ${LOOPBACK_HINT}`);
    expect(await refusal("http://127.0.0.1:8080/", false)).toBe(`the URL must use https; ${LOOPBACK_HINT}`);
    expect(await refusal("https://127.0.0.1/", false)).toBe(
      `the host 127.0.0.1 resolves to a blocked address: 127.0.0.1 is loopback (RFC 1122); ${LOOPBACK_HINT}`,
    );
    expect(await refusal("https://loop.example/", false)).toContain(`; ${LOOPBACK_HINT}`);
    expect(await refusal("https://six.example/", false)).toContain(`; ${LOOPBACK_HINT}`);
  });

  test("targets development does not allow either get no hint", async () => {
    for (const [url, allow] of [
      ["https://db.internal/", true],
      ["https://db.internal/", false],
      ["https://10.0.0.8/", false],
      ["https://private.example/", true],
      ["http://example.com/", false],
    ] as const)
      expect({ url, message: await refusal(url, allow) }).toEqual({ url, message: expect.not.stringContaining("NODE_ENV") });
  });

  test("in development loopback is allowed, as before", async () => {
    expect((await checkUrl("http://localhost:3000/", { allowLoopback: true, resolver: async () => ["127.0.0.1"] })).address).toBe("127.0.0.1");
  });
});

describe("the message reaches the person who typed the address", () => {
  let app: TestApp;
  let auth: Record<string, string>;
  beforeAll(async () => {
    app = await createTestApp(); // NODE_ENV=test: loopback refused, as in production
    const org = await seedOrg(app, { flags: ["mcp_external_servers"] });
    auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  });
  afterAll(() => app.close());

  const detail = async (res: Response, path: string) => {
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { details: { path: string; message: string }[] } };
    return body.error.details.find((d) => d.path === path)?.message;
  };

  test("a knowledge source crawling localhost", async () => {
    const res = await app.request("/api/knowledge/sources", {
      headers: auth,
      json: { kind: "website", name: "Local", start_url: "http://localhost:4000/docs" },
    });
    expect(await detail(res, "/start_url")).toBe(`the host localhost is internal-only; ${LOOPBACK_HINT}`);
  });

  test("a connector to an MCP server on this machine", async () => {
    const res = await app.request("/api/integrations/mcp/servers", {
      method: "POST",
      headers: auth,
      json: { name: "Local", slug: "local", url: "https://127.0.0.1:4000/mcp", auth_method: "none" },
    });
    expect(await detail(res, "/url")).toContain(LOOPBACK_HINT);
  });
});
