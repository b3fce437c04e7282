// The agents API: list, read, create, update, activate, disable
// and enable (what a disabled active agent means for the widget config, chat and tools); roles;
// limits at their boundary; the tenant boundary on every endpoint; getAgent.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { agents, members, memberships } from "../../src/db/schema/index.ts";
import { listActivity } from "../../src/activity/log.ts";
import { AGENT_LIMITS as L } from "../../src/agents/agent-input.ts";
import { getAgent } from "../../src/agents/service.ts";
import { VOICE_LIMITS as VL } from "../../src/agents/voice-config.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { appErrorOf } from "../support/errors.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let other: Awaited<ReturnType<typeof seedOrg>>;
let auth: Record<string, string>;
let otherAuth: Record<string, string>;

async function memberWith(orgId: string, roles: string[]) {
  const email = `m-${crypto.randomUUID()}@example.com`;
  const password = `pw-${crypto.randomUUID()}`;
  const [member] = await app.deps.db
    .insert(members)
    .values({ email, passwordHash: await Bun.password.hash(password) })
    .returning();
  await app.deps.db.insert(memberships).values({ orgId, memberId: member!.id, roles });
  return { authorization: `Bearer ${await signIn(app, email, password)}` };
}

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  other = await seedOrg(app);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  otherAuth = { authorization: `Bearer ${await signIn(app, other.admin_email, other.password)}` };
}, 60_000);
afterAll(() => app.close());

type View = Record<string, any>;
const create = (json: unknown, headers = auth) => app.request("/api/agents", { json, headers });
const patch = (id: string, json: unknown, headers = auth) => app.request(`/api/agents/${id}`, { method: "PATCH", json, headers });
const activate = (id: string, headers = auth) => app.request(`/api/agents/${id}/activate`, { method: "POST", headers });
const list = async (headers = auth) => ((await (await app.request("/api/agents", { headers })).json()) as { agents: View[] }).agents;
async function created(json: Record<string, unknown> = {}): Promise<View> {
  const res = await create({ name: "Billing agent", ...json });
  expect(res.status).toBe(201);
  return (await res.json()) as View;
}

