// Step 3, escalate (src/agents/pipeline/steps/escalate.ts): each outcome of an answer's confidence —
// nothing, a person offered (with a line unless the reply already offers one), a ticket opened by
// the agent (a second unsure reply, or a frustrated customer) — and nothing while a ticket waits.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { CONFIDENCE } from "../../../../src/agents/pipeline/confidence.ts";
import { type Answered, answerStep } from "../../../../src/agents/pipeline/steps/answer-step.ts";
import { escalate } from "../../../../src/agents/pipeline/steps/escalate.ts";
import type { WaitingTicket } from "../../../../src/agents/pipeline/steps/ticket.ts";
import { ticketHistory, tickets } from "../../../../src/db/schema/index.ts";
import { newTurn, nextTurn, recordingSink, type StepsWorld, stepsWorld, storeReply, type TurnOptions } from "./fixture.ts";

let world: StepsWorld;
beforeAll(async () => {
  world = await stepsWorld();
}, 30_000);
afterAll(() => world.app.close());

type Turn = Awaited<ReturnType<typeof newTurn>>;
const answered = (turn: Turn) => answerStep(world.ports, turn, turn.agent, recordingSink());
const escalated = async (turn: Turn, answer: Answered, waiting: WaitingTicket | null = null) => {
  const sink = recordingSink();
  return { sink, outcome: await escalate(world.ports.tickets, turn, turn.agent, answer, waiting, sink) };
};
const ticketRow = async (id: string) => (await world.app.deps.db.select().from(tickets).where(eq(tickets.id, id)))[0]!;
const openedBy = async (id: string) =>
  (
    await world.app.deps.db
      .select()
      .from(ticketHistory)
      .where(and(eq(ticketHistory.ticketId, id), eq(ticketHistory.action, "created")))
  )[0]!.actorKind;
/** A second turn after an unsure reply (the agent's previous reply in the conversation below the threshold). */
async function afterUnsureReply(options: TurnOptions): Promise<Turn> {
  const first = await newTurn(world, { message: "What is the airspeed of a swallow?" });
  await storeReply(world, first, { text: "I could not find that.", confidence: CONFIDENCE.offerBelow / 2 });
  return nextTurn(world, first, options);
}

test("a sure answer: nothing offered, nothing said", async () => {
  const turn = await newTurn(world, { message: "How do I reset my password?" });
  const { outcome, sink } = await escalated(turn, await answered(turn));
  expect(outcome.kind).toBe("none");
  expect(outcome.confidence).toBeGreaterThanOrEqual(CONFIDENCE.offerBelow);
  expect(outcome.note).toBe("");
  expect(sink.events).toEqual([]);
});

test("an unsure first reply offers a person; a no-answer already says so, an answer gets the line", async () => {
  const turn = await newTurn(world, { message: "What is the airspeed of a swallow?" });
  const none = await answered(turn);
  expect(none.result.answered).toBe(false);
  const quiet = await escalated(turn, none);
  expect(quiet.outcome).toEqual({ kind: "offer", confidence: expect.any(Number), note: "" });
  expect(quiet.outcome.confidence).toBeLessThan(CONFIDENCE.offerBelow);
  expect(quiet.sink.actions).toEqual([{ type: "offer_person", label: expect.any(String) }]);
  expect(quiet.sink.texts).toEqual([]);

  // The same passages, but the model said it answered: the reply gets the offer's line.
  const guess = await escalated(turn, { ...none, result: { ...none.result, answered: true, text: "Perhaps 11 m/s." } });
  expect(guess.outcome.kind).toBe("offer");
  expect(guess.outcome.note).toBe(`\n\n${turn.texts.t("agent.offer_person")}`);
  expect(guess.sink.events).toEqual(["action:offer_person", "text"]);
});

test("a second unsure reply opens a ticket by the agent, at normal priority, and says its number", async () => {
  const turn = await afterUnsureReply({ message: "What is the capital of Peru?" });
  const { outcome, sink } = await escalated(turn, await answered(turn));
  if (outcome.kind !== "ticket") throw new Error(`expected a ticket, got ${outcome.kind}`);
  const row = await ticketRow(outcome.ticketId);
  expect(row).toMatchObject({ priority: "normal", team: null, source: "chat", conversationId: turn.conversation.id });
  expect(await openedBy(outcome.ticketId)).toBe("agent");
  expect(outcome.note).toBe(`\n\n${turn.texts.t("agent.ticket_opened", { number: String(row.number) })}`);
  expect(sink.events).toEqual(["action:ticket_created", "text"]);
  expect(sink.actions[0]).toEqual({ type: "ticket_created", ticket_id: outcome.ticketId, ticket_number: row.number, team: null, reason: "escalation" });
});

test("a frustrated customer and an unsure reply: a ticket at high priority at once", async () => {
  const turn = await newTurn(world, { message: "THIS IS USELESS, WHAT IS THE AIRSPEED OF A SWALLOW" });
  const { outcome } = await escalated(turn, await answered(turn));
  if (outcome.kind !== "ticket") throw new Error(`expected a ticket, got ${outcome.kind}`);
  expect((await ticketRow(outcome.ticketId)).priority).toBe("high");
});

test("while the conversation waits on a ticket, nothing more is offered or opened", async () => {
  const turn = await afterUnsureReply({ message: "What is the capital of Peru?" });
  const before = (await world.app.deps.db.select({ id: tickets.id }).from(tickets)).length;
  const opened = await world.ports.tickets.create(turn.orgId, { kind: "agent", agentId: turn.agent.id }, { subject: "Waiting", message: "x", source: "chat" });
  const waiting = (await world.ports.tickets.waiting(turn.orgId, opened.id))!;
  const { outcome, sink } = await escalated(turn, await answered(turn), waiting);
  expect(outcome).toEqual({ kind: "none", confidence: expect.any(Number), note: "" });
  expect(outcome.confidence).toBeLessThan(CONFIDENCE.offerBelow);
  expect(sink.events).toEqual([]);
  expect((await world.app.deps.db.select({ id: tickets.id }).from(tickets)).length).toBe(before + 1);
});
