// Dashboard agents pages through the app, as a browser with a session cookie: roles allowed and
// denied, create with a field error (values kept), edit and its notation for routing rules, the
// write-only key, voice settings and video mode, the conversation flow rows (add and remove without
// the script, the API's limits at their boundary), disable after a confirmation and enable, activate,
// action toggles with flags, and another org's agent answering 404.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AGENT_LIMITS as L } from "../../src/agents/agent-input.ts";
import { listAgents, readAgent, updateAgent } from "../../src/agents/service.ts";
import { flowItemText, parseFlowItem } from "../../src/dashboard/agents.ts";
import { listAgentActions } from "../../src/tools/toggles.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, memberWith, post, withFlash } from "./helpers.ts";

let app: TestApp;
let admin: Member;
let other: Member;
beforeAll(async () => {
  app = await createTestApp();
  admin = await adminOf(app, "Agents Org");
  other = await adminOf(app, "Other Org");
});
afterAll(() => app.close());

describe("agents pages", () => {
  test("list: allowed for agents:view, 403 and not linked without it", async () => {
    const viewer = await memberWith(app, admin.orgId, ["agents:view"]);
    const res = await get(app, viewer, "/dashboard/agents");
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain("<h1>Agents</h1>");
    expect(body).not.toContain("New agent"); // view only: no create form
    const outsider = await memberWith(app, admin.orgId, ["inbox:view"]);
    const denied = await get(app, outsider, "/dashboard/agents");
    expect(denied.status).toBe(403);
    expect(await (await get(app, outsider, "/dashboard")).text()).not.toContain('href="/dashboard/agents"');
    // A viewer cannot post.
    expect((await post(app, viewer, "/dashboard/agents", { name: "Nope" })).status).toBe(403);
  });

  test("create: a missing name is a field error next to the field, the instructions kept", async () => {
    const res = await post(app, admin, "/dashboard/agents", { name: "  ", instructions: "Be <kind>" });
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(body).toContain('id="f-name-error"');
    expect(body).toContain("Give the agent a name.");
    expect(body).toContain('aria-invalid="true"');
    expect(body).toContain("Be &#60;kind&#62;");
  });

  test("create: a name of exactly 100 characters passes, 101 is a field error", async () => {
    expect((await post(app, admin, "/dashboard/agents", { name: "n".repeat(100), instructions: "" })).status).toBe(303);
    const over = await post(app, admin, "/dashboard/agents", { name: "n".repeat(101), instructions: "" });
    expect(over.status).toBe(400);
    expect(await over.text()).toContain("At most 100 characters.");
  });

  test("create then edit: redirect-after-POST with a flash, rules in the line notation, key write-only", async () => {
    const created = await post(app, admin, "/dashboard/agents", { name: "Billing bot", instructions: "Answer billing questions." });
    expect(created.status).toBe(303);
    const location = created.headers.get("location")!;
    expect(location).toMatch(/^\/dashboard\/agents\/[0-9a-f-]{36}$/);
    const page = await get(app, withFlash(admin, created), location);
    expect(await page.text()).toContain("Agent “Billing bot” created.");
    const id = location.split("/").pop()!;

    const saved = await post(app, admin, location, {
      name: "Billing bot",
      instructions: "Answer billing questions.",
      skills: "billing, refunds",
      routing_rules: "refund, invoice -> Billing handoff\nintent:shipping -> Logistics",
      look_title: "Billing",
      look_greeting: "Hi!",
      look_primary_color: "#112233",
      look_text_color: "",
      look_image_url: "",
      look_position: "left",
      live_help_label: "Talk to billing",
      llm_provider: "openai",
      llm_model: "gpt-x",
      llm_base_url: "",
      llm_api_key: "sk-secret-value",
    });
    expect(saved.status).toBe(303);
    const agent = await readAgent(app.deps, admin.orgId, id);
    expect(agent.skills).toEqual(["billing", "refunds"]);
    expect(agent.routingRules).toEqual([
      { match: { keywords: ["refund", "invoice"] }, team: "Billing", action: "handoff" },
      { match: { intent: "shipping" }, team: "Logistics" },
    ]);
    expect(agent.avatarConfig).toMatchObject({ title: "Billing", primary_color: "#112233", position: "left" });
    expect(agent.liveHelpLabel).toBe("Talk to billing");
    const view = await (await get(app, admin, location)).text();
    expect(view).toContain("refund, invoice -&#62; Billing handoff");
    expect(view).not.toContain("sk-secret-value");
    expect(view).toContain("A key is stored");
  });

  test("edit: a bad colour and a bad rule are field errors, the other values kept", async () => {
    const [agent] = await listAgents(app.deps, admin.orgId);
    const res = await post(app, admin, `/dashboard/agents/${agent!.id}`, {
      name: "Kept name",
      routing_rules: "no arrow here",
      look_title: "T",
      look_primary_color: "blue",
      live_help_label: "Help",
      llm_provider: "",
    });
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(body).toContain('id="f-look_primary_color-error"');
    expect(body).toContain('id="f-routing_rules-error"');
    expect(body).toContain("Line 1:");
    expect(body).toContain('value="Kept name"');
    expect((await readAgent(app.deps, admin.orgId, agent!.id)).name).not.toBe("Kept name");
  });

  test("edit: a model override the service refuses shows its reason next to the field; the key is never echoed", async () => {
    const [agent] = await listAgents(app.deps, admin.orgId);
    const res = await post(app, admin, `/dashboard/agents/${agent!.id}`, {
      name: agent!.name,
      llm_provider: "openai",
      llm_model: "m",
      llm_base_url: "ftp://models.example",
      llm_api_key: "sk-never-echoed",
    });
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(body).toContain('id="f-llm_base_url-error"');
    expect(body).not.toContain("sk-never-echoed");
  });

  test("activate: the chosen agent becomes the active one", async () => {
    const agents = await listAgents(app.deps, admin.orgId);
    const inactive = agents.find((a) => a.status !== "active")!;
    const res = await post(app, admin, `/dashboard/agents/${inactive.id}/activate`, { go: "1" });
    expect(res.status).toBe(303);
    expect((await readAgent(app.deps, admin.orgId, inactive.id)).status).toBe("active");
  });

  test("action toggles: flagged, and saving the page switches exactly the unchecked ones off", async () => {
    const [agent] = await listAgents(app.deps, admin.orgId);
    const before = await listAgentActions(app.deps, admin.orgId, agent!.id);
    expect(before.length).toBeGreaterThan(0);
    const page = await get(app, admin, `/dashboard/agents/${agent!.id}/actions`);
    expect(page.status).toBe(200);
    const body = await page.text();
    if (before.some((a) => a.destructive)) expect(body).toContain("destructive");
    const shown = before.slice(0, 50);
    const target = shown.find((a) => a.enabled)!;
    const form = new URLSearchParams();
    for (const a of shown) {
      form.append("shown", a.id);
      if (a.enabled && a.id !== target.id) form.append("enabled", a.id);
    }
    const res = await app.request(`/dashboard/agents/${agent!.id}/actions`, {
      method: "POST",
      body: form.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: admin.cookie, origin: app.deps.config.baseUrl },
    });
    expect(res.status).toBe(303);
    const after = new Map((await listAgentActions(app.deps, admin.orgId, agent!.id)).map((a) => [a.id, a.enabled]));
    expect(after.get(target.id)).toBe(false);
    for (const a of before) if (a.id !== target.id) expect(after.get(a.id)).toBe(a.enabled);
  });

  test("tenant boundary: another org's agent is 404 on every agent page", async () => {
    const [theirs] = await listAgents(app.deps, other.orgId);
    for (const path of [`/dashboard/agents/${theirs!.id}`, `/dashboard/agents/${theirs!.id}/actions`]) expect((await get(app, admin, path)).status).toBe(404);
    expect((await post(app, admin, `/dashboard/agents/${theirs!.id}`, { name: "Hijack" })).status).toBe(404);
    expect((await post(app, admin, `/dashboard/agents/${theirs!.id}/activate`, { go: "1" })).status).toBe(404);
    expect((await readAgent(app.deps, other.orgId, theirs!.id)).name).not.toBe("Hijack");
    expect((await get(app, admin, "/dashboard/agents/not-a-uuid")).status).toBe(404);
  });
});

