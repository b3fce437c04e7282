// The tool runtime (src/tools/runtime.ts): one path for every caller. The
// the same tool through /api/mcp and through deps.tools.call gives the
// same result, the same audit row and the same limit accounting — and the runtime's own rules:
// the audit row is written whatever the input, chat is not scope-bound, destructive tools in
// chat need an explicit toggle, every failure is one AppError.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, asc, eq, like } from "drizzle-orm";
import { actionExecutions, rateLimitCounters } from "../../src/db/schema/index.ts";
import { AppError } from "../../src/errors.ts";
import { toolDirectory } from "../../src/compose.ts";
import { AUDIT_ERROR_MAX, type CallScope, createToolRuntime, TOOL_DEADLINE_MS } from "../../src/tools/runtime.ts";
import type { ToolDefinition } from "../../src/tools/types.ts";
import { verifyAccessToken } from "../support/oauth.ts";
import { createDoc } from "../../src/knowledge/docs.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { rpc, tokensFor } from "../support/oauth.ts";

/** Tests that sign in or run the OAuth flow (argon2, a fresh org) on a loaded machine. */
const SLOW_MS = 30_000;

/** Setup (a fresh database, an org, a token through the OAuth flow) on a loaded machine. */
const SETUP_MS = 30_000;

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let token: string;
let docId: string;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  token = (await tokensFor(app, org, "docs:read data:read actions:read actions:write")).accessToken;
  docId = (await createDoc(app.deps, org.org_id, { title: "Returns", body: "Returns are free within thirty days of delivery." })).id;
}, SETUP_MS);
afterAll(() => app.close());

async function tokenScope(): Promise<CallScope> {
  const ctx = (await verifyAccessToken(app, token))!;
  return {
    actor: { kind: "token", tokenId: ctx.tokenId, clientId: ctx.clientId, memberId: ctx.memberId, scopes: ctx.scopes },
    orgId: org.org_id,
    channel: "mcp",
  };
}

const counters = async (keyPrefix: string) =>
  (
    await app.deps.db
      .select({ key: rateLimitCounters.key, count: rateLimitCounters.count })
      .from(rateLimitCounters)
      .where(like(rateLimitCounters.key, `${keyPrefix}%`))
  ).reduce((acc, row) => ({ ...acc, [row.key]: (acc[row.key] ?? 0) + row.count }), {} as Record<string, number>);

const rows = async (tool: string) =>
  app.deps.db
    .select()
    .from(actionExecutions)
    .where(and(eq(actionExecutions.orgId, org.org_id), eq(actionExecutions.tool, tool)))
    .orderBy(asc(actionExecutions.createdAt));

/** An audit row without what legitimately differs between two calls. */
const comparable = (row: typeof actionExecutions.$inferSelect) => {
  const { id: _id, createdAt: _at, durationMs: _ms, channel: _channel, actorKind: _kind, actorId: _actor, clientId: _client, memberId: _member, ...rest } = row;
  return rest;
};

describe("/api/mcp and a direct runtime call are the same call", () => {
  test("same result, same audit row, same limit accounting", async () => {
    const ctx = (await verifyAccessToken(app, token))!;
    const tokenKey = `mcp:${ctx.tokenId}:tools/call`;
    const actionKey = `action:${org.org_id}:read_doc`;
    const before = { ...(await counters(tokenKey)), ...(await counters(actionKey)) };

    const viaMcp = await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "read_doc", arguments: { id: docId } } });
    expect(viaMcp.res.status).toBe(200);
    const afterMcp = { ...(await counters(tokenKey)), ...(await counters(actionKey)) };

    app.clock.advance(1); // a distinct created_at, same rate-limit window
    const direct = await app.deps.tools.call(await tokenScope(), "read_doc", { id: docId });
    const afterDirect = { ...(await counters(tokenKey)), ...(await counters(actionKey)) };

    // The result: MCP carries the runtime's value as one 2-space JSON text block.
    expect(viaMcp.body.result).toEqual({ content: [{ type: "text", text: JSON.stringify(direct.value, null, 2) }], isError: false });
    expect((direct.value as { title: string }).title).toBe("Returns");

    // The audit rows: identical apart from ids, timestamps, duration, channel and actor.
    const [first, second] = await rows("read_doc");
    expect(comparable(first!)).toEqual(comparable(second!));
    expect(first).toMatchObject({
      outcome: "ok",
      channel: "mcp",
      actorKind: "token",
      actorId: ctx.tokenId,
      clientId: ctx.clientId,
      memberId: ctx.memberId,
      agentId: org.agent_id,
      sourceKind: "builtin",
      error: null,
    });

    // The limits: each call charged the token's tools/call limit and the org's per-action limit once.
    const delta = (a: Record<string, number>, b: Record<string, number>) => Object.fromEntries(Object.keys(b).map((k) => [k, b[k]! - (a[k] ?? 0)]));
    expect(delta(before, afterMcp)).toEqual({ [tokenKey]: 1, [actionKey]: 1 });
    expect(delta(afterMcp, afterDirect)).toEqual({ [tokenKey]: 1, [actionKey]: 1 });
  });

  test("a refusal is the same AppError on both paths, and both are audited", async () => {
    const viaMcp = await rpc(app, token, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "read_doc", arguments: { id: 7 } } });
    const direct = await app.deps.tools.call(await tokenScope(), "read_doc", { id: 7 }).catch((e: unknown) => e);
    expect(direct).toBeInstanceOf(AppError);
    const error = direct as AppError;
    expect({ code: error.rpcCode, message: error.message }).toEqual({ code: viaMcp.body.error.code, message: viaMcp.body.error.message });
    expect(error).toMatchObject({ status: 400, code: "validation_failed", rpcCode: -32602 });
    const failed = (await rows("read_doc")).filter((r) => r.outcome === "error");
    expect(failed.map(comparable)).toEqual([comparable(failed[0]!), comparable(failed[0]!)]);
  });
});

