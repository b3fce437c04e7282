// The demo org on a fresh start: its active agent is named (the
// start banner prints it), and its help articles let the builtin provider answer real questions
// from the org's own knowledge-base search, with no model and no key.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { builtinAnswer, NO_ANSWER } from "../../src/agents/llm/builtin.ts";
import { providerFor } from "../../src/agents/llm/provider.ts";
import { getAgent } from "../../src/agents/service.ts";
import { DEMO_DOCS, ensureDemo } from "../../src/orgs/demo.ts";
import { orgs } from "../../src/db/schema/index.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { rejectionOf } from "../support/settle.ts";
import { retrieve } from "../../src/agents/pipeline/knowledge.ts";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
}, 60_000);
afterAll(() => app.close());

async function answer(orgId: string, question: string) {
  const passages = await retrieve(app.deps, orgId, question);
  return builtinAnswer({ messages: [{ role: "user", content: question }], passages });
}

describe("demo org", () => {
  test("the first start seeds the demo org with its agent id and help articles; later starts name the same agent", async () => {
    // Where the password is kept (a file, when standard output is not a terminal) is decided
    // before the org exists: if it cannot be kept, nothing is created and the next start tries again.
    expect(
      (
        await rejectionOf(
          ensureDemo(app.deps, {
            beforeCreate: () => {
              throw new Error("DATA_DIR is read-only");
            },
          }),
        )
      ).message,
    ).toContain("read-only");
    expect(await app.deps.db.select({ id: orgs.id }).from(orgs)).toEqual([]);
    let kept: string | undefined;
    const first = await ensureDemo(app.deps, { beforeCreate: (password) => (kept = password) });
    expect(first!.password).toBeString();
    expect(kept).toBe(first!.password!);
    expect(first!.agentId).toBe((await getAgent(app.deps, first!.orgId))!.id);
    const again = await ensureDemo(app.deps);
    expect(again!.password).toBeUndefined();
    expect(again!.agentId).toBe(first!.agentId);
    expect(again!.orgId).toBe(first!.orgId);
    const res = await app.request("/api/docs", { headers: { authorization: `Bearer ${await signInDemo(first!.email, first!.password!)}` } });
    const titles = ((await res.json()) as { docs: { title: string }[] }).docs.map((d) => d.title).sort();
    expect(titles).toEqual(DEMO_DOCS.map((d) => d.title).sort());
  });

  test("with the default (builtin) provider, the demo knowledge base answers real questions and admits what it does not know", async () => {
    const demo = (await ensureDemo(app.deps))!;
    expect((await providerFor(app.deps, demo.orgId, await getAgent(app.deps, demo.orgId))).kind).toBe("builtin");
    const reset = await answer(demo.orgId, "How do I reset my password?");
    // The answer itself, first; the article is the reply's source, not named in its text.
    expect(reset.startsWith("If you forgot your password, you can reset it yourself")).toBe(true);
    expect(reset).not.toContain('From "');
    expect(reset).not.toContain("Source:");
    const refund = await answer(demo.orgId, "Can I get a refund?");
    expect(refund).toContain("refund it in full");
    expect(await answer(demo.orgId, "Do you have an office in Tokyo?")).toBe(NO_ANSWER);
    // Words the article writes otherwise (charged/charge, refunded/refund, invoice/invoices) still find it.
    const twice = await answer(demo.orgId, "I was charged twice on my invoice this month, how do I get the duplicate charge refunded?");
    expect(twice).toContain('"Billing, invoices and payment methods"');
  });
});

test("the demo agent follows the org's model and the operator's default (LLM_PROVIDER), and its Model card says which answers and why", async () => {
  const paid = await createTestApp({ LLM_PROVIDER: "openai", LLM_BASE_URL: "http://127.0.0.1:9/v1", LLM_MODEL: "gpt-test", LLM_API_KEY: "sk-operator" });
  try {
    const demo = (await ensureDemo(paid.deps))!;
    const provider = async () => (await providerFor(paid.deps, demo.orgId, await getAgent(paid.deps, demo.orgId))).kind;
    const signin = await paid.request("/signin", {
      form: { email: demo.email, password: demo.password!, return_to: "/dashboard" },
      headers: { origin: paid.deps.config.baseUrl },
    });
    const cookie = signin.headers.get("set-cookie")!.split(";")[0]!;
    const card = async () => {
      const page = await (await paid.request(`/dashboard/agents/${demo.agentId}`, { headers: { cookie } })).text();
      return page.match(/<p class="hint" id="llm-answering">(.*?)<\/p>/s)?.[1] ?? "";
    };
    // The operator's default answers, and the card says so.
    expect(await provider()).toBe("openai");
    expect(await card()).toContain("OpenAI-compatible, model <code>gpt-test</code>");
    expect(await card()).toContain("the operator's default (<code>LLM_PROVIDER</code>");
    // The org's own model, once set, answers instead.
    const token = ((await (await paid.request("/api/auth/session", { json: { email: demo.email, password: demo.password } })).json()) as { token: string })
      .token;
    const auth = { authorization: `Bearer ${token}` };
    expect((await paid.request("/api/llm", { method: "PUT", headers: auth, json: { provider: "builtin" } })).status).toBe(200);
    expect(await provider()).toBe("builtin");
    expect(await card()).toContain('the organisation\'s model, set in <a href="/dashboard/settings">Settings</a>');
    // An agent pinned to a model of its own says it is pinned.
    expect(
      (await paid.request(`/api/agents/${demo.agentId}`, { method: "PATCH", headers: auth, json: { llm: { provider: "openai", model: "gpt-pinned" } } }))
        .status,
    ).toBe(200);
    expect(await provider()).toBe("openai");
    expect(await card()).toContain("model <code>gpt-pinned</code>");
    expect(await card()).toContain("set on this agent (it is pinned");
  } finally {
    await paid.close();
  }
}, 60_000);

async function signInDemo(email: string, password: string) {
  const res = await app.request("/api/auth/session", { json: { email, password } });
  return ((await res.json()) as { token: string }).token;
}