describe("voice settings and video display mode", () => {
  const base = (agent: { name: string }) => ({ name: agent.name, video_display_mode: "inline", voice_form: "1" });

  test("voice settings are a form: saved, shown again; an unticked box stores false and empty fields their defaults", async () => {
    const [agent] = await listAgents(app.deps, admin.orgId);
    const form = {
      voice_enabled: "on",
      voice_language: "en-GB",
      voice_stt: "server",
      voice_tts: "off",
      voice_voice: "alloy",
      voice_rate: "1.2",
      voice_max_seconds: "45",
      voice_auto_listen: "on",
    };
    const res = await post(app, admin, `/dashboard/agents/${agent!.id}`, { ...base(agent!), video_display_mode: "pip", ...form });
    expect(res.status).toBe(303);
    const saved = await readAgent(app.deps, admin.orgId, agent!.id);
    expect(saved.videoDisplayMode).toBe("pip");
    expect(saved.voiceConfig).toEqual({
      enabled: true,
      language: "en-GB",
      stt: "server",
      tts: "off",
      voice: "alloy",
      rate: 1.2,
      max_seconds: 45,
      auto_listen: true,
    });
    const page = await (await get(app, admin, `/dashboard/agents/${agent!.id}`)).text();
    expect(page).toContain('<option value="pip" selected>');
    expect(page).toContain('id="f-voice_language" name="voice_language" type="text" value="en-GB"');
    expect(page).toContain('<option value="off" selected>');
    expect(page).toMatch(/id="f-voice_enabled" name="voice_enabled" value="on" checked/);
    expect((await post(app, admin, `/dashboard/agents/${agent!.id}`, base(agent!))).status).toBe(303);
    expect((await readAgent(app.deps, admin.orgId, agent!.id)).voiceConfig).toEqual({
      enabled: false,
      language: "en-US",
      stt: "browser",
      tts: "browser",
      rate: 1,
      max_seconds: 30,
      auto_listen: false,
    });
  });

  test("field errors next to the fields: a language that is no BCP 47 tag, a rate or length out of range, a mode not offered; nothing saved", async () => {
    const [agent] = await listAgents(app.deps, admin.orgId);
    for (const [form, name, message] of [
      [{ voice_language: "english please" }, "voice_language", "BCP 47"],
      [{ voice_rate: "3" }, "voice_rate", "from 0.5 to 2"],
      [{ voice_rate: "fast" }, "voice_rate", "from 0.5 to 2"],
      [{ voice_max_seconds: "4" }, "voice_max_seconds", "from 5 to 120"],
      [{ voice_stt: "cloud" }, "voice_stt", "server or browser"],
      [{ video_display_mode: "hologram" }, "video_display_mode", "Choose a display mode."],
    ] as const) {
      const res = await post(app, admin, `/dashboard/agents/${agent!.id}`, { ...base(agent!), ...form });
      expect(res.status, name).toBe(400);
      const body = await res.text();
      expect(body).toContain(`id="f-${name}-error"`);
      expect(body).toContain(message);
    }
    expect((await readAgent(app.deps, admin.orgId, agent!.id)).videoDisplayMode).not.toBe("hologram");
  });

  test("voice settings: a voice name of exactly 64 characters passes, 65 is a field error (the API's limit)", async () => {
    const [agent] = await listAgents(app.deps, admin.orgId);
    expect((await post(app, admin, `/dashboard/agents/${agent!.id}`, { ...base(agent!), voice_voice: "v".repeat(64) })).status).toBe(303);
    const over = await post(app, admin, `/dashboard/agents/${agent!.id}`, { ...base(agent!), voice_voice: "v".repeat(65) });
    expect(over.status).toBe(400);
    expect(await over.text()).toContain('id="f-voice_voice-error"');
  });

  test("a mode set through the API is offered as it is and kept on save", async () => {
    const created = await post(app, admin, "/dashboard/agents", { name: "Kiosk", instructions: "" });
    const id = created.headers.get("location")!.split("/").pop()!;
    await updateAgent(app.deps, admin.orgId, { kind: "system", name: "test" }, id, { video_display_mode: "kiosk_wall" });
    const page = await (await get(app, admin, `/dashboard/agents/${id}`)).text();
    expect(page).toContain('<option value="kiosk_wall" selected>kiosk_wall (set through the API)</option>');
    expect((await post(app, admin, `/dashboard/agents/${id}`, { name: "Kiosk", video_display_mode: "kiosk_wall", voice_config: "" })).status).toBe(303);
    expect((await readAgent(app.deps, admin.orgId, id)).videoDisplayMode).toBe("kiosk_wall");
  });
});

