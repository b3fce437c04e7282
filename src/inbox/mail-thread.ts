// How a ticket's thread looks to mail clients (RFC 5322 section 3.6.4): every customer-visible
// message has a Message-ID — the one it arrived with when it came by email, otherwise
// `<message uuid@MAIL_FROM domain>`, derived, so it never needs storing and is the same on every
// retry — and an email we send answers the last message before it that is in the customer's
// mailbox (`In-Reply-To`) and lists those (`References`): the emails they sent us and the replies
// we emailed them, never a reply they saw only in the widget or a chat message (docs/decisions.md
// "Threading"). Inbound mail finds its ticket by these ids too (docs/interface.md H, reply routing).
import { and, asc, eq, inArray, lt, ne } from "drizzle-orm";
import { ticketMessages } from "../db/schema/index.ts";
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

/**
 * The Message-IDs the org's ticket messages arrived with, for those of `ticketMessageIds` that came
 * by email. Inbound mail keeps them (src/mail-in/originals.ts), on a floor above this room:
 * src/compose.ts passes the reader in.
 */
export type InboundIds = (orgId: string, ticketMessageIds: readonly string[]) => Promise<{ ticketMessageId: string; messageId: string }[]>;

/** The ids of one ticket message and of the messages before it that the customer has as email, for its email. */
export async function threadIds(
  deps: Pick<Deps, "db" | "config">,
  inbound: InboundIds,
  orgId: string,
  ticketId: string,
  message: { id: string; seq: number },
): Promise<ThreadIds> {
  const earlier = await deps.db
    .select({ id: ticketMessages.id, emailedAt: ticketMessages.emailedAt })
    .from(ticketMessages)
    .where(
      and(
        eq(ticketMessages.orgId, orgId),
        eq(ticketMessages.ticketId, ticketId),
        inArray(ticketMessages.kind, ["customer", "reply"]),
        lt(ticketMessages.seq, message.seq),
        ne(ticketMessages.id, message.id),
      ),
    )
    .orderBy(asc(ticketMessages.seq));
  const received = Map.groupBy(
    earlier.length
      ? await inbound(
          orgId,
          earlier.map((m) => m.id),
        )
      : [],
    (r) => r.ticketMessageId,
  );
  // Each earlier message the customer has as email: the ids it arrived with, or ours when we emailed it.
  const ids = earlier.flatMap((m) => received.get(m.id)?.map((r) => r.messageId) ?? (m.emailedAt ? [derivedMessageId(m.id, deps.config.mailFrom)] : []));
  const references = ids.length > REFERENCES_KEPT ? [ids[0]!, ...ids.slice(-(REFERENCES_KEPT - 1))] : ids;
  return { messageId: derivedMessageId(message.id, deps.config.mailFrom), inReplyTo: ids.at(-1), references };
}