describe("/api/agents", () => {
  test("a new org lists its one active agent, with every field the dashboard needs", async () => {
    const all = await list();
    expect(all.length).toBe(1);
    expect(all[0]).toMatchObject({
      id: org.agent_id,
      name: "Support agent",
      status: "active",
      skills: ["answer_questions"],
      routing_rules: [],
      avatar_config: {},
      live_help_label: "Talk to a person",
      video_display_mode: "inline",
      llm: null,
    });
    expect((await app.request(`/api/agents/${org.agent_id}`, { headers: auth })).status).toBe(200);
  });

  test("create and update every field; the answer is what a read returns", async () => {
    const agent = await created({
      instructions: "Answer billing questions.\nBe brief.",
      skills: ["billing", "refunds"],
      routing_rules: [
        { match: { keywords: ["refund", "chargeback"] }, team: "billing", action: "route" },
        { match: { intent: "legal" }, team: "legal", action: "handoff" },
      ],
      avatar_config: { image_url: "https://cdn.example.com/a.png", primary_color: "#0055ff", text_color: "#ffffff" },
      voice_config: { voice: "alloy" },
      flow_config: { steps: [{ ask: "email" }], custom_variables: [{ name: "plan" }] },
      live_help_label: "Talk to billing",
      video_display_mode: "pip",
    });
    expect(agent).toMatchObject({ name: "Billing agent", status: "inactive", skills: ["billing", "refunds"], live_help_label: "Talk to billing" });
    expect(agent.routing_rules[1]).toEqual({ match: { intent: "legal" }, team: "legal", action: "handoff" });
    const res = await patch(agent.id, { name: "Billing", avatar_config: { primary_color: "#000000" }, status: "disabled" });
    expect(res.status).toBe(200);
    const updated = (await res.json()) as View;
    expect(updated).toMatchObject({ name: "Billing", avatar_config: { primary_color: "#000000" }, status: "disabled", skills: ["billing", "refunds"] });
    expect(await (await app.request(`/api/agents/${agent.id}`, { headers: auth })).json()).toEqual(updated);
  });

  test("activate switches the org's one active agent atomically; the old one becomes inactive", async () => {
    const agent = await created({ name: "Second" });
    const res = await activate(agent.id);
    expect(res.status).toBe(200);
    expect(((await res.json()) as View).status).toBe("active");
    const statuses = new Map((await list()).map((a) => [a.id, a.status]));
    expect(statuses.get(agent.id)).toBe("active");
    expect(statuses.get(org.agent_id)).toBe("inactive");
    expect([...statuses.values()].filter((s) => s === "active").length).toBe(1);
    expect((await getAgent(app.deps, org.org_id))!.id).toBe(agent.id);
    // Activating the active agent again changes nothing.
    expect((await activate(agent.id)).status).toBe(200);
    expect((await list()).filter((a) => a.status === "active").length).toBe(1);
    // Back to the original, so other tests see it active.
    expect((await activate(org.agent_id)).status).toBe(200);
  });

  test("concurrent activations leave exactly one active agent", async () => {
    const a = await created({ name: "A" });
    const b = await created({ name: "B" });
    const c = await created({ name: "C" });
    const results = await Promise.all([activate(a.id), activate(b.id), activate(c.id), activate(a.id)]);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const active = (await list()).filter((x) => x.status === "active");
    expect(active.length).toBe(1);
    expect((await activate(org.agent_id)).status).toBe(200);
  });

  test("the active agent cannot be made inactive by an update (409); others can", async () => {
    const res = await patch(org.agent_id, { status: "inactive" });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("active_agent");
    expect((await patch(org.agent_id, { name: "Still active" })).status).toBe(200);
    const idle = await created({ name: "Idle one" });
    expect(((await (await patch(idle.id, { status: "inactive" })).json()) as View).status).toBe("inactive");
  });

  test("disabling the active agent: no active agent until one is activated — config and chat 404 no agent, tools -32002 agent disabled", async () => {
    // An org of its own: the others' tests need their active agent.
    const o = await seedOrg(app);
    const oAuth = { authorization: `Bearer ${await signIn(app, o.admin_email, o.password)}` };
    const widget = { authorization: `Bearer ${o.widget_key}` };
    const config = () => app.request(`/api/sdk/config?org_id=${o.org_id}`);
    const chat = (json: Record<string, unknown>) => app.request("/api/sdk/chat", { json, headers: widget });
    const system = { kind: "system", name: "test" } as const;
    const listed = async () => (await app.deps.tools.list({ actor: system, orgId: o.org_id, channel: "mcp" })).map((t) => t.name);

    expect((await config()).status).toBe(200);
    const first = await chat({ message: "hello" });
    expect(first.status).toBe(200);
    const sessionId = ((await first.json()) as { session_id: string }).session_id;
    expect(await listed()).toContain("search_docs"); // caches the org's tool snapshot

    const res = await patch(o.agent_id, { status: "disabled" }, oAuth);
    expect(res.status).toBe(200);
    expect(((await res.json()) as View).status).toBe("disabled");
    expect(await getAgent(app.deps, o.org_id)).toBeNull();

    // The widget: its config and every chat answer 404, in the SDK's error shape.
    const gone = await config();
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: { code: string } }).error.code).toBe("no_active_agent");
    for (const body of [{ message: "hello again" }, { message: "hello again", session_id: sessionId }, { message: "pinned", agent_id: o.agent_id }]) {
      const refused = await chat(body);
      expect(refused.status, JSON.stringify(body)).toBe(404);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/no active agent|No such agent/);
    }
    const streamed = await app.request("/api/sdk/chat/stream", { json: { message: "hello" }, headers: widget });
    expect(streamed.status).toBe(404);

    // Tools, read-your-writes: none listed, a call refused with -32002 naming the disabled agent.
    expect(await listed()).toEqual([]);
    const call = await appErrorOf(app.deps.tools.call({ actor: system, orgId: o.org_id, channel: "mcp" }, "search_docs", { query: "x" }));
    expect(call.toRpc().code).toBe(-32002);
    expect(call.message).toContain("agent is disabled");

    // The activity log says what happened and what it was before.
    const [entry] = (await listActivity(app.deps, o.org_id, { action: "agent.disabled", objectId: o.agent_id })).items;
    expect(entry).toMatchObject({ action: "agent.disabled", summary: { fields: ["status"], previous_status: "active" } });

    // Enabling makes it available (inactive), not active: the widget still has no agent.
    const enabled = await patch(o.agent_id, { status: "inactive" }, oAuth);
    expect(((await enabled.json()) as View).status).toBe("inactive");
    expect((await config()).status).toBe(404);
    expect((await listActivity(app.deps, o.org_id, { action: "agent.enabled", objectId: o.agent_id })).items).toHaveLength(1);
    // Activating brings everything back.
    expect((await activate(o.agent_id, oAuth)).status).toBe(200);
    const back = await config();
    expect(back.status).toBe(200);
    expect(((await back.json()) as { agent: { status: string } }).agent.status).toBe("active");
    expect((await chat({ message: "hello" })).status).toBe(200);
    expect(await listed()).toContain("search_docs");
  });

  test("an inactive agent disabled: a widget pinning it gets 404; the active agent still answers", async () => {
    const o = await seedOrg(app);
    const oAuth = { authorization: `Bearer ${await signIn(app, o.admin_email, o.password)}` };
    const widget = { authorization: `Bearer ${o.widget_key}` };
    const spare = (await (await create({ name: "Spare" }, oAuth)).json()) as View;
    expect((await app.request("/api/sdk/chat", { json: { message: "hi", agent_id: spare.id }, headers: widget })).status).toBe(200);
    expect((await patch(spare.id, { status: "disabled" }, oAuth)).status).toBe(200);
    expect((await app.request("/api/sdk/chat", { json: { message: "hi", agent_id: spare.id }, headers: widget })).status).toBe(404);
    expect((await app.request("/api/sdk/chat", { json: { message: "hi" }, headers: widget })).status).toBe(200);
    expect((await app.request(`/api/sdk/config?org_id=${o.org_id}`)).status).toBe(200);
  });

  test("getAgent: the pinned agent, the active one, or null (disabled, unknown, malformed, another org's)", async () => {
    const disabled = await created({ name: "Off", status: "disabled" });
    const inactive = await created({ name: "Idle" });
    expect((await getAgent(app.deps, org.org_id))!.id).toBe(org.agent_id);
    expect((await getAgent(app.deps, org.org_id, inactive.id))!.id).toBe(inactive.id);
    expect(await getAgent(app.deps, org.org_id, disabled.id)).toBeNull();
    expect(await getAgent(app.deps, org.org_id, crypto.randomUUID())).toBeNull();
    expect(await getAgent(app.deps, org.org_id, "not-a-uuid")).toBeNull();
    expect(await getAgent(app.deps, other.org_id, inactive.id)).toBeNull();
  });

  test("read-your-writes: after an activation the very next tool listing follows the new agent's toggles", async () => {
    const picky = await created({ name: "No docs" });
    const toggle = await app.request(`/api/agents/${picky.id}/actions`, { method: "PATCH", json: { disable: ["search_docs"] }, headers: auth });
    expect(toggle.status).toBe(200);
    const names = async () => (await app.deps.tools.list({ actor: { kind: "system", name: "test" }, orgId: org.org_id, channel: "chat" })).map((t) => t.name);
    expect(await names()).toContain("search_docs"); // the original agent is active; this caches the org's snapshot
    expect((await activate(picky.id)).status).toBe(200);
    expect(await names()).not.toContain("search_docs");
    expect((await activate(org.agent_id)).status).toBe(200);
    expect(await names()).toContain("search_docs");
  });

  test("an activity row records each change without its values", async () => {
    const agent = await created({ name: "Audited", instructions: "secret sauce" });
    const res = await app.request(`/api/activity?object_id=${agent.id}`, { headers: auth });
    expect(res.status).toBe(200);
    const body = JSON.stringify(await res.json());
    expect(body).toContain("agent.created");
    expect(body).not.toContain("secret sauce");
  });
});

