// The emails behind a ticket's messages, as received: members expand the full original (quoted
// history and signature included) and see the attachments it listed (README "Email channel";
// attachments are listed by name and size, never stored).
import { and, eq, inArray } from "drizzle-orm";
import { ticketInboundEmails } from "../db/schema/index.ts";
import type { Conn } from "../db/client.ts";
import type { Deps } from "../deps.ts";

export interface OriginalEmail {
  from: string;
  /** False when From was not the address of the customer the message was filed under. */
  fromCustomer: boolean;
  /** SPF/DKIM/DMARC as checked on receipt (RFC 8601 summary), and DMARC's result. */
  authResults: string;
  dmarc: string;
  /** The ticket it claimed to answer but was not let into (its sender was not authenticated). */
  claimedTicketId: string | null;
  subject: string;
  original: string;
  attachments: { name: string; size: number }[];
}

/** The originals of these messages of one ticket of the org, by message id (messages that did not arrive by email are absent). */
export async function originalsOf(deps: Pick<Deps, "db">, orgId: string, ticketId: string, messageIds: readonly string[]): Promise<Map<string, OriginalEmail>> {
  if (messageIds.length === 0) return new Map();
  const rows = await deps.db
    .select()
    .from(ticketInboundEmails)
    .where(
      and(eq(ticketInboundEmails.orgId, orgId), eq(ticketInboundEmails.ticketId, ticketId), inArray(ticketInboundEmails.ticketMessageId, [...messageIds])),
    );
  return new Map(
    rows.flatMap((r) =>
      r.ticketMessageId
        ? [
            [
              r.ticketMessageId,
              {
                from: r.fromAddress,
                fromCustomer: r.fromCustomer,
                authResults: r.authResults,
                dmarc: r.dmarc,
                claimedTicketId: r.claimedTicketId,
                subject: r.subject,
                original: r.original,
                attachments: r.attachments.map((a) => ({ name: a.name, size: a.size })),
              },
            ] as const,
          ]
        : [],
    ),
  );
}

/** The Message-IDs the org's ticket messages among `ticketMessageIds` arrived with (those that came by email). */
export async function inboundMessageIds(
  db: Conn,
  orgId: string,
  ticketMessageIds: readonly string[],
): Promise<{ ticketMessageId: string; messageId: string }[]> {
  if (ticketMessageIds.length === 0) return [];
  const rows = await db
    .select({ ticketMessageId: ticketInboundEmails.ticketMessageId, messageId: ticketInboundEmails.messageId })
    .from(ticketInboundEmails)
    .where(and(eq(ticketInboundEmails.orgId, orgId), inArray(ticketInboundEmails.ticketMessageId, [...ticketMessageIds])));
  return rows.flatMap((r) => (r.ticketMessageId ? [{ ticketMessageId: r.ticketMessageId, messageId: r.messageId }] : []));
}
