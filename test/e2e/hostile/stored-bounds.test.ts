// Stored-size bounds: deep or oversized free-form objects are refused with 400 / -32602
// naming the limit (data_update_user traits; a custom action's input_schema), and a read of a
// stored record at the limit is bounded in size.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { customActions, endUsers } from "../../../src/db/schema/index.ts";
import { FREE_FORM_LIMITS, SCHEMA_LIMITS } from "../../../src/http/free-form.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../../support/app.ts";
import { rpc, tokensFor } from "../../support/oauth.ts";

/** A read of one stored record, whatever was written, stays under this (bytes on the wire). */
const READ_BOUND_BYTES = 256 * 1024;

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let token: string;
let auth: Record<string, string>;
let userId: string;

const nested = (depth: number, leaf: unknown = 1): Record<string, unknown> => {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v as Record<string, unknown>;
};
const call = (name: string, args: unknown) => rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  token = (await tokensFor(app, org, "data:read data:write")).accessToken;
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  const [user] = await app.deps.db
    .insert(endUsers)
    .values({ orgId: org.org_id, externalId: "bounded", email: "bounded@customers.example", name: "Bounded" })
    .returning();
  userId = user!.id;
  app.hosts.set("hooks.example.com", ["93.184.216.34"]);
}, 30_000);
afterAll(() => app.close());

const storedTraits = async () => (await app.deps.db.select({ traits: endUsers.traits }).from(endUsers).where(eq(endUsers.id, userId)))[0]!.traits;

