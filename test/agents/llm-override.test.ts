// Model overrides: an org or agent picks its model in
// the dashboard API (agents:manage); the key is encrypted and never returned; the org's URL is
// checked by the outbound guard when saved and on every request; the operator's key never goes
// to an org's URL.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { providerFor } from "../../src/agents/llm/provider.ts";
import { getAgent } from "../../src/agents/service.ts";
import { agents, orgLlmSettings } from "../../src/db/schema/index.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";
import { fakeAnthropic, fakeOpenAi, type FakeLlm } from "../support/fake-llm.ts";
import { collect, request, textOf } from "./llm/helpers.ts";

type View = Record<string, any>;

describe("overrides checked by the guard (production rules)", () => {
  let app: TestApp;
  let org: Awaited<ReturnType<typeof seedOrg>>;
  let auth: Record<string, string>;
  beforeAll(async () => {
    app = await createTestApp({ LLM_PROVIDER: "openai", LLM_MODEL: "operator-model", LLM_API_KEY: "sk-operator", LLM_BASE_URL: "http://127.0.0.1:9/v1" });
    org = await seedOrg(app);
    auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
    app.hosts.set("llm.example.com", ["93.184.216.34"]);
  }, 60_000);
  afterAll(() => app.close());
  const patchAgent = (json: unknown) => app.request(`/api/agents/${org.agent_id}`, { method: "PATCH", json, headers: auth });

  test("an agent override with a key: stored encrypted, never returned, only api_key_set", async () => {
    const res = await patchAgent({ llm: { provider: "openai", base_url: "https://llm.example.com/v1/", model: "gpt-test", api_key: "sk-agent-secret" } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain("sk-agent-secret");
    expect(JSON.parse(text).llm).toEqual({ provider: "openai", base_url: "https://llm.example.com/v1", model: "gpt-test", api_key_set: true });
    const list = await (await app.request("/api/agents", { headers: auth })).text();
    expect(list).not.toContain("sk-agent-secret");
    const [row] = await app.deps.db.select().from(agents).where(eq(agents.id, org.agent_id));
    expect(row!.llmOverride!.api_key).toStartWith("v1.");
    expect(JSON.stringify(row)).not.toContain("sk-agent-secret");
  });

  test("internal URLs are refused when saved (400 naming /llm/base_url)", async () => {
    app.hosts.set("intranet.example.com", ["10.1.2.3"]);
    for (const base_url of [
      "http://127.0.0.1:11434/v1",
      "https://intranet.example.com/v1",
      "https://localhost/v1",
      "https://169.254.169.254/",
      "http://llm.example.com/v1",
      "https://user:pw@llm.example.com/",
    ]) {
      const res = await patchAgent({ llm: { provider: "openai", base_url, model: "m" } });
      expect(res.status, base_url).toBe(400);
      const body = (await res.json()) as { error: { details: { path: string }[] } };
      expect(body.error.details.map((d) => d.path)).toContain("/llm/base_url");
    }
  });

  test("and on every request: a name that later resolves inside is refused before any connection", async () => {
    app.hosts.set("flip.example.com", ["93.184.216.34"]);
    expect((await patchAgent({ llm: { provider: "openai", base_url: "https://flip.example.com/v1", model: "m", api_key: "sk-x" } })).status).toBe(200);
    app.hosts.set("flip.example.com", ["127.0.0.1"]);
    const provider = await providerFor(app.deps, org.org_id, await getAgent(app.deps, org.org_id));
    const { error } = await collect(provider);
    expect(error?.code).toBe("blocked_url");
  });

  test("changing the URL without a new key forgets the stored key", async () => {
    expect((await patchAgent({ llm: { provider: "openai", base_url: "https://llm.example.com/v1", model: "m", api_key: "sk-1" } })).status).toBe(200);
    const same = (await (await patchAgent({ llm: { provider: "openai", base_url: "https://llm.example.com/v1", model: "m2" } })).json()) as View;
    expect(same.llm.api_key_set).toBe(true);
    app.hosts.set("elsewhere.example.com", ["93.184.216.35"]);
    const moved = (await (await patchAgent({ llm: { provider: "openai", base_url: "https://elsewhere.example.com/v1", model: "m2" } })).json()) as View;
    expect(moved.llm.api_key_set).toBe(false);
  });

  test("validation: a model for another provider than the operator's is required; builtin takes no URL or key; key limits", async () => {
    const bad = [
      { provider: "anthropic" },
      { provider: "builtin", base_url: "https://llm.example.com" },
      { provider: "builtin", api_key: "k" },
      { provider: "openai", api_key: "has space" },
      { provider: "openai", api_key: "k".repeat(513) },
      { provider: "openai", model: "" },
      { provider: "mistral" },
    ];
    for (const llm of bad) expect((await patchAgent({ llm })).status, JSON.stringify(llm)).toBe(400);
    expect((await patchAgent({ llm: { provider: "openai", api_key: "k".repeat(512) } })).status).toBe(200);
    expect((await patchAgent({ llm: null })).status).toBe(200);
  });

  test("/api/llm: the org-wide setting, its effective source, and the agent's override winning over it", async () => {
    let view = (await (await app.request("/api/llm", { headers: auth })).json()) as View;
    expect(view).toEqual({
      operator_default: { provider: "openai", model: "operator-model" },
      override: null,
      effective: { provider: "openai", model: "operator-model", source: "operator" },
    });
    const put = await app.request("/api/llm", { method: "PUT", json: { provider: "anthropic", model: "claude-test", api_key: "sk-ant-org" }, headers: auth });
    expect(put.status).toBe(200);
    const putText = await put.text();
    expect(putText).not.toContain("sk-ant-org");
    view = JSON.parse(putText);
    expect(view.override).toEqual({ provider: "anthropic", base_url: null, model: "claude-test", api_key_set: true });
    expect(view.effective).toEqual({ provider: "anthropic", model: "claude-test", source: "org" });
    const [row] = await app.deps.db.select().from(orgLlmSettings).where(eq(orgLlmSettings.orgId, org.org_id));
    expect(row!.apiKey).not.toContain("sk-ant-org");
    // The org's setting applies to an agent without its own override…
    expect((await providerFor(app.deps, org.org_id, await getAgent(app.deps, org.org_id))).kind).toBe("anthropic");
    // …and the agent's own override wins.
    expect((await patchAgent({ llm: { provider: "builtin" } })).status).toBe(200);
    expect((await providerFor(app.deps, org.org_id, await getAgent(app.deps, org.org_id))).kind).toBe("builtin");
    expect((await patchAgent({ llm: null })).status).toBe(200);
    view = (await (await app.request("/api/llm", { method: "DELETE", headers: auth })).json()) as View;
    expect(view.effective.source).toBe("operator");
    expect((await providerFor(app.deps, org.org_id)).kind).toBe("openai");
  });

  test("roles and tenants: agents:view reads /api/llm, only agents:manage changes it; another org sees its own", async () => {
    const other = await seedOrg(app);
    const otherAuth = { authorization: `Bearer ${await signIn(app, other.admin_email, other.password)}` };
    await app.request("/api/llm", { method: "PUT", json: { provider: "builtin" }, headers: auth });
    const theirs = (await (await app.request("/api/llm", { headers: otherAuth })).json()) as View;
    expect(theirs.override).toBeNull();
    expect((await app.request("/api/llm")).status).toBe(401);
    expect((await app.request("/api/llm", { method: "PUT", json: { provider: "builtin" }, headers: { ...otherAuth, "x-org-id": org.org_id } })).status).toBe(
      403,
    );
    await app.request("/api/llm", { method: "DELETE", headers: auth });
  });
});

describe("overrides reaching real (fake) model servers", () => {
  let app: TestApp;
  let org: Awaited<ReturnType<typeof seedOrg>>;
  let auth: Record<string, string>;
  let openai: FakeLlm;
  let anthropic: FakeLlm;
  beforeAll(async () => {
    openai = await fakeOpenAi();
    anthropic = await fakeAnthropic();
    // Development allows loopback URLs, so an org's override may point at the fakes.
    app = await createTestApp({
      NODE_ENV: "development",
      LLM_PROVIDER: "openai",
      LLM_MODEL: "operator-model",
      LLM_API_KEY: "sk-operator",
      LLM_BASE_URL: openai.baseUrl,
    });
    org = await seedOrg(app);
    auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  }, 60_000);
  beforeEach(() => {
    openai.reset();
    anthropic.reset();
  });
  afterAll(async () => {
    await app.close();
    await openai.close();
    await anthropic.close();
  });
  const patchAgent = (json: unknown) => app.request(`/api/agents/${org.agent_id}`, { method: "PATCH", json, headers: auth });

  test("the operator's default: trusted URL, the operator's key and model", async () => {
    openai.enqueue({ steps: [{ text: "operator" }] });
    const { events } = await collect(await providerFor(app.deps, org.org_id));
    expect(textOf(events)).toBe("operator");
    expect(openai.requests[0]!.headers.authorization).toBe("Bearer sk-operator");
    expect(openai.requests[0]!.body.model).toBe("operator-model");
  });

  test("token usage is recorded per model request as counts only", async () => {
    openai.enqueue({ steps: [{ text: "secret customer detail" }], usage: { input: 120, output: 9 } });
    const agent = await getAgent(app.deps, org.org_id);
    await collect(await providerFor(app.deps, org.org_id, agent));
    const line = app.logs.find((l) => l.msg === "llm usage" && l.usage_input === 120);
    expect(line).toMatchObject({
      org_id: org.org_id,
      agent_id: agent!.id,
      provider: "openai",
      model: "operator-model",
      source: "operator",
      stop: "end",
      usage_output: 9,
    });
    expect(app.rawLogs.join("\n")).not.toContain("secret customer detail");
  });

  test("an override without a URL for the operator's provider: the operator's URL and key, the override's model", async () => {
    expect((await patchAgent({ llm: { provider: "openai", model: "cheaper-model" } })).status).toBe(200);
    openai.enqueue({ steps: [{ text: "ok" }] });
    await collect(await providerFor(app.deps, org.org_id, await getAgent(app.deps, org.org_id)));
    expect(openai.requests[0]!.body.model).toBe("cheaper-model");
    expect(openai.requests[0]!.headers.authorization).toBe("Bearer sk-operator");
  });

  test("an override with its own URL gets its own key (decrypted) and never the operator's", async () => {
    expect((await patchAgent({ llm: { provider: "anthropic", base_url: anthropic.baseUrl, model: "claude-test", api_key: "sk-ant-agent" } })).status).toBe(200);
    anthropic.enqueue({ steps: [{ text: "from anthropic" }] });
    const { events } = await collect(await providerFor(app.deps, org.org_id, await getAgent(app.deps, org.org_id)), request());
    expect(textOf(events)).toBe("from anthropic");
    expect(anthropic.requests[0]!.headers["x-api-key"]).toBe("sk-ant-agent");
    expect(JSON.stringify(anthropic.requests[0]!.headers)).not.toContain("sk-operator");

    expect((await patchAgent({ llm: { provider: "openai", base_url: openai.baseUrl, model: "m" } })).status).toBe(200);
    openai.enqueue({ steps: [{ text: "keyless" }] });
    await collect(await providerFor(app.deps, org.org_id, await getAgent(app.deps, org.org_id)));
    expect(openai.requests[0]!.headers.authorization).toBeUndefined();
    expect((await patchAgent({ llm: null })).status).toBe(200);
  });
});
