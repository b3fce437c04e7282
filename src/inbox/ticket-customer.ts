// Who a chat's ticket belongs to, decided after the ticket was opened (README "Live conversation",
// "Customers who can be reached"; docs/decisions.md "Reaching an anonymous visitor"):
//   * an anonymous visitor leaves an email address at hand-off: a new unverified visitor record
//     carrying only that address becomes the ticket's customer (claimTicketContact). The widget key
//     vouches for nobody, so a typed address never reaches an existing customer record, verified or
//     not (the rule of tickets/create with an email, docs/decisions.md "Tickets from the SDK");
//   * the same visitor is identified later in the chat: the identified customer becomes the
//     customer of the conversation's waiting ticket (attachTicketCustomer), replacing nothing but an
//     address left at hand-off.
// Each change is one transaction: the ticket row locked, a history entry, an activity row and a
// ticket event, so open inbox pages see the new customer at once.
import { and, eq } from "drizzle-orm";
import { recordActivity } from "../activity/log.ts";
import type { Tx } from "../db/client.ts";
import { ticketHistory, tickets } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { createVisitor, type EndUser, findEndUser } from "../customers/records.ts";
import { eventKey, orgKey, publishChange } from "./ticket-events.ts";
import type { Ticket } from "./ticket-model.ts";

/** Whether a record is an address left in a chat (or on a ticket form): no user_id, no claim of one, never verified. */
export function isAddressOnly(user: EndUser): boolean {
  return !user.verified && user.externalId === null && user.claimedExternalId === null;
}

/** How the history names a customer: what identifies them, and whether it was proven. */
function label(user: EndUser | null): string | null {
  if (!user) return null;
  const who = user.externalId ?? (user.claimedExternalId ? `claims ${user.claimedExternalId}` : null) ?? user.email ?? user.id;
  return `${who} (${user.verified ? "verified" : "not verified"})`;
}

const waiting = (t: Ticket) => t.status === "open" || t.status === "pending";

/** Sets the ticket's customer inside `tx` (the row already locked): history, activity, the live event. */
async function setCustomer(tx: Tx, now: Date, ticket: Ticket, before: EndUser | null, after: EndUser, actor: { endUserId: string | null; sessionId: string }) {
  await tx
    .update(tickets)
    .set({ endUserId: after.id, updatedAt: now })
    .where(and(eq(tickets.orgId, ticket.orgId), eq(tickets.id, ticket.id)));
  await tx.insert(ticketHistory).values({
    orgId: ticket.orgId,
    ticketId: ticket.id,
    actorKind: "customer",
    actorName: actor.endUserId,
    action: "customer",
    before: label(before),
    after: label(after),
    createdAt: now,
  });
  await recordActivity(
    { db: tx, now: () => now },
    {
      orgId: ticket.orgId,
      actor: { kind: "customer", ...actor },
      action: "ticket.customer_set",
      objectType: "ticket",
      objectId: ticket.id,
      summary: { number: ticket.number, verified: after.verified },
    },
  );
  await publishChange(tx, ticket, ticket.status, now);
}

async function lockedTicket(tx: Tx, orgId: string, ticketId: string): Promise<Ticket | undefined> {
  const [ticket] = await tx
    .select()
    .from(tickets)
    .where(and(eq(tickets.orgId, orgId), eq(tickets.id, ticketId)))
    .for("update");
  return ticket;
}

/** Wakes the ticket's live readers (its conversation's widget, the org's inbox pages): call after the change committed. */
export function wakeTicket(deps: Pick<Deps, "live">, ticket: Ticket) {
  deps.live.wake(eventKey(ticket));
  deps.live.wake(orgKey(ticket.orgId));
}

/**
 * An anonymous visitor's address for the conversation's waiting ticket: stored on a new unverified
 * visitor record (email only), which becomes the ticket's customer. Refused when the ticket is no
 * longer waiting (409 `ticket_not_waiting`) or already belongs to an identified customer (409
 * `customer_known`); an address given again replaces the earlier one (a new record: the earlier
 * one is left as it was, it may be someone else's address the visitor mistyped).
 */
export async function claimTicketContact(
  deps: Pick<Deps, "db" | "live" | "now">,
  p: { orgId: string; ticketId: string; conversationId: string; email: string },
): Promise<{ ticket: Ticket; customer: EndUser }> {
  const email = p.email.trim().toLowerCase();
  const now = deps.now();
  let changed: Ticket | null = null;
  const result = await deps.db.transaction(async (tx) => {
    const inTx = { ...deps, db: tx };
    const ticket = await lockedTicket(tx, p.orgId, p.ticketId);
    if (!ticket) throw AppError.notFound("This conversation has no ticket.");
    if (!waiting(ticket))
      throw new AppError(409, "ticket_not_waiting", `Ticket #${ticket.number} is ${ticket.status}: there is no hand-off waiting for an address.`);
    const before = ticket.endUserId ? await findEndUser(inTx, p.orgId, ticket.endUserId) : null;
    if (before && !isAddressOnly(before))
      throw new AppError(409, "customer_known", "This ticket's customer is known already; identify the customer instead of leaving an address.");
    if (before?.email === email) return { ticket, customer: before };
    const customer = await createVisitor(inTx, p.orgId, { email });
    await setCustomer(tx, now, ticket, before, customer, { endUserId: customer.id, sessionId: p.conversationId });
    changed = ticket;
    return { ticket: { ...ticket, endUserId: customer.id, updatedAt: now }, customer };
  });
  if (changed) wakeTicket(deps, changed);
  return result;
}

/**
 * The customer identified in a conversation becomes its waiting ticket's customer when the ticket
 * has none, or only an address left at hand-off (never over another identified customer). Returns
 * the ticket it changed, or null. Whoever calls it has proven the identity as the identify route
 * requires (a valid user_token whenever identity verification is on). Inside a caller's
 * transaction, the caller wakes the live readers once it committed (wakeTicket).
 */
export async function attachTicketCustomer(
  deps: Pick<Deps, "db" | "now">,
  p: { orgId: string; ticketId: string; conversationId: string; customer: EndUser },
): Promise<Ticket | null> {
  const now = deps.now();
  let changed: Ticket | null = null;
  await deps.db.transaction(async (tx) => {
    const inTx = { ...deps, db: tx };
    const ticket = await lockedTicket(tx, p.orgId, p.ticketId);
    if (!ticket || !waiting(ticket) || ticket.endUserId === p.customer.id) return;
    const before = ticket.endUserId ? await findEndUser(inTx, p.orgId, ticket.endUserId) : null;
    if (before && !isAddressOnly(before)) return;
    await setCustomer(tx, now, ticket, before, p.customer, { endUserId: p.customer.id, sessionId: p.conversationId });
    changed = ticket;
  });
  return changed;
}