describe("the audit row is written whatever the input", () => {
  test("NUL in arguments is refused as invalid (-32602) and the row is stored", async () => {
    const error = (await app.deps.tools.call(await tokenScope(), "read_doc", { id: "a\u0000b" }).catch((e: unknown) => e)) as AppError;
    expect(error).toMatchObject({ status: 400, code: "validation_failed", rpcCode: -32602 });
    const [row] = (await rows("read_doc")).filter((r) => r.error?.includes("control characters"));
    expect(row).toMatchObject({ outcome: "error" });
  });

  test("an unknown tool, a NUL in its name and a huge name are audited, the stored text capped and clean", async () => {
    const scope = await tokenScope();
    const names = ["no_such_tool", "read\u0000doc", `x${"y".repeat(60_000)}`];
    for (const name of names) {
      const error = (await app.deps.tools.call(scope, name, {}).catch((e: unknown) => e)) as AppError;
      expect(error).toMatchObject({ status: 404, code: "not_found", rpcCode: -32601 });
      expect(error.message.length).toBeLessThanOrEqual(AUDIT_ERROR_MAX);
    }
    const all = await app.deps.db
      .select()
      .from(actionExecutions)
      .where(and(eq(actionExecutions.orgId, org.org_id), eq(actionExecutions.sourceKind, "unknown")));
    expect(all.map((r) => r.tool)).toEqual(expect.arrayContaining(["no_such_tool", "read\uFFFDdoc"]));
    expect(all).toHaveLength(3);
    for (const row of all) {
      expect(row.tool.length).toBeLessThanOrEqual(200);
      expect(row.error!.length).toBeLessThanOrEqual(AUDIT_ERROR_MAX);
      expect(row.error).not.toContain("\u0000");
    }
  });

  test("an error text longer than the cap is stored cut at the cap", async () => {
    // A runtime over one tool that fails with a long message (a connector's error text can be long).
    const loud: ToolDefinition = {
      name: "loud",
      description: "Fails at length.",
      inputSchema: { type: "object" },
      destructive: false,
      scope: "docs:read",
      source: { kind: "builtin", label: "Test" },
      defaultEnabled: true,
      execute: async () => {
        throw AppError.toolFailed(`upstream said: ${"z\u0000".repeat(5000)}`);
      },
    };
    const runtime = createToolRuntime(app.deps, {
      providers: [async () => [loud]],
      limiter: app.deps.limiter,
      invalidation: app.deps.invalidation,
      directory: toolDirectory(app.deps),
    });
    const error = (await runtime.call(await tokenScope(), "loud", {}).catch((e: unknown) => e)) as AppError;
    expect(error).toMatchObject({ status: 502, code: "tool_failed", rpcCode: -32603 });
    const [row] = await rows("loud");
    expect(row!.error!.length).toBe(AUDIT_ERROR_MAX);
    expect(row!.error!.startsWith("upstream said: z\uFFFDz")).toBe(true);
  });
});

