// Dashboard agents pages through the app, as a browser with a session cookie: roles allowed and
// denied, create with a field error (values kept), edit and its notation for routing rules, the
// write-only key, activate, action toggles with flags, and another org's agent answering 404.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listAgents, readAgent } from "../../src/agents/service.ts";
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
    const res = await post(app, admin, `/dashboard/agents/${agent!.id}`, { name: "Kept name", routing_rules: "no arrow here", look_title: "T", look_primary_color: "blue", live_help_label: "Help", llm_provider: "" });
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
    const res = await post(app, admin, `/dashboard/agents/${agent!.id}`, { name: agent!.name, llm_provider: "openai", llm_model: "m", llm_base_url: "ftp://models.example", llm_api_key: "sk-never-echoed" });
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
    const res = await app.request(`/dashboard/agents/${agent!.id}/actions`, { method: "POST", body: form.toString(), headers: { "content-type": "application/x-www-form-urlencoded", cookie: admin.cookie, origin: app.deps.config.baseUrl } });
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