describe("data_update_user traits", () => {
  test(`exactly ${FREE_FORM_LIMITS.maxDepth} levels are stored; one more is -32602 naming the limit, nothing stored`, async () => {
    const ok = await call("data_update_user", { user_id: "bounded", traits: nested(FREE_FORM_LIMITS.maxDepth - 1) });
    expect(ok.body.error).toBeUndefined();
    expect(ok.body.result.isError).toBe(false);
    const deep = await call("data_update_user", { user_id: "bounded", traits: { b: nested(FREE_FORM_LIMITS.maxDepth) } });
    expect(deep.body.error.code).toBe(-32602);
    expect(deep.body.error.message).toContain(`${FREE_FORM_LIMITS.maxDepth} levels`);
    expect(await storedTraits()).not.toHaveProperty("b");
  });

  test("the issue's 10,000-deep traits: refused (-32602 or 400), never stored", async () => {
    const text = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"data_update_user","arguments":{"user_id":"bounded","traits":${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}}}}`;
    const res = await rpc(app, token, text);
    expect(res.res.status).toBeLessThan(500);
    expect(res.body.error.code === -32602 || res.body.error.code === -32700 || res.body.error.code === -32600).toBe(true);
    expect(JSON.stringify(await storedTraits()).length).toBeLessThan(FREE_FORM_LIMITS.maxBytes);
  });

  test(`the merged record may not pass ${FREE_FORM_LIMITS.maxBytes} bytes: -32602 naming the size`, async () => {
    const half = "x".repeat(FREE_FORM_LIMITS.maxBytes / 2);
    expect((await call("data_update_user", { user_id: "bounded", traits: { one: half } })).body.result.isError).toBe(false);
    const over = await call("data_update_user", { user_id: "bounded", traits: { two: half } });
    expect(over.body.error.code).toBe(-32602);
    expect(over.body.error.message).toContain(`${FREE_FORM_LIMITS.maxBytes} bytes`);
    expect(await storedTraits()).not.toHaveProperty("two");
  });

  test(`a read of a record at the limit stays under ${READ_BOUND_BYTES} bytes`, async () => {
    // The worst case for the indented rendering: the deepest allowed nesting, many tiny leaves.
    const leaves = Array.from({ length: FREE_FORM_LIMITS.maxBytes / 2 }, () => 0);
    let traits = nested(FREE_FORM_LIMITS.maxDepth - 2, leaves);
    while (JSON.stringify({ w: traits }).length > FREE_FORM_LIMITS.maxBytes) {
      leaves.length -= 10;
      traits = nested(FREE_FORM_LIMITS.maxDepth - 2, leaves);
    }
    expect(JSON.stringify({ w: traits }).length).toBeGreaterThan(FREE_FORM_LIMITS.maxBytes - 30);
    await app.deps.db
      .update(endUsers)
      .set({ traits: {} })
      .where(and(eq(endUsers.orgId, org.org_id), eq(endUsers.id, userId)));
    const write = await call("data_update_user", { user_id: "bounded", traits: { w: traits } });
    expect(write.body.result.isError).toBe(false);
    const read = await call("data_get_user", { user_id: "bounded" });
    expect(read.body.result.isError).toBe(false);
    expect(read.text.length).toBeGreaterThan(FREE_FORM_LIMITS.maxBytes);
    expect(read.text.length).toBeLessThan(READ_BOUND_BYTES);
  });
});

describe("custom action input_schema", () => {
  const create = (input_schema: unknown, slug = `a_${crypto.randomUUID().slice(0, 8)}`) =>
    app.request("/api/integrations/custom-actions", {
      json: { slug, description: "d", method: "POST", url: "https://hooks.example.com/x", input_schema },
      headers: auth,
    });
  const schemaOfDepth = (depth: number) => {
    // Each "properties → p" pair adds two levels; the root object is the first.
    let s: Record<string, unknown> = { type: "object" };
    let levels = 1;
    while (levels + 2 <= depth) {
      s = { type: "object", properties: { p: s } };
      levels += 2;
    }
    if (levels !== depth) throw new Error("odd depths only");
    return s;
  };

  test(`a schema ${SCHEMA_LIMITS.maxDepth} levels deep is accepted; deeper is 400 naming the limit`, async () => {
    const at = await create(schemaOfDepth(SCHEMA_LIMITS.maxDepth - 1));
    expect(at.status).toBe(201);
    const over = await create(schemaOfDepth(SCHEMA_LIMITS.maxDepth + 1));
    expect(over.status).toBe(400);
    const body = (await over.json()) as { error: { code: string; details: { path: string; message: string }[] } };
    expect(body.error.code).toBe("validation_failed");
    expect(body.error.details).toContainEqual({ path: "/input_schema", message: expect.stringContaining(`${SCHEMA_LIMITS.maxDepth} levels`) });
  });

  test("the issue's 10,000-level schema (two POSTs) is 400 and the process still answers", async () => {
    // 10,000 levels inside the 64 KiB body limit.
    const deep = `{"slug":"deep_one","description":"d","method":"POST","url":"https://hooks.example.com/x","input_schema":{"type":"object","p":${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}}}`;
    expect(deep.length).toBeLessThan(64 * 1024);
    for (let i = 0; i < 2; i++) {
      const res = await app.request("/api/integrations/custom-actions", {
        method: "POST",
        body: deep,
        headers: { ...auth, "content-type": "application/json" },
      });
      expect(res.status).toBe(400);
    }
    expect((await app.request("/healthz")).status).toBe(200);
    const rows = await app.deps.db
      .select({ id: customActions.id })
      .from(customActions)
      .where(and(eq(customActions.orgId, org.org_id), eq(customActions.slug, "deep_one")));
    expect(rows).toEqual([]);
  });

  test(`a schema over ${SCHEMA_LIMITS.maxBytes} bytes is 400 naming the size (PATCH too)`, async () => {
    const big = { type: "object", description: "d".repeat(SCHEMA_LIMITS.maxBytes) };
    const res = await create(big);
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain(`${SCHEMA_LIMITS.maxBytes} bytes`);
    const ok = (await (await create({ type: "object" })).json()) as { id: string };
    const patch = await app.request(`/api/integrations/custom-actions/${ok.id}`, {
      method: "PATCH",
      json: { input_schema: schemaOfDepth(SCHEMA_LIMITS.maxDepth + 1) },
      headers: auth,
    });
    expect(patch.status).toBe(400);
  });
});