describe("roles", () => {
  test("no session 401; agents:view lists and reads but cannot change; without it 403", async () => {
    expect((await app.request("/api/agents")).status).toBe(401);
    const viewer = await memberWith(org.org_id, ["agents:view"]);
    expect((await app.request("/api/agents", { headers: viewer })).status).toBe(200);
    expect((await app.request(`/api/agents/${org.agent_id}`, { headers: viewer })).status).toBe(200);
    expect((await create({ name: "x" }, viewer)).status).toBe(403);
    expect((await patch(org.agent_id, { name: "x" }, viewer)).status).toBe(403);
    expect((await activate(org.agent_id, viewer)).status).toBe(403);
    const stranger = await memberWith(org.org_id, ["knowledge:view"]);
    expect((await app.request("/api/agents", { headers: stranger })).status).toBe(403);
    expect((await app.request(`/api/agents/${org.agent_id}`, { headers: stranger })).status).toBe(403);
  });
});

describe("tenant boundary", () => {
  test("another org's admin cannot see, read, change or activate this org's agents", async () => {
    const mine = await created({ name: "Mine" });
    expect((await list(otherAuth)).map((a) => a.id)).not.toContain(mine.id);
    for (const id of [mine.id, org.agent_id]) {
      expect((await app.request(`/api/agents/${id}`, { headers: otherAuth })).status).toBe(404);
      expect((await patch(id, { name: "pwned" }, otherAuth)).status).toBe(404);
      expect((await activate(id, otherAuth)).status).toBe(404);
    }
    // Naming this org in X-Org-Id does not help a non-member.
    expect((await app.request("/api/agents", { headers: { ...otherAuth, "x-org-id": org.org_id } })).status).toBe(403);
    const [row] = await app.deps.db
      .select()
      .from(agents)
      .where(and(eq(agents.id, org.agent_id)));
    expect(row!.name).not.toBe("pwned");
    expect(row!.status).toBe("active");
    expect((await getAgent(app.deps, other.org_id))!.id).toBe(other.agent_id);
  });

  test("unknown and malformed ids are 404", async () => {
    for (const id of [crypto.randomUUID(), "nope", "00000000-0000-0000-0000-00000000000g"]) {
      expect((await app.request(`/api/agents/${id}`, { headers: auth })).status).toBe(404);
      expect((await patch(id, { name: "x" })).status).toBe(404);
      expect((await activate(id)).status).toBe(404);
    }
  });
});

