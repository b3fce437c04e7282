// The one way the pipeline puts a chat on a ticket (src/agents/pipeline/steps/ticket.ts): opened
// by the customer or by the agent, the quota charged first, the sink told at once; or the
// message added to the ticket the conversation waits on.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, asc, eq } from "drizzle-orm";
import { joinTicket, openTicket } from "../../../../src/agents/pipeline/steps/ticket.ts";
import { ticketHistory, ticketMessages, tickets } from "../../../../src/db/schema/index.ts";
import { AppError } from "../../../../src/errors.ts";
import { rejectionOf } from "../../../support/settle.ts";
import { newTurn, recordingSink, type StepsWorld, stepsWorld } from "./fixture.ts";

let world: StepsWorld;
beforeAll(async () => {
  world = await stepsWorld();
}, 30_000);
afterAll(() => world.app.close());

const ticketRow = async (id: string) => (await world.app.deps.db.select().from(tickets).where(eq(tickets.id, id)))[0]!;
const createdBy = async (id: string) =>
  (
    await world.app.deps.db
      .select()
      .from(ticketHistory)
      .where(and(eq(ticketHistory.ticketId, id), eq(ticketHistory.action, "created")))
  )[0]!;
const orgTickets = async () => (await world.app.deps.db.select({ id: tickets.id }).from(tickets).where(eq(tickets.orgId, world.org.org_id))).length;

test("opened by the customer for a team: charged first, the chat's ticket with the team in its subject, the sink told", async () => {
  const order: string[] = [];
  // Two words say no reason of their own: the subject names the rule's team.
  const turn = await newTurn(world, { message: "refund pls", chargeTicket: async () => void order.push("charged") });
  // A new session's first turn writes its session before the ticket names it (src/agents/first-turn-writes.ts).
  turn.persisted = async () => void order.push("persisted");
  const sink = recordingSink();
  const ticket = await openTicket(world.ports.tickets, turn, sink, { by: "customer", team: "billing", chatReason: "routing_rule", reason: "routing_rule" });
  expect(order).toEqual(["charged", "persisted"]);
  const row = await ticketRow(ticket.id);
  expect(row).toMatchObject({
    number: ticket.number,
    team: "billing",
    priority: "normal",
    source: "chat",
    conversationId: turn.conversation.id,
    language: "en",
  });
  expect(row.subject).toBe("billing: Refund pls");
  expect(await createdBy(ticket.id)).toMatchObject({ actorKind: "customer" });
  expect(sink.actions).toEqual([{ type: "ticket_created", ticket_id: ticket.id, ticket_number: ticket.number, team: "billing", reason: "routing_rule" }]);
  expect(sink.texts).toEqual([]);
});

test("opened by the agent on escalation: its priority, no team, the agent as who opened it", async () => {
  const turn = await newTurn(world, { message: "THIS IS USELESS, NOTHING WORKS" });
  const sink = recordingSink();
  const ticket = await openTicket(world.ports.tickets, turn, sink, {
    by: turn.agent,
    team: null,
    priority: "high",
    chatReason: "frustration",
    reason: "escalation",
  });
  expect(await ticketRow(ticket.id)).toMatchObject({ team: null, priority: "high", source: "chat", conversationId: turn.conversation.id });
  expect(await createdBy(ticket.id)).toMatchObject({ actorKind: "agent" });
  expect(sink.actions).toEqual([{ type: "ticket_created", ticket_id: ticket.id, ticket_number: ticket.number, team: null, reason: "escalation" }]);
});

test("a quota that refuses: nothing is written and the sink hears nothing", async () => {
  const before = await orgTickets();
  const turn = await newTurn(world, {
    message: "talk to a human",
    chargeTicket: async () => {
      throw AppError.tooManyRequests(60, "Too many tickets.");
    },
  });
  const sink = recordingSink();
  const error = await rejectionOf(openTicket(world.ports.tickets, turn, sink, { by: "customer", team: null, chatReason: "live_help", reason: "live_help" }));
  expect(error).toMatchObject({ status: 429, message: "Too many tickets." });
  expect(await orgTickets()).toBe(before);
  expect(sink.events).toEqual([]);
});

test("joining adds the customer's message to the waiting ticket and tells the sink why", async () => {
  const turn = await newTurn(world, { message: "I want to talk to a person" });
  const ticket = await openTicket(world.ports.tickets, turn, recordingSink(), { by: "customer", team: null, chatReason: "live_help", reason: "live_help" });
  const waiting = (await world.ports.tickets.waiting(turn.orgId, ticket.id))!;
  const sink = recordingSink();
  await joinTicket(world.ports.tickets, { ...turn, message: "Still there?" }, sink, waiting, "live_help");
  const thread = await world.app.deps.db
    .select({ kind: ticketMessages.kind, body: ticketMessages.body })
    .from(ticketMessages)
    .where(eq(ticketMessages.ticketId, ticket.id))
    .orderBy(asc(ticketMessages.seq));
  expect(thread.at(-1)).toEqual({ kind: "customer", body: "Still there?" });
  expect(sink.actions).toEqual([{ type: "ticket_updated", ticket_id: ticket.id, ticket_number: ticket.number, team: null, reason: "live_help" }]);
});
