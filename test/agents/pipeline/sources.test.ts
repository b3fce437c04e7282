// With a model configured: it gets the passages with their titles and URLs and the rule to answer
// only from them, and the answer's `sources` keep the pages it names.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { PASSAGES_RULE } from "../../../src/agents/llm/prompt.ts";
import { createDoc } from "../../../src/knowledge/docs.ts";
import { createTestApp, seedOrg, type TestApp } from "../../support/app.ts";
import { chatJson } from "../../support/chat.ts";
import { fakeOpenAi, type FakeLlm } from "../../support/fake-llm.ts";

let app: TestApp;
let fake: FakeLlm;
let org: Awaited<ReturnType<typeof seedOrg>>;
const ids: string[] = [];

beforeAll(async () => {
  fake = await fakeOpenAi();
  app = await createTestApp({ LLM_PROVIDER: "openai", LLM_MODEL: "fake-model", LLM_BASE_URL: fake.baseUrl });
  org = await seedOrg(app);
  for (const doc of [
    { title: "Refunds", url: "https://help.example.com/refunds", body: "## Refund a charge\nA charge is refunded to the card within 10 days." },
    {
      title: "Charges on your card",
      url: "https://help.example.com/charges",
      body: "## Why a charge appears\nA charge appears on the card on the first day of each month.",
    },
    {
      title: "Card payments",
      url: "https://help.example.com/cards",
      body: "## Paying by card\nA card is charged when the order ships; a refunded charge shows on the card statement.",
    },
  ])
    ids.push((await createDoc(app.deps, org.org_id, doc)).id);
}, 30_000);
afterAll(async () => {
  await app.close();
  await fake.close();
});
beforeEach(() => fake.reset());

test("the model sees the passages with titles and URLs and the rule; sources keep the page its answer names", async () => {
  fake.enqueue({ steps: [{ text: 'According to "Refunds", the charge is refunded within 10 days.' }] });
  const answer = await chatJson(app, org, { message: "When is a charge on my card refunded?" });
  const system = (fake.requests[0]!.body.messages as { role: string; content: string }[]).find((m) => m.role === "system")!.content;
  expect(system).toContain("Refunds <https://help.example.com/refunds>");
  expect(system).toContain("Charges on your card <https://help.example.com/charges>");
  // The rule: only from the passages, no guessing, say so plainly, cite what was used.
  expect(system).toContain(PASSAGES_RULE);
  expect(system).toContain("Answer only from these passages");
  expect(system).toContain("do not guess");
  expect(system).toContain("If they do not contain the answer, say so plainly");
  expect(system).toContain("Name each passage you used by its title");
  expect(answer.sources.map((s: { doc_id: string }) => s.doc_id)).toEqual([ids[0]]);
});

test("an answer naming no page keeps the pages that cover the question", async () => {
  fake.enqueue({ steps: [{ text: "Within 10 days." }] });
  const answer = await chatJson(app, org, { message: "When is a charge on my card refunded?" });
  expect(answer.sources.map((s: { doc_id: string }) => s.doc_id).sort()).toEqual([...ids].sort());
});

test("of three passages the model was given, sources name only the one its reply cites by number", async () => {
  const question = "When is a charge on my card refunded?";
  // A first turn shows where retrieval puts each page in the prompt (its order is retrieval's).
  await chatJson(app, org, { message: question });
  const system = (fake.requests[0]!.body.messages as { role: string; content: string }[]).find((m) => m.role === "system")!.content;
  for (const title of ["Refunds", "Charges on your card", "Card payments"]) expect(system).toContain(`] ${title} <`);
  const number = system.match(/\[(\d)\] Card payments </)![1];
  fake.enqueue({ steps: [{ text: `A refunded charge shows on your card statement [${number}].` }] });
  const answer = await chatJson(app, org, { message: question });
  expect(answer.sources.map((s: { doc_id: string }) => s.doc_id)).toEqual([ids[2]]);
});
