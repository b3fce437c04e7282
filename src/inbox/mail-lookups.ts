// Reads of tickets for inbound email (src/mail-in/ingest.ts): which tickets our Message-IDs name,
// which of them belongs to the sender, and a new ticket's first message.
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Conn } from "../db/client.ts";
import { customerContacts } from "../customers/queries.ts";
import { ticketMessages, tickets } from "../db/schema/index.ts";

/** The tickets of the org's messages with these ids (a message id of another org names nothing). */
export async function ticketsOfMessages(db: Conn, orgId: string, messageIds: readonly string[]): Promise<string[]> {
  if (messageIds.length === 0) return [];
  const rows = await db
    .select({ ticketId: ticketMessages.ticketId })
    .from(ticketMessages)
    .where(and(eq(ticketMessages.orgId, orgId), inArray(ticketMessages.id, [...messageIds])));
  return rows.map((r) => r.ticketId);
}

/** The first (by number) of these tickets of the org whose customer has exactly this email address. */
export async function ticketOfCustomerAddress(
  db: Conn,
  orgId: string,
  ticketIds: readonly string[],
  address: string,
): Promise<{ ticketId: string; endUserId: string | null } | null> {
  const [match] = await db
    .select({ ticketId: tickets.id, endUserId: tickets.endUserId })
    .from(tickets)
    .innerJoin(customerContacts, and(eq(customerContacts.orgId, tickets.orgId), eq(customerContacts.id, tickets.endUserId)))
    .where(and(eq(tickets.orgId, orgId), inArray(tickets.id, [...ticketIds]), eq(customerContacts.email, address)))
    .orderBy(asc(tickets.number))
    .limit(1);
  return match ?? null;
}

/** The id of a ticket's first message. */
export async function firstMessageId(db: Conn, orgId: string, ticketId: string): Promise<string | null> {
  const [first] = await db
    .select({ id: ticketMessages.id })
    .from(ticketMessages)
    .where(and(eq(ticketMessages.orgId, orgId), eq(ticketMessages.ticketId, ticketId)))
    .orderBy(asc(ticketMessages.seq))
    .limit(1);
  return first?.id ?? null;
}
