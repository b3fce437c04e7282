// GET /api/sdk/config (docs/interface.md 2.7, 4.5).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { agents } from "../../src/db/schema/index.ts";
import { ensureDemo } from "../../src/orgs/demo.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";

let app: TestApp;
let demo: NonNullable<Awaited<ReturnType<typeof ensureDemo>>>;
const INSTRUCTIONS = "INTERNAL-ONLY: never offer refunds above 50 EUR";

beforeAll(async () => {
  app = await createTestApp();
  demo = (await ensureDemo(app.deps))!;
  // Written directly: what an admin may store, including what must never leave the server.
  await app.deps.db
    .update(agents)
    .set({
      instructions: INSTRUCTIONS,
      routingRules: [{ match: { keywords: ["refund"] }, team: "billing-internal-team" }],
      avatarConfig: { colour: "#0055ff" },
      flowConfig: { steps: [{ say: "hi" }], custom_variables: [{ name: "plan" }] },
      llmOverride: { provider: "openai", base_url: "https://llm.internal.example/v1", model: "gpt-internal", api_key: "sk-internal-key-1234567890" },
    })
    .where(eq(agents.id, demo.agentId!));
}, 30_000);
afterAll(() => app.close());

test("the demo org's config is exactly docs/interface.md 2.7, cacheable for 60 s, and leaks nothing internal", async () => {
  const res = await app.request(`/api/sdk/config?org_id=${demo.orgId}`);
  expect(res.status).toBe(200);
  expect(res.headers.get("cache-control")).toBe("public, max-age=60");
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  const text = await res.text();
  const body = JSON.parse(text);
  expect(Object.keys(body).sort()).toEqual(["agent", "dir", "language", "organization", "texts"]);
  expect(Object.keys(body.agent).sort()).toEqual(
    ["avatar_config", "flow_config", "id", "live_help_label", "name", "skills", "status", "video_display_mode", "voice_config"].sort(),
  );
  expect(body.agent).toMatchObject({
    id: demo.agentId,
    status: "active",
    avatar_config: { colour: "#0055ff" },
    flow_config: { steps: [{ say: "hi" }], custom_variables: [{ name: "plan" }] },
  });
  expect(Array.isArray(body.agent.skills)).toBe(true);
  expect(typeof body.agent.live_help_label).toBe("string");
  expect(typeof body.agent.video_display_mode).toBe("string");
  expect(Object.keys(body.organization).sort()).toEqual(["name", "settings"]);
  expect(body.organization.name).toBe("Demo");
  for (const secret of [
    INSTRUCTIONS,
    "billing-internal-team",
    "sk-internal-key",
    "llm.internal.example",
    "gpt-internal",
    "instructions",
    "routing_rules",
    "identity",
  ])
    expect(text).not.toContain(secret);
});

test("missing or non-UUID org_id → 400; unknown org or no active agent → 404", async () => {
  for (const query of ["", "?org_id=", "?org_id=42", `?org_id=${demo.orgId}x`]) {
    const res = await app.request(`/api/sdk/config${query}`);
    expect([query, res.status]).toEqual([query, 400]);
    expect((await res.json()).error.code).toBe("validation_failed");
  }
  const unknown = await app.request(`/api/sdk/config?org_id=${crypto.randomUUID()}`);
  expect(unknown.status).toBe(404);
  expect(unknown.headers.get("access-control-allow-origin")).toBe("*");
  const other = await seedOrg(app);
  await app.deps.db.update(agents).set({ status: "inactive" }).where(eq(agents.orgId, other.org_id));
  const none = await app.request(`/api/sdk/config?org_id=${other.org_id}`);
  expect(none.status).toBe(404);
  expect((await none.json()).error.code).toBe("no_active_agent");
});

test("voice_config: the agent's settings with their defaults; a server choice says browser where the server has no speech provider; an old free-form value is read tolerantly", async () => {
  const read = async () => (await (await app.request(`/api/sdk/config?org_id=${demo.orgId}`)).json()).agent.voice_config;
  const defaults = { enabled: false, language: "en-US", stt: "browser", tts: "browser", voice: null, rate: 1, max_seconds: 30, auto_listen: false };
  await app.deps.db.update(agents).set({ voiceConfig: {} }).where(eq(agents.id, demo.agentId!));
  expect(await read()).toEqual(defaults);
  // Stored before the schema: unknown keys dropped, a bad value takes its default.
  await app.deps.db
    .update(agents)
    .set({ voiceConfig: { enabled: true, stt: "server", tts: "server", rate: 9, language: "en-GB", secret: "x" } })
    .where(eq(agents.id, demo.agentId!));
  expect(await read()).toEqual({ ...defaults, enabled: true, language: "en-GB" });
});
