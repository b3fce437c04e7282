// Step 4, sources (src/agents/pipeline/steps/sources-step.ts): the documents a reply used, told to
// the sink as one `sources` action when there are any — over the passages a real knowledge base
// returns and the builtin model's answer.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Answered, answerStep } from "../../../../src/agents/pipeline/steps/answer-step.ts";
import { sourcesStep } from "../../../../src/agents/pipeline/steps/sources-step.ts";
import { BILLING_DOC, RESET_DOC } from "../../../support/chat.ts";
import { newTurn, recordingSink, type StepsWorld, stepsWorld } from "./fixture.ts";

let world: StepsWorld;
let reset: Answered;
beforeAll(async () => {
  world = await stepsWorld();
  const turn = await newTurn(world, { message: "How do I reset my password?" });
  reset = await answerStep(world.ports, turn, turn.agent, recordingSink());
}, 30_000);
afterAll(() => world.app.close());

const docOf = (title: string) => reset.passages.find((p) => p.title === title)!.docId;

test("an answer from the knowledge base: its page, told once as an action", () => {
  expect(reset.result.answered).toBe(true);
  const sink = recordingSink();
  const sources = sourcesStep(reset, sink);
  expect(sources).toEqual([{ doc_id: docOf(RESET_DOC.title), title: RESET_DOC.title, url: RESET_DOC.url }]);
  expect(sink.actions).toEqual([{ type: "sources", sources }]);
});

test("a page a tool returned joins them once, however often it came", async () => {
  const tool = { doc_id: docOf(RESET_DOC.title), title: RESET_DOC.title, url: RESET_DOC.url };
  const billing = { doc_id: crypto.randomUUID(), title: BILLING_DOC.title, url: BILLING_DOC.url };
  const sources = sourcesStep({ ...reset, result: { ...reset.result, toolSources: [tool, billing, billing] } }, recordingSink());
  expect(sources.map((s) => s.title)).toEqual([RESET_DOC.title, BILLING_DOC.title]);
});

test("no answer: only the page it named as the closest, and no action when it named none", () => {
  const closest = docOf(RESET_DOC.title);
  const named = sourcesStep({ ...reset, result: { ...reset.result, answered: false, closest } }, recordingSink());
  expect(named.map((s) => s.doc_id)).toEqual([closest]);

  const sink = recordingSink();
  expect(sourcesStep({ ...reset, result: { ...reset.result, answered: false, closest: undefined } }, sink)).toEqual([]);
  expect(sink.events).toEqual([]);
});