describe("conversation flow page", () => {
  async function freshAgent(name: string): Promise<string> {
    const created = await post(app, admin, "/dashboard/agents", { name, instructions: "" });
    return created.headers.get("location")!.split("/").pop()!;
  }
  /** A flow form: rows as repeated fields, as the browser sends them. */
  function flowForm(id: string, fields: [string, string][]) {
    const form = new URLSearchParams(fields);
    return app.request(`/dashboard/agents/${id}/flow`, {
      method: "POST",
      body: form.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: admin.cookie, origin: app.deps.config.baseUrl },
    });
  }

  test("the row notation round-trips every value: text, JSON, numbers, strings that look like JSON", () => {
    for (const value of ["Greet the customer", { ask: "email", required: true }, [1, 2], 42, true, null, "42", "{not json", " padded ", "", 'say "hi"']) {
      const text = flowItemText(value);
      expect(parseFlowItem(text), JSON.stringify(value)).toEqual({ value });
    }
    expect(parseFlowItem("   ")).toEqual({ blank: true });
    expect(parseFlowItem('{"ask": ')).toMatchObject({ error: expect.stringContaining("not valid JSON") });
  });

  test("save rows: steps and variables stored as values, blank rows skipped, ticked rows removed; shown again as rows", async () => {
    const id = await freshAgent("Flow bot");
    const res = await flowForm(id, [
      ["step", "Greet the customer"],
      ["step", '{"ask": "email"}'],
      ["step", ""],
      ["step", "drop me"],
      ["remove_step", "3"],
      ["variable", '{"name": "plan", "default": "free"}'],
      ["variable", "region"],
      ["variable", ""],
    ]);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/dashboard/agents/${id}/flow`);
    const agent = await readAgent(app.deps, admin.orgId, id);
    expect(agent.flowConfig).toEqual({ steps: ["Greet the customer", { ask: "email" }], custom_variables: [{ name: "plan", default: "free" }, "region"] });
    const page = await (await get(app, withFlash(admin, res), `/dashboard/agents/${id}/flow`)).text();
    expect(page).toContain("Flow saved: 2 steps, 2 variables.");
    expect(page).toContain('value="Greet the customer"');
    expect(page).toContain('value="{&#34;ask&#34;:&#34;email&#34;}"');
    expect(page).toContain('<label for="f-step_2">Step 3</label>'); // the empty row to add one
    // The widget reads what was saved, once this is the active agent.
    expect((await post(app, admin, `/dashboard/agents/${id}/activate`, { go: "1" })).status).toBe(303);
    const config = await (await app.request(`/api/sdk/config?org_id=${admin.orgId}`)).json();
    expect(config).toMatchObject({ agent: { id, flow_config: agent.flowConfig } });
  });

  test("add a row without the script: the page comes back with one more row and what was typed; nothing saved", async () => {
    const id = await freshAgent("Adder");
    const res = await flowForm(id, [
      ["step", "typed, not saved"],
      ["step", ""],
      ["variable", ""],
      ["op", "add_step"],
    ]);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).toContain('value="typed, not saved"');
    expect(body).toContain('id="f-step_2"');
    expect(body).not.toContain('id="f-step_3"');
    expect((await readAgent(app.deps, admin.orgId, id)).flowConfig.steps).toEqual([]);
    const more = await (
      await flowForm(id, [
        ["step", ""],
        ["variable", "a"],
        ["variable", ""],
        ["op", "add_variable"],
      ])
    ).text();
    expect(more).toContain('id="f-variable_2"');
  });

  test("a row that starts like JSON but is not: the error next to that row, the rows kept, nothing saved", async () => {
    const id = await freshAgent("Broken row");
    const res = await flowForm(id, [
      ["step", "fine"],
      ["step", '{"ask": "email"'],
      ["variable", "ok"],
    ]);
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(body).toContain('id="f-step_1-error"');
    expect(body).toContain("Step 2: This is not valid JSON.");
    expect(body).toContain('aria-describedby="f-step_1-error"');
    expect(body).toContain('href="#f-step_1"');
    expect(body).toContain('value="{&#34;ask&#34;: &#34;email&#34;"');
    expect((await readAgent(app.deps, admin.orgId, id)).flowConfig.steps).toEqual([]);
  });

  test(`exactly ${L.flowItems} steps and ${L.flowItems} variables pass; one more of either is an error at its list (the API's limit)`, async () => {
    const id = await freshAgent("Long flow");
    const rows = (kind: string, n: number) => Array.from({ length: n }, (_, i): [string, string] => [kind, `${kind} ${i}`]);
    expect((await flowForm(id, [...rows("step", L.flowItems), ...rows("variable", L.flowItems)])).status).toBe(303);
    expect((await readAgent(app.deps, admin.orgId, id)).flowConfig.steps).toHaveLength(L.flowItems);
    const overSteps = await flowForm(id, [...rows("step", L.flowItems + 1), ["variable", "x"]]);
    expect(overSteps.status).toBe(400);
    const body = await overSteps.text();
    expect(body).toContain('id="f-steps-error"');
    expect(body).toContain(`At most ${L.flowItems} steps.`);
    const overVariables = await flowForm(id, [["step", "x"], ...rows("variable", L.flowItems + 1)]);
    expect(overVariables.status).toBe(400);
    expect(await overVariables.text()).toContain('id="f-variables-error"');
    expect((await readAgent(app.deps, admin.orgId, id)).flowConfig.steps).toHaveLength(L.flowItems);
  });

  test(`exactly ${L.flowBytes} bytes pass, one more is an error for the whole flow; too deep likewise`, async () => {
    const id = await freshAgent("Big flow");
    // The flow {"steps":["…"],"custom_variables":[]} as JSON: 35 bytes around the one step's text.
    const around = JSON.stringify({ steps: [""], custom_variables: [] }).length;
    expect((await flowForm(id, [["step", "a".repeat(L.flowBytes - around)]])).status).toBe(303);
    const over = await flowForm(id, [["step", "a".repeat(L.flowBytes - around + 1)]]);
    expect(over.status).toBe(400);
    const body = await over.text();
    expect(body).toContain('id="f-flow-error"');
    expect(body).toContain(`Larger than ${L.flowBytes} bytes`);
    const deep = await flowForm(id, [["step", '{"a":{"b":{"c":{"d":{"e":{"f":{"g":1}}}}}}}']]);
    expect(deep.status).toBe(400);
    expect(await deep.text()).toContain("Nesting deeper than");
  });

  test("viewers see the flow read-only and cannot post; another org's agent is 404", async () => {
    const viewer = await memberWith(app, admin.orgId, ["agents:view"]);
    const [agent] = await listAgents(app.deps, admin.orgId);
    const page = await get(app, viewer, `/dashboard/agents/${agent!.id}/flow`);
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).not.toContain("Save flow");
    expect(body).toContain(" disabled>");
    expect((await post(app, viewer, `/dashboard/agents/${agent!.id}/flow`, { step: "x" })).status).toBe(403);
    const [theirs] = await listAgents(app.deps, other.orgId);
    expect((await get(app, admin, `/dashboard/agents/${theirs!.id}/flow`)).status).toBe(404);
    expect((await post(app, admin, `/dashboard/agents/${theirs!.id}/flow`, { step: "pwned" })).status).toBe(404);
    expect((await readAgent(app.deps, other.orgId, theirs!.id)).flowConfig.steps).toEqual([]);
  });
});