describe("limits at their boundary", () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>, string][] = [
    ["name", { name: "n".repeat(L.name) }, { name: "n".repeat(L.name + 1) }, "/name"],
    ["instructions", { instructions: "i".repeat(L.instructions) }, { instructions: "i".repeat(L.instructions + 1) }, "/instructions"],
    ["skills", { skills: Array.from({ length: L.skills }, (_, i) => `s${i}`) }, { skills: Array.from({ length: L.skills + 1 }, (_, i) => `s${i}`) }, "/skills"],
    ["skill", { skills: ["s".repeat(L.skill)] }, { skills: ["s".repeat(L.skill + 1)] }, "/skills/0"],
    [
      "routing rules",
      { routing_rules: Array.from({ length: L.routingRules }, () => ({ match: { keywords: ["k"] }, team: "t" })) },
      { routing_rules: Array.from({ length: L.routingRules + 1 }, () => ({ match: { keywords: ["k"] }, team: "t" })) },
      "/routing_rules",
    ],
    [
      "keywords",
      { routing_rules: [{ match: { keywords: Array.from({ length: L.keywords }, (_, i) => `k${i}`) }, team: "t" }] },
      { routing_rules: [{ match: { keywords: Array.from({ length: L.keywords + 1 }, (_, i) => `k${i}`) }, team: "t" }] },
      "/routing_rules/0/match/keywords",
    ],
    [
      "team",
      { routing_rules: [{ match: { intent: "i" }, team: "t".repeat(L.team) }] },
      { routing_rules: [{ match: { intent: "i" }, team: "t".repeat(L.team + 1) }] },
      "/routing_rules/0/team",
    ],
    ["live help label", { live_help_label: "l".repeat(L.liveHelpLabel) }, { live_help_label: "l".repeat(L.liveHelpLabel + 1) }, "/live_help_label"],
    // {"x":"…"} is 8 bytes of JSON around the string.
    ["avatar_config size", { avatar_config: { x: "a".repeat(L.configBytes - 8) } }, { avatar_config: { x: "a".repeat(L.configBytes - 7) } }, "/avatar_config"],
    [
      "avatar_config depth",
      { avatar_config: { a: { b: { c: { d: { e: 1 } } } } } },
      { avatar_config: { a: { b: { c: { d: { e: { f: 1 } } } } } } },
      "/avatar_config",
    ],
    [
      "flow_config size",
      { flow_config: { steps: [{ x: "a".repeat(L.flowBytes - JSON.stringify({ steps: [{ x: "" }], custom_variables: [] }).length) }], custom_variables: [] } },
      {
        flow_config: {
          steps: [{ x: "a".repeat(L.flowBytes - JSON.stringify({ steps: [{ x: "" }], custom_variables: [] }).length + 1) }],
          custom_variables: [],
        },
      },
      "/flow_config",
    ],
    [
      "flow steps",
      { flow_config: { steps: Array.from({ length: L.flowItems }, () => ({})), custom_variables: [] } },
      { flow_config: { steps: Array.from({ length: L.flowItems + 1 }, () => ({})), custom_variables: [] } },
      "/flow_config/steps",
    ],
    [
      "flow custom variables",
      { flow_config: { steps: [], custom_variables: Array.from({ length: L.flowItems }, (_, i) => ({ name: `v${i}` })) } },
      { flow_config: { steps: [], custom_variables: Array.from({ length: L.flowItems + 1 }, (_, i) => ({ name: `v${i}` })) } },
      "/flow_config/custom_variables",
    ],
    // flow_config is level 1, steps 2, a step 3: five more levels inside a step reach the limit.
    [
      "flow_config depth",
      { flow_config: { steps: [{ a: { b: { c: { d: { e: { f: 1 } } } } } }], custom_variables: [] } },
      { flow_config: { steps: [{ a: { b: { c: { d: { e: { f: { g: 1 } } } } } } }], custom_variables: [] } },
      "/flow_config",
    ],
    ["voice rate low", { voice_config: { rate: VL.minRate } }, { voice_config: { rate: VL.minRate - 0.01 } }, "/voice_config/rate"],
    ["voice rate high", { voice_config: { rate: VL.maxRate } }, { voice_config: { rate: VL.maxRate + 0.01 } }, "/voice_config/rate"],
    ["voice max_seconds", { voice_config: { max_seconds: VL.maxSeconds } }, { voice_config: { max_seconds: VL.maxSeconds + 1 } }, "/voice_config/max_seconds"],
    ["voice min seconds", { voice_config: { max_seconds: VL.minSeconds } }, { voice_config: { max_seconds: VL.minSeconds - 1 } }, "/voice_config/max_seconds"],
    ["voice name", { voice_config: { voice: "v".repeat(VL.voice) } }, { voice_config: { voice: "v".repeat(VL.voice + 1) } }, "/voice_config/voice"],
    [
      "voice language",
      { voice_config: { language: "en-abcdefgh-abcdefgh-abcdefgh-abcde" } },
      { voice_config: { language: "en-abcdefgh-abcdefgh-abcdefgh-abcdef" } },
      "/voice_config/language",
    ],
    [
      "video_display_mode",
      { video_display_mode: "m".repeat(L.videoDisplayMode) },
      { video_display_mode: "m".repeat(L.videoDisplayMode + 1) },
      "/video_display_mode",
    ],
  ];
  for (const [what, ok, over, path] of cases)
    test(`${what}: exactly at the limit passes, one over is 400 naming ${path}`, async () => {
      const agent = await created({ name: "Limits", ...ok });
      expect(agent.id).toBeString();
      const res = await create({ name: "Limits", ...over });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; details: { path: string }[] } };
      expect(body.error.code).toBe("validation_failed");
      expect(body.error.details.map((d) => d.path).join(" ")).toContain(path);
      // The same bound holds on update.
      expect((await patch(agent.id, over)).status).toBe(400);
    });

  test(`at most ${L.agentsPerOrg} agents per org: the ${L.agentsPerOrg}th is created, the next is 409`, async () => {
    const small = await seedOrg(app);
    const smallAuth = { authorization: `Bearer ${await signIn(app, small.admin_email, small.password)}` };
    for (let i = 1; i < L.agentsPerOrg; i++) expect((await create({ name: `Agent ${i}` }, smallAuth)).status).toBe(201);
    expect((await list(smallAuth)).length).toBe(L.agentsPerOrg);
    const over = await create({ name: "One too many" }, smallAuth);
    expect(over.status).toBe(409);
    expect(((await over.json()) as { error: { code: string } }).error.code).toBe("limit_reached");
  }, 30_000);

  test("other bad input is 400: empty name, control characters, a rule matching nothing, an empty patch, a wrong type", async () => {
    for (const body of [
      { name: "   " },
      { name: "a\u0000b" },
      { name: "ok", skills: ["a", "a"] },
      { name: "ok", routing_rules: [{ match: {}, team: "t" }] },
      { name: "ok", routing_rules: [{ match: { keywords: ["k"] }, team: "t", action: "explode" }] },
      { name: "ok", video_display_mode: "Full Screen" },
      { name: "ok", status: "active" },
      { name: 42 },
      { name: "ok", avatar_config: [1, 2] },
    ]) {
      const res = await create(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await patch(org.agent_id, {})).status).toBe(400);
  });
});

