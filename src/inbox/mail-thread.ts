// How a ticket's thread looks to mail clients (RFC 5322 section 3.6.4): every customer-visible
// message has a Message-ID — the one it arrived with when it came by email, otherwise
// `<message uuid@MAIL_FROM domain>`, derived, so it never needs storing and is the same on every
// retry — and an email we send answers the last message before it that is in the customer's
// mailbox (`In-Reply-To`) and lists those (`References`): the emails they sent us and the replies
// we emailed them, never a reply they saw only in the widget or a chat message (docs/decisions.md
// "Threading"). Inbound mail finds its ticket by these ids too (docs/interface.md H, reply routing).
import { and, asc, eq, inArray, isNotNull, lte, or } from "drizzle-orm";
import { ticketInboundEmails, ticketMessages } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { isUuid } from "../kit/ids.ts";
import { mailDomainOf, messageIdFor } from "../mail/message-id.ts";

/** RFC 5322 allows any length; long chains get cut by some servers, so the first id and the latest ones are kept (RFC 5322 section 3.6.4 allows trimming). */
export const REFERENCES_KEPT = 20;

/** The Message-ID we give a ticket message that did not arrive by email. */
export function derivedMessageId(ticketMessageId: string, mailFrom: string): string {
  return messageIdFor(ticketMessageId, mailFrom);
}

/** The ticket message a derived id names, when it is ours; null otherwise. */
export function ticketMessageIdOf(messageId: string, mailFrom: string): string | null {
  const match = /^<([0-9a-f-]{36})@([^>]+)>$/i.exec(messageId.trim());
  if (!match || match[2]!.toLowerCase() !== mailDomainOf(mailFrom) || !isUuid(match[1]!)) return null;
  return match[1]!.toLowerCase();
}

export interface ThreadIds {
  messageId: string;
  inReplyTo?: string;
  references: string[];
}

/** The ids of one ticket message and of the messages before it that the customer has as email, for its email. */
export async function threadIds(deps: Pick<Deps, "db" | "config">, orgId: string, ticketId: string, message: { id: string; seq: number }): Promise<ThreadIds> {
  const rows = await deps.db
    .select({ id: ticketMessages.id, inbound: ticketInboundEmails.messageId })
    .from(ticketMessages)
    .leftJoin(ticketInboundEmails, and(eq(ticketInboundEmails.orgId, orgId), eq(ticketInboundEmails.ticketMessageId, ticketMessages.id)))
    .where(and(eq(ticketMessages.orgId, orgId), eq(ticketMessages.ticketId, ticketId), inArray(ticketMessages.kind, ["customer", "reply"]), lte(ticketMessages.seq, message.seq), or(eq(ticketMessages.id, message.id), isNotNull(ticketMessages.emailedAt), isNotNull(ticketInboundEmails.messageId))))
    .orderBy(asc(ticketMessages.seq));
  const ids = rows.filter((r) => r.id !== message.id).map((r) => r.inbound ?? derivedMessageId(r.id, deps.config.mailFrom));
  const references = ids.length > REFERENCES_KEPT ? [ids[0]!, ...ids.slice(-(REFERENCES_KEPT - 1))] : ids;
  return { messageId: derivedMessageId(message.id, deps.config.mailFrom), inReplyTo: ids.at(-1), references };
}
