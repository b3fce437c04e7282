// Step 1, route (src/agents/pipeline/steps/route.ts): each of its outcomes, on a real inbox —
// on to the answer (with a handoff told), a ticket opened for a person or a team, the waiting
// ticket joined, and the message kept for the person who owns the conversation.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { asc, eq } from "drizzle-orm";
import { route } from "../../../../src/agents/pipeline/steps/route.ts";
import type { TriageDecision } from "../../../../src/agents/pipeline/triage.ts";
import { ticketMessages, tickets } from "../../../../src/db/schema/index.ts";
import { updateTicket } from "../../../../src/inbox/tickets.ts";
import { decided, newTurn, nextTurn, recordingSink, type StepsWorld, stepsWorld, storeReply } from "./fixture.ts";

let world: StepsWorld;
beforeAll(async () => {
  world = await stepsWorld();
}, 30_000);
afterAll(() => world.app.close());

const LIVE_HELP: TriageDecision = { kind: "route", action: "live_help", team: null, reason: "person_requested" };
const BILLING: TriageDecision = { kind: "route", action: "route", team: "billing", reason: "rule", rule: 0 };
const ANSWER: TriageDecision = { kind: "answer" };
const orgTickets = async () => (await world.app.deps.db.select({ id: tickets.id }).from(tickets).where(eq(tickets.orgId, world.org.org_id))).length;
const lastBody = async (ticketId: string) =>
  (
    await world.app.deps.db
      .select({ body: ticketMessages.body })
      .from(ticketMessages)
      .where(eq(ticketMessages.ticketId, ticketId))
      .orderBy(asc(ticketMessages.seq))
  ).at(-1)?.body;

test("a message to answer, no ticket: on to the answer, nothing said", async () => {
  const turn = await newTurn(world, { message: "How do I reset my password?" });
  const sink = recordingSink();
  expect(await route(world.ports.tickets, turn, decided(turn, ANSWER), sink)).toEqual({ kind: "answer", waiting: null });
  expect(sink.events).toEqual([]);
});

test("a handoff: on to the answer by the target, the handoff told", async () => {
  const turn = await newTurn(world, { message: "My webhook fails" });
  const from = { ...turn.agent, id: crypto.randomUUID() };
  const sink = recordingSink();
  const routed = await route(
    world.ports.tickets,
    turn,
    { agent: turn.agent, decision: { kind: "handoff", agentId: turn.agent.id, skill: "developers", rule: 0 }, handedOffFrom: from },
    sink,
  );
  expect(routed).toEqual({ kind: "answer", waiting: null });
  expect(sink.actions).toEqual([{ type: "handoff", from_agent_id: from.id, to_agent_id: turn.agent.id, skill: "developers" }]);
});

test("a person asked for: a ticket opened, the acknowledgement said after it; asked again: the same ticket joined", async () => {
  const before = await orgTickets();
  const turn = await newTurn(world, { message: "Can I talk to a human?" });
  const sink = recordingSink();
  const routed = await route(world.ports.tickets, turn, decided(turn, LIVE_HELP), sink);
  if (routed.kind !== "opened") throw new Error(`expected opened, got ${routed.kind}`);
  expect(routed.routing).toEqual({ action: "live_help", ticket_id: routed.ticketId });
  expect(routed.text).toContain("person");
  expect(sink.events).toEqual(["action:ticket_created", "text"]);
  expect(sink.texts).toEqual([routed.text]);
  expect(await orgTickets()).toBe(before + 1);
  await storeReply(world, turn, routed);

  const again = await nextTurn(world, turn, { message: "Hello? Still waiting for a human" });
  const sink2 = recordingSink();
  const joined = await route(world.ports.tickets, again, decided(again, LIVE_HELP), sink2);
  expect(joined).toMatchObject({ kind: "joined", ticketId: routed.ticketId, routing: { action: "live_help", ticket_id: routed.ticketId } });
  expect(sink2.actions).toEqual([expect.objectContaining({ type: "ticket_updated", ticket_id: routed.ticketId, reason: "live_help" })]);
  expect(sink2.texts).toEqual([(joined as { text: string }).text]);
  expect(await orgTickets()).toBe(before + 1);
  expect(await lastBody(routed.ticketId)).toBe("Hello? Still waiting for a human");
});

test("a routing rule: a ticket for its team, the team named in the routing and the line", async () => {
  const turn = await newTurn(world, { message: "I want a refund" });
  const sink = recordingSink();
  const routed = await route(world.ports.tickets, turn, decided(turn, BILLING), sink);
  if (routed.kind !== "opened") throw new Error(`expected opened, got ${routed.kind}`);
  expect(routed.routing).toEqual({ action: "route", ticket_id: routed.ticketId, team: "billing" });
  expect(routed.text).toContain("billing");
  expect(sink.actions).toEqual([expect.objectContaining({ type: "ticket_created", ticket_id: routed.ticketId, team: "billing", reason: "routing_rule" })]);
});

test("a person owns the conversation: the message is theirs and nothing is said, unless the org lets the AI answer; resolved, it is the AI's again", async () => {
  const turn = await newTurn(world, { message: "I want to talk to a person" });
  const opened = await route(world.ports.tickets, turn, decided(turn, LIVE_HELP), recordingSink());
  if (opened.kind !== "opened") throw new Error(`expected opened, got ${opened.kind}`);
  await storeReply(world, turn, opened);

  const quiet = await nextTurn(world, turn, { message: "How do I reset my password?" });
  const sink = recordingSink();
  expect(await route(world.ports.tickets, quiet, decided(quiet, ANSWER), sink)).toEqual({
    kind: "person_owns",
    text: "",
    routing: { action: "person_owns", ticket_id: opened.ticketId },
    ticketId: opened.ticketId,
  });
  expect(sink.texts).toEqual([]);
  expect(sink.actions).toEqual([expect.objectContaining({ type: "ticket_updated", ticket_id: opened.ticketId, reason: "person_owns" })]);
  expect(await lastBody(opened.ticketId)).toBe("How do I reset my password?");

  const allowed = await nextTurn(world, turn, { message: "How do I reset my password?", aiAnswersDuringHandoff: true });
  const answering = await route(world.ports.tickets, allowed, decided(allowed, ANSWER), recordingSink());
  expect(answering).toMatchObject({ kind: "answer", waiting: { id: opened.ticketId, personHas: true } });

  await updateTicket(world.app.deps, { orgId: turn.orgId, actor: { kind: "system", name: "test" }, ticketId: opened.ticketId, patch: { status: "resolved" } });
  const back = await nextTurn(world, turn, { message: "How do I reset my password?" });
  expect(await route(world.ports.tickets, back, decided(back, ANSWER), recordingSink())).toEqual({ kind: "answer", waiting: null });
});