test("voice_config: a language that is no BCP 47 tag, a wrong choice of stt or tts are 400 naming the field; an unknown key is not stored", async () => {
  expect((await created({ voice_config: { speed: 2, rate: 2 } })).voice_config).toEqual({ rate: 2 });
  for (const [voice, path] of [
    [{ language: "english" }, "/voice_config/language"],
    [{ stt: "cloud" }, "/voice_config/stt"],
    [{ tts: "loud" }, "/voice_config/tts"],
    [{ enabled: "yes" }, "/voice_config/enabled"],
  ] as const) {
    const res = await create({ name: "Voice", voice_config: voice });
    expect([JSON.stringify(voice), res.status]).toEqual([JSON.stringify(voice), 400]);
    const body = (await res.json()) as { error: { details: { path: string }[] } };
    expect(body.error.details.map((d) => d.path).join(" ")).toContain(path);
  }
  const ok = await created({
    voice_config: { enabled: true, language: "pt-BR", stt: "server", tts: "off", voice: "Kore", rate: 1.5, max_seconds: 60, auto_listen: true },
  });
  expect(ok.voice_config).toEqual({
    enabled: true,
    language: "pt-BR",
    stt: "server",
    tts: "off",
    voice: "Kore",
    rate: 1.5,
    max_seconds: 60,
    auto_listen: true,
  });
});
