// A member joins a chat conversation (README "Live conversation", docs/decisions.md "Joining an AI
// conversation"): the conversation gets a ticket the member holds, so everything a handed-off chat
// already does applies — the customer's messages join the ticket and the AI stays quiet (a person
// has it: the `assignee` entry by a member, src/inbox/ticket-queries.ts waitingTicket), the member
// replies from the ticket page, and both sides follow the conversation's events. A ticket that
// already waits (one the AI opened on its own) is taken rather than a second opened. Runs inside the
// caller's transaction (src/conversations/join.ts also links the conversation to the ticket); the
// caller wakes the readers after the commit.
import { and, eq, sql } from "drizzle-orm";
import type { Tx } from "../db/client.ts";
import { ticketCounters, ticketMessages, tickets } from "../db/schema/index.ts";
import { emitTicketCreated } from "../webhooks/emit.ts";
import { emitWebhookEvent } from "../webhooks/events.ts";
import { activity, messageAuthor, record } from "./ticket-actors.ts";
import { publishJoined } from "./ticket-events.ts";
import { TICKET_LIMITS, type InboxActor, type Ticket } from "./ticket-model.ts";
import { ticketView } from "./ticket-views.ts";

export interface JoinInput {
  orgId: string;
  memberId: string;
  conversationId: string;
  /** The conversation's ticket, if it has one (taken while it waits: open or pending). */
  ticketId: string | null;
  customerId: string | null;
  subject: string;
  now: Date;
}

/** The note that opens a joined ticket's thread (only the team sees notes). */
export const JOIN_NOTE = "Joined the conversation from the AI chat. The AI agent stays quiet until this ticket is resolved or closed.";

/** The conversation's waiting ticket assigned to the member, or a new one; `created` says which. */
export async function joinChatTicket(tx: Tx, input: JoinInput): Promise<{ ticket: Ticket; created: boolean }> {
  const { orgId, memberId, now } = input;
  const actor: InboxActor = { kind: "member", memberId };
  if (input.ticketId) {
    const [current] = await tx
      .select()
      .from(tickets)
      .where(and(eq(tickets.orgId, orgId), eq(tickets.id, input.ticketId)))
      .for("update");
    if (current && (current.status === "open" || current.status === "pending")) {
      let ticket = current;
      if (current.assigneeMemberId !== memberId) {
        [ticket] = (await tx
          .update(tickets)
          .set({ assigneeMemberId: memberId, updatedAt: now })
          .where(and(eq(tickets.orgId, orgId), eq(tickets.id, current.id)))
          .returning()) as [Ticket];
        await record(tx, now, ticket, actor, "assignee", current.assigneeMemberId, memberId);
        await activity(tx, now, ticket, actor, "ticket.updated", { fields: ["assignee"] });
        // As any assignee change (src/inbox/ticket-writes.ts updateTicket), committed with it.
        await emitWebhookEvent(tx, { orgId, type: "ticket.updated", data: { ...ticketView(ticket), changed: ["assignee"] }, now });
      }
      await publishJoined(tx, ticket, memberId, now);
      return { ticket, created: false };
    }
  }
  // The row lock on the org's counter serialises concurrent creations (see ticket_counters).
  const [counter] = await tx
    .insert(ticketCounters)
    .values({ orgId, lastNumber: 1 })
    .onConflictDoUpdate({ target: ticketCounters.orgId, set: { lastNumber: sql`${ticketCounters.lastNumber} + 1` } })
    .returning({ number: ticketCounters.lastNumber });
  const subject = input.subject.trim().slice(0, TICKET_LIMITS.subject) || "Chat conversation";
  const [ticket] = (await tx
    .insert(tickets)
    .values({
      orgId,
      number: counter!.number,
      subject,
      status: "open",
      priority: "normal",
      source: "chat",
      endUserId: input.customerId,
      conversationId: input.conversationId,
      assigneeMemberId: memberId,
      createdAt: now,
      updatedAt: now,
    })
    .returning()) as [Ticket];
  // The thread opens with a note, so it never shows the customer words they did not write here.
  await tx
    .insert(ticketMessages)
    .values({ orgId, ticketId: ticket.id, kind: "note", body: JOIN_NOTE, ...messageAuthor(actor), verified: false, createdAt: now });
  await record(tx, now, ticket, actor, "created", null, {
    subject,
    status: "open",
    priority: "normal",
    team: null,
    source: "chat",
    customer_id: input.customerId,
  });
  await record(tx, now, ticket, actor, "assignee", null, memberId);
  await activity(tx, now, ticket, actor, "ticket.created", { source: "chat", joined: true });
  await publishJoined(tx, ticket, memberId, now);
  await emitTicketCreated(tx, { orgId, ticket: ticketView(ticket), now }); // webhooks, committed with the ticket
  return { ticket, created: true };
}