describe("channels", () => {
  test(
    "chat is not scope-bound; its audit row names the channel and the customer",
    async () => {
      const o = await seedOrg(app);
      await createDoc(app.deps, o.org_id, { title: "Hours", body: "We are open nine to five." });
      const scope: CallScope = { actor: { kind: "customer", endUserId: null, sessionId: "s-1" }, orgId: o.org_id, channel: "chat" };
      const names = (await app.deps.tools.list(scope)).map((t) => t.name);
      expect(names).toContain("search_docs");
      const result = await app.deps.tools.call(scope, "search_docs", { query: "open" });
      expect(JSON.stringify(result.value)).toContain("Hours");
      const [row] = await app.deps.db.select().from(actionExecutions).where(eq(actionExecutions.orgId, o.org_id));
      expect(row).toMatchObject({ channel: "chat", actorKind: "customer", actorId: "s-1", clientId: null, memberId: null, agentId: o.agent_id, outcome: "ok" });
    },
    SLOW_MS,
  );

  test(
    "a destructive tool runs in chat only when the agent's toggle is switched on explicitly",
    async () => {
      const o = await seedOrg(app);
      const session = await signIn(app, o.admin_email, o.password);
      app.hosts.set("api.partner.example", ["93.184.216.34"]);
      const created = await app.request("/api/integrations/custom-actions", {
        json: {
          slug: "refund",
          description: "Refund an order",
          method: "POST",
          url: "https://api.partner.example/refund",
          destructive: true,
          input_schema: { type: "object", properties: { order: { type: "string" } } },
        },
        headers: { authorization: `Bearer ${session}` },
      });
      expect(created.status).toBe(201);
      const scope: CallScope = { actor: { kind: "system", name: "campaigns" }, orgId: o.org_id, channel: "chat" };
      // Custom actions are on by default for the agent, but a destructive one still needs an explicit switch in chat.
      expect((await app.deps.tools.list(scope)).map((t) => t.name)).not.toContain("custom.refund");
      const refused = (await app.deps.tools.call(scope, "custom.refund", { order: "1" }).catch((e: unknown) => e)) as AppError;
      expect(refused).toMatchObject({ status: 403, code: "forbidden", rpcCode: -32002, reason: "destructive" });
      const on = await app.request(`/api/agents/${o.agent_id}/actions`, {
        method: "PATCH",
        json: { enable: ["custom.refund"] },
        headers: { authorization: `Bearer ${session}` },
      });
      expect(on.status).toBe(200);
      expect((await app.deps.tools.list(scope)).map((t) => t.name)).toContain("custom.refund");
    },
    SLOW_MS,
  );

  test(
    "a call may name an agent of the org; another org's agent acts as none",
    async () => {
      const a = await seedOrg(app);
      const b = await seedOrg(app);
      const scope = (agentId: string): CallScope => ({
        actor: { kind: "member", memberId: crypto.randomUUID() },
        orgId: a.org_id,
        agentId,
        channel: "dashboard",
      });
      expect((await app.deps.tools.list(scope(a.agent_id))).length).toBeGreaterThan(0);
      expect(await app.deps.tools.list(scope(b.agent_id))).toEqual([]);
      const refused = (await app.deps.tools.call(scope(b.agent_id), "search_docs", { query: "x" }).catch((e: unknown) => e)) as AppError;
      expect(refused).toMatchObject({ status: 403, reason: "agent" });
    },
    SLOW_MS,
  );
});

describe("every failure is one AppError", () => {
  const tool = (name: string, execute: ToolDefinition["execute"]): ToolDefinition => ({
    name,
    description: name,
    inputSchema: { type: "object" },
    destructive: false,
    scope: "docs:read",
    source: { kind: "builtin", label: "Test" },
    defaultEnabled: true,
    execute,
  });
  const runtime = () =>
    createToolRuntime(app.deps, {
      providers: [
        async () => [
          tool("crash", async () => {
            throw new Error("connection reset by peer at 10.0.0.7");
          }),
          tool("denies", async () => {
            throw AppError.unauthorized("The upstream refused our credentials.");
          }),
          tool("hangs", () => new Promise(() => {})),
        ],
      ],
      limiter: app.deps.limiter,
      invalidation: app.deps.invalidation,
      directory: toolDirectory(app.deps),
    });

  test("an unexpected throw is tool_failed (502, -32603) without its cause; the cause goes to the log", async () => {
    const error = (await runtime()
      .call(await tokenScope(), "crash", {})
      .catch((e: unknown) => e)) as AppError;
    expect(error).toMatchObject({ status: 502, code: "tool_failed", rpcCode: -32603, message: "crash failed." });
    expect(app.logs.some((l) => l.msg === "tool failed" && JSON.stringify(l).includes("connection reset"))).toBe(true);
  });

  test("a tool's 401 is a refusal (-32002), never the caller's own 401", async () => {
    const error = (await runtime()
      .call(await tokenScope(), "denies", {})
      .catch((e: unknown) => e)) as AppError;
    expect(error).toMatchObject({ status: 403, code: "forbidden", rpcCode: -32002 });
  });

  test("a tool that never answers fails at the runtime's deadline, and is audited", async () => {
    const pending = runtime()
      .call(await tokenScope(), "hangs", {})
      .catch((e: unknown) => e);
    await Bun.sleep(0);
    for (let i = 0; i < 20 && !(await Promise.race([pending.then(() => true), Bun.sleep(5).then(() => false)])); i++) app.clock.advance(TOOL_DEADLINE_MS);
    const error = (await pending) as AppError;
    expect(error).toMatchObject({ status: 502, code: "tool_failed", message: `hangs did not answer within ${TOOL_DEADLINE_MS / 1000} s.` });
    expect(await rows("hangs")).toHaveLength(1);
  });
});
