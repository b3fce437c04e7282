// A disabled agent runs no tools, whoever names it (docs/decisions.md "Disabling an agent",
// docs/interface.md 7.1 -32002 "agent disabled"): a call naming it explicitly is refused like a call
// for an org whose active agent is disabled. A call already running when its agent is disabled
// may finish; the next one, on the same process, is refused — the service drops the org's tool
// snapshot (deps.tools.invalidate), no clock moves. The chat names its agent on every tool call,
// so a turn whose agent is disabled between two tool rounds gets the second one refused.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { systemActor } from "../../src/kit/actor.ts";
import { createAgent, updateAgent } from "../../src/agents/service.ts";
import { actionExecutions } from "../../src/db/schema/index.ts";
import { createCustomAction } from "../../src/integrations/custom-actions.ts";
import type { CallScope } from "../../src/tools/runtime.ts";
import { setAgentActions } from "../../src/tools/toggles.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { fakeOpenAi, type FakeLlm } from "../support/fake-llm.ts";
import { appErrorOf } from "../support/errors.ts";

let app: TestApp;
let fake: FakeLlm;
let partner: ReturnType<typeof Bun.serve>;
const admin = systemActor("test");
/** What the partner does on /hook: set by each test (a pause, or disabling an agent mid-call). */
let hook: () => Promise<void> = async () => {};

beforeAll(async () => {
  fake = await fakeOpenAi();
  // Development mode: the partner API is a loopback server standing in for api.partner.example.
  app = await createTestApp({ NODE_ENV: "development", LLM_PROVIDER: "openai", LLM_MODEL: "fake-model", LLM_BASE_URL: fake.baseUrl });
  partner = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch() {
      await hook();
      return Response.json({ ok: true });
    },
  });
  app.hosts.set("api.partner.example", ["127.0.0.1"]);
}, 30_000);
afterAll(async () => {
  partner.stop(true);
  await app.close();
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  hook = async () => {};
});

const system = (orgId: string, agentId?: string): CallScope => ({
  actor: { kind: "system", name: "test" },
  orgId,
  channel: "mcp",
  ...(agentId ? { agentId } : {}),
});

const refusal = (scope: CallScope, name: string, args: unknown) => appErrorOf(app.deps.tools.call(scope, name, args));

async function hookAction(orgId: string, slug: string) {
  await createCustomAction(app.deps, orgId, {
    slug,
    description: "Asks the partner.",
    method: "GET",
    url: `http://api.partner.example:${partner.port}/hook`,
    destructive: false,
  });
}

