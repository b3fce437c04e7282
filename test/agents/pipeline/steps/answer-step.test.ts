// Step 2, answer (src/agents/pipeline/steps/answer-step.ts): the knowledge under way, the model's
// answer streamed to the sink, the agent's tools bound to this customer, and what the model hears
// of them. The operator's model here is an OpenAI-compatible server; the builtin one is handed in
// through the `model` port where a test needs its no-answer.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { providerFromResolved } from "../../../../src/agents/llm/provider.ts";
import { answerStep } from "../../../../src/agents/pipeline/steps/answer-step.ts";
import { identifyEndUser } from "../../../../src/customers/records.ts";
import { actionExecutions } from "../../../../src/db/schema/index.ts";
import { fakeOpenAi, type FakeLlm } from "../../../support/fake-llm.ts";
import { newTurn, recordingSink, type StepsWorld, stepsWorld } from "./fixture.ts";

let world: StepsWorld;
let fake: FakeLlm;
beforeAll(async () => {
  fake = await fakeOpenAi();
  world = await stepsWorld({ LLM_PROVIDER: "openai", LLM_MODEL: "fake-model", LLM_BASE_URL: fake.baseUrl });
}, 30_000);
afterAll(async () => {
  await world.app.close();
  await fake.close();
});
beforeEach(() => fake.reset());

const builtin = () => ({
  ...world.ports,
  model: async () => providerFromResolved(world.app.deps, { provider: "builtin", model: "builtin-extractive", source: "operator" }),
});
const system = (i = 0) => (fake.requests[i]!.body.messages as { role: string; content: string }[]).find((m) => m.role === "system")!.content;

test("the model's answer, streamed to the sink as it comes, over the passages the turn looked up", async () => {
  fake.enqueue({ steps: [{ text: "Choose " }, { text: "Forgot password." }] });
  const turn = await newTurn(world, { message: "How do I reset my password?" });
  const sink = recordingSink();
  const answered = await answerStep(world.ports, turn, turn.agent, sink);
  expect(answered.provider).toBe("openai");
  expect(answered.result).toMatchObject({ text: "Choose Forgot password.", answered: true, toolCalls: 0 });
  expect(sink.texts).toEqual(["Choose ", "Forgot password."]);
  expect(answered.passages).toEqual(await turn.knowledge);
  expect(answered.passages.map((p) => p.title)).toContain("Reset your password");
  expect(system()).toContain("Reset your password <https://help.example.com/reset-password>");
});

test("the builtin model handed in: an answer from the knowledge base, and a no-answer as data", async () => {
  const known = await newTurn(world, { message: "How do I reset my password?" });
  const answered = await answerStep(builtin(), known, known.agent, recordingSink());
  expect(answered.provider).toBe("builtin");
  expect(answered.result.answered).toBe(true);
  expect(answered.result.text).toContain("Forgot password");

  const unknown = await newTurn(world, { message: "What is the airspeed of a swallow?" });
  const sink = recordingSink();
  const none = await answerStep(builtin(), unknown, unknown.agent, sink);
  expect(none.result.answered).toBe(false);
  expect(sink.texts.join("")).toBe(none.result.text);
  expect(fake.requests).toHaveLength(0);
});

test("a tool the model calls runs for this customer in the chat channel, and is an action", async () => {
  const endUser = await identifyEndUser(world.app.deps, world.org.org_id, "step-tool-user", true, {});
  fake.enqueue({ steps: [{ tool: { name: "search_docs", arguments: { query: "reset password" } } }] }, { steps: [{ text: "Use Forgot password." }] });
  const turn = await newTurn(world, { message: "I can't sign in", customer: { endUser, verified: true, claims: {} } });
  // A new session's first turn writes its session before a tool may name it (src/agents/first-turn-writes.ts).
  let persisted = 0;
  turn.persisted = async () => void persisted++;
  const sink = recordingSink();
  const answered = await answerStep(world.ports, turn, turn.agent, sink);
  expect(persisted).toBe(1);
  expect(answered.result).toMatchObject({ toolCalls: 1, toolFailures: 0 });
  expect(answered.result.toolSources.map((s) => s.title)).toContain("Reset your password");
  expect(sink.actions).toEqual([{ type: "tool", name: "search_docs", status: "succeeded" }]);
  const audit = await world.app.deps.db
    .select()
    .from(actionExecutions)
    .where(and(eq(actionExecutions.orgId, world.org.org_id), eq(actionExecutions.tool, "search_docs")));
  expect(audit.map((row) => ({ channel: row.channel, bound: row.boundEndUserId }))).toContainEqual({ channel: "chat", bound: endUser.id });
});

test("the model hears what is stored of a verified customer, and only what this request says of one who is not", async () => {
  const endUser = await identifyEndUser(world.app.deps, world.org.org_id, "step-traits-user", false, { traits: { plan: "stored-gold-plan" } });
  fake.enqueue({ steps: [{ text: "ok" }] }, { steps: [{ text: "ok" }] });
  const claimed = await newTurn(world, {
    message: "What plan am I on?",
    customer: { endUser, verified: false, claims: {}, reported: { plan: "reported-free-plan" } },
  });
  await answerStep(world.ports, claimed, claimed.agent, recordingSink());
  expect(system(0)).toContain("reported-free-plan");
  expect(system(0)).not.toContain("stored-gold-plan");

  const verified = await newTurn(world, {
    message: "What plan am I on?",
    customer: { endUser, verified: true, claims: {}, reported: { plan: "reported-free-plan" } },
  });
  await answerStep(world.ports, verified, verified.agent, recordingSink());
  expect(system(1)).toContain("stored-gold-plan");
});