describe("disable and enable", () => {
  test("disabling the active agent: a confirmation page first, then the widget has no agent and tools are refused; enable, activate", async () => {
    const owner = await adminOf(app, "Disable Org");
    const agentId = owner.agentId!;
    const config = () => app.request(`/api/sdk/config?org_id=${owner.orgId}`);
    const tools = async () => (await app.deps.tools.list({ actor: { kind: "system", name: "test" }, orgId: owner.orgId, channel: "mcp" })).length;
    expect(await tools()).toBeGreaterThan(0);

    // The agent page links to the confirmation page, which says what disabling the active agent does.
    expect(await (await get(app, owner, `/dashboard/agents/${agentId}`)).text()).toContain(`href="/dashboard/agents/${agentId}/disable"`);
    const confirm = await get(app, owner, `/dashboard/agents/${agentId}/disable`);
    expect(confirm.status).toBe(200);
    const page = await confirm.text();
    expect(page).toContain("This is the active agent.");
    expect(page).toContain("no_active_agent");
    expect(page).toContain('name="confirm" value="yes"');
    // A post without the confirmation only shows that page again.
    const unconfirmed = await post(app, owner, `/dashboard/agents/${agentId}/disable`, { go: "1" });
    expect(unconfirmed.status).toBe(200);
    expect((await readAgent(app.deps, owner.orgId, agentId)).status).toBe("active");

    const res = await post(app, owner, `/dashboard/agents/${agentId}/disable`, { confirm: "yes" });
    expect(res.status).toBe(303);
    expect((await readAgent(app.deps, owner.orgId, agentId)).status).toBe("disabled");
    const after = await (await get(app, withFlash(owner, res), `/dashboard/agents/${agentId}`)).text();
    expect(after).toContain("The organisation has no active agent now");
    expect(after).toContain(`action="/dashboard/agents/${agentId}/enable"`);
    expect(after).toContain("Make this the active agent");
    // What the widget and tools see, at once (the tool snapshot was dropped).
    expect((await config()).status).toBe(404);
    expect((await app.request("/api/sdk/chat", { json: { message: "hi" }, headers: { authorization: `Bearer ${owner.widgetKey}` } })).status).toBe(404);
    expect(await tools()).toBe(0);
    expect(await (await get(app, owner, "/dashboard/agents")).text()).toContain("No agent is active");

    const enabled = await post(app, owner, `/dashboard/agents/${agentId}/enable`, { go: "1" });
    expect(enabled.status).toBe(303);
    expect((await readAgent(app.deps, owner.orgId, agentId)).status).toBe("inactive");
    expect((await config()).status).toBe(404);
    expect((await post(app, owner, `/dashboard/agents/${agentId}/activate`, { go: "1" })).status).toBe(303);
    expect((await config()).status).toBe(200);
    expect(await tools()).toBeGreaterThan(0);
    expect(await (await get(app, owner, "/dashboard/agents")).text()).not.toContain("No agent is active");
  });

  test("an inactive agent's confirmation page says what it stops; roles and the tenant boundary hold", async () => {
    const created = await post(app, admin, "/dashboard/agents", { name: "Spare", instructions: "" });
    const id = created.headers.get("location")!.split("/").pop()!;
    const page = await (await get(app, admin, `/dashboard/agents/${id}/disable`)).text();
    expect(page).not.toContain("This is the active agent.");
    expect(page).toContain("agent_id");
    const viewer = await memberWith(app, admin.orgId, ["agents:view"]);
    expect(await (await get(app, viewer, `/dashboard/agents/${id}`)).text()).not.toContain("Disable…");
    expect((await get(app, viewer, `/dashboard/agents/${id}/disable`)).status).toBe(403);
    expect((await post(app, viewer, `/dashboard/agents/${id}/disable`, { confirm: "yes" })).status).toBe(403);
    expect((await post(app, other, `/dashboard/agents/${id}/disable`, { confirm: "yes" })).status).toBe(404);
    expect((await get(app, other, `/dashboard/agents/${id}/disable`)).status).toBe(404);
    expect((await readAgent(app.deps, admin.orgId, id)).status).toBe("inactive");
    expect((await post(app, admin, `/dashboard/agents/${id}/disable`, { confirm: "yes" })).status).toBe(303);
    expect((await post(app, other, `/dashboard/agents/${id}/enable`, { go: "1" })).status).toBe(404);
    expect((await post(app, viewer, `/dashboard/agents/${id}/enable`, { go: "1" })).status).toBe(403);
    expect((await readAgent(app.deps, admin.orgId, id)).status).toBe("disabled");
  });
});