describe("a call naming a disabled agent", () => {
  test("is refused with -32002 'agent is disabled', lists nothing, and is audited as denied under that agent; the active agent is untouched; enabling lifts it", async () => {
    const org = await seedOrg(app);
    const second = await createAgent(app.deps, org.org_id, admin, { name: "Second", skills: ["answer_questions"] });
    const named = system(org.org_id, second.id);
    expect((await app.deps.tools.call(named, "search_docs", { query: "x" })).isError).toBeFalsy();
    expect((await app.deps.tools.list(named)).map((t) => t.name)).toContain("search_docs");

    await updateAgent(app.deps, org.org_id, admin, second.id, { status: "disabled" });
    const error = await refusal(named, "search_docs", { query: "x" });
    expect(error.status).toBe(403);
    expect(error.toRpc().code).toBe(-32002);
    expect(error.reason).toBe("agent");
    expect(error.message).toContain("agent is disabled");
    expect(await app.deps.tools.list(named)).toEqual([]);
    const [row] = await app.deps.db
      .select()
      .from(actionExecutions)
      .where(and(eq(actionExecutions.orgId, org.org_id), eq(actionExecutions.agentId, second.id), eq(actionExecutions.outcome, "denied")));
    expect(row?.error).toContain("agent is disabled");

    // The org's active agent, named or not, still runs its tools.
    expect((await app.deps.tools.call(system(org.org_id), "search_docs", { query: "x" })).isError).toBeFalsy();
    expect((await app.deps.tools.call(system(org.org_id, org.agent_id), "search_docs", { query: "x" })).isError).toBeFalsy();

    await updateAgent(app.deps, org.org_id, admin, second.id, { status: "inactive" });
    expect((await app.deps.tools.call(named, "search_docs", { query: "x" })).isError).toBeFalsy();
  });

  test("a call already running when its agent is disabled finishes; the next one on this process is refused", async () => {
    const org = await seedOrg(app);
    const second = await createAgent(app.deps, org.org_id, admin, { name: "Second", skills: ["answer_questions"] });
    await hookAction(org.org_id, "slow_lookup");
    let arrived!: () => void;
    const atPartner = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    hook = async () => {
      arrived();
      await released;
    };
    const named = system(org.org_id, second.id);
    const running = app.deps.tools.call(named, "custom.slow_lookup", {});
    await atPartner; // past every check, waiting for the partner's answer
    await updateAgent(app.deps, org.org_id, admin, second.id, { status: "disabled" });
    release();
    const finished = await running;
    expect(finished.isError).toBeFalsy();
    expect(finished.value).toMatchObject({ status: 200, body: { ok: true } });

    const error = await refusal(named, "custom.slow_lookup", {});
    expect(error.toRpc().code).toBe(-32002);
    expect(error.message).toContain("agent is disabled");
    const outcomes = await app.deps.db
      .select({ outcome: actionExecutions.outcome })
      .from(actionExecutions)
      .where(and(eq(actionExecutions.orgId, org.org_id), eq(actionExecutions.tool, "custom.slow_lookup")))
      .orderBy(actionExecutions.createdAt);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(["denied", "ok"]);
  });
});

describe("the chat path", () => {
  test("the agent is disabled during a tool call of a chat turn: that call finishes, the turn's next tool call is refused, the next message gets 404 no_active_agent", async () => {
    const org = await seedOrg(app);
    await hookAction(org.org_id, "flip");
    await setAgentActions(app.deps, org.org_id, admin, org.agent_id, { enable: ["custom.flip"] });
    // The partner's answer is sent only after the agent is disabled.
    hook = async () => {
      hook = async () => {};
      await updateAgent(app.deps, org.org_id, admin, org.agent_id, { status: "disabled" });
    };
    fake.enqueue(
      { steps: [{ tool: { name: "custom__flip", arguments: {} } }] },
      { steps: [{ tool: { name: "custom__flip", arguments: {} } }] },
      { steps: [{ text: "That is all I could do." }] },
    );
    const res = await app.request("/api/sdk/chat", { json: { message: "Please flip it twice." }, headers: { authorization: `Bearer ${org.widget_key}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      agent_id: string;
      actions: { type: string; name: string; status: string; error?: { code: string; message: string } }[];
    };
    expect(body.agent_id).toBe(org.agent_id);
    const tools = body.actions.filter((a) => a.type === "tool");
    expect(tools.map((a) => [a.name, a.status])).toEqual([
      ["custom.flip", "succeeded"],
      ["custom.flip", "failed"],
    ]);
    expect(tools[1]!.error?.code).toBe("forbidden");
    expect(tools[1]!.error?.message).toContain("agent is disabled");
    // What the model was told about the refused call.
    const toolTurn = fake.requests[2]!.body.messages.filter((m: { role: string }) => m.role === "tool").at(-1);
    expect(toolTurn.content).toContain("agent is disabled");
    const audit = await app.deps.db
      .select({ outcome: actionExecutions.outcome, agentId: actionExecutions.agentId })
      .from(actionExecutions)
      .where(and(eq(actionExecutions.orgId, org.org_id), eq(actionExecutions.tool, "custom.flip")));
    expect(audit.map((a) => a.outcome).sort()).toEqual(["denied", "ok"]);
    expect(audit.every((a) => a.agentId === org.agent_id)).toBe(true);

    const next = await app.request("/api/sdk/chat", { json: { message: "Again?" }, headers: { authorization: `Bearer ${org.widget_key}` } });
    expect(next.status).toBe(404);
    expect(((await next.json()) as { error: { code: string } }).error.code).toBe("no_active_agent");
  });
});
