// A person's reply, emailed to the ticket's customer (README "Email channel"; docs/decisions.md
// "When a reply is emailed"). The reply is queued in the durable outbox in the same transaction
// that stores it (kind `ticket.reply_email`), and delivered later: everything is read again at
// send time, because the row may have waited. What goes out is the reply only — never a note,
// never another ticket's text — from "<person> at <org>" <MAIL_FROM>, threaded on the ticket's
// earlier messages, with a Reply-To that routes the answer back to this ticket when inbound mail
// is on (a fresh random token per email; only its SHA-256 is stored).
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Db, Tx } from "../db/client.ts";
import { endUsers, members, orgs, ticketMessages, ticketReplyTokens, tickets } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { sha256Hex } from "../crypto/tokens.ts";
import { escapeHtml } from "../html/html.ts";
import { type MailTransport, SmtpFailure } from "../mail/smtp.ts";
import { enqueue, type OutboxHandler, type OutboxOutcome, type OutboxRow } from "../outbox/outbox.ts";
import { threadIds } from "./mail-thread.ts";

export const REPLY_MAIL_KIND = "ticket.reply_email";

/** The same backoff as every other email (about 24 hours of attempts). */
export const REPLY_MAIL_RETRY_SCHEDULE = [30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600] as const;

/** How long a Reply-To address keeps routing to its ticket (docs/decisions.md "Reply addresses"). */
export const REPLY_TOKEN_TTL_DAYS = 180;

/**
 * Whether the customer follows the conversation live right now (an open stream for it in the last
 * minute): then the reply reached them in the widget and is not emailed. Handed in by the
 * composition root; without one, nobody counts as connected.
 */
export type ConnectedCheck = (orgId: string, conversationId: string) => Promise<boolean>;

/** Sources whose customer is not in a chat with us: their replies are always emailed. */
const ALWAYS_EMAILED = new Set(["email", "api", "mcp"]);

/** Queues the email of a person's reply, in the transaction that stores the reply (a ticket with no customer gets none). */
export async function queueReplyEmail(tx: Db | Tx, params: { orgId: string; ticketId: string; endUserId: string | null; messageId: string; now: Date }): Promise<void> {
  if (params.endUserId === null) return;
  await enqueue(tx, { orgId: params.orgId, kind: REPLY_MAIL_KIND, payload: { ticket_id: params.ticketId, message_id: params.messageId }, runAt: params.now, now: params.now });
}

/** The inbound address of a ticket for its customer, or null when inbound mail is off. */
async function replyAddress(deps: Deps, orgId: string, ticketId: string, endUserId: string): Promise<string | null> {
  const inbound = deps.config.inbound;
  if (!inbound.domain || (inbound.smtpPort === undefined && inbound.webhookSecret === undefined)) return null;
  // Lower-case hex: some relays fold the case of local parts.
  const token = randomBytes(16).toString("hex");
  const now = deps.now();
  await deps.db.insert(ticketReplyTokens).values({ tokenHash: sha256Hex(token), orgId, ticketId, endUserId, createdAt: now, expiresAt: new Date(now.getTime() + REPLY_TOKEN_TTL_DAYS * 86_400_000) });
  return `reply+${token}@${inbound.domain}`;
}

/** A display name safe in a header: no line breaks or quotes, bounded. */
function displayName(value: string): string {
  return value.replace(/[\r\n"\\<>]+/g, " ").replace(/\s+/g, " ").trim().slice(0, 100);
}

export function renderReply(p: { body: string; person: string; org: string; number: number }) {
  const footer = `You get this email because you asked us for help (request #${p.number}). Answer it to write to us. Replies to your own requests are sent even if you unsubscribed from our newsletters; to stop them, ask us to close the request.`;
  const text = `${p.body}\n\n-- \n${p.person}, ${p.org}\n\n${footer}\n`;
  const paragraphs = p.body
    .split(/\n{2,}/)
    .map((para) => `<p>${escapeHtml(para).replace(/\n/g, "<br>")}</p>`)
    .join("\n");
  const html = `<!doctype html><html><body>${paragraphs}\n<p>— ${escapeHtml(p.person)}, ${escapeHtml(p.org)}</p>\n<p style="color:#666;font-size:12px">${escapeHtml(footer)}</p></body></html>`;
  return { text, html };
}

export interface ReplyMailOptions {
  isConnected?: ConnectedCheck;
}

export function replyMailHandler(deps: Deps, transport: MailTransport | null, options: ReplyMailOptions = {}): OutboxHandler {
  const isConnected = options.isConnected ?? (async () => false);
  return {
    retrySchedule: REPLY_MAIL_RETRY_SCHEDULE,
    async deliver(row: OutboxRow): Promise<OutboxOutcome> {
      const { ticket_id: ticketId, message_id: messageId } = row.payload as { ticket_id?: unknown; message_id?: unknown };
      if (typeof ticketId !== "string" || typeof messageId !== "string") return { kind: "failed", reason: "malformed outbox row" };
      const [found] = await deps.db
        .select({ ticket: tickets, message: ticketMessages, org: orgs.name, email: endUsers.email })
        .from(ticketMessages)
        .innerJoin(tickets, and(eq(tickets.orgId, ticketMessages.orgId), eq(tickets.id, ticketMessages.ticketId)))
        .innerJoin(orgs, eq(orgs.id, tickets.orgId))
        .leftJoin(endUsers, and(eq(endUsers.orgId, tickets.orgId), eq(endUsers.id, tickets.endUserId)))
        .where(and(eq(ticketMessages.orgId, row.orgId), eq(ticketMessages.id, messageId), eq(ticketMessages.ticketId, ticketId)));
      if (!found || found.message.kind !== "reply") return { kind: "cancelled", reason: "reply no longer exists" };
      const { ticket, message } = found;
      if (!ticket.endUserId || !found.email) return { kind: "held", reason: "not sent: customer has no email address" };
      const outreach = message.seq === (await firstSeq(deps, row.orgId, ticket.id));
      if (!outreach && !ALWAYS_EMAILED.has(ticket.source) && ticket.conversationId && (await isConnected(row.orgId, ticket.conversationId)))
        return { kind: "cancelled", reason: "customer saw the reply live" };
      if (!transport) return { kind: "held", reason: "not sent: no SMTP configured" };
      const [author] = message.authorMemberId ? await deps.db.select({ name: members.name }).from(members).where(eq(members.id, message.authorMemberId)) : [];
      const person = displayName(author?.name || "Support") || "Support";
      const org = displayName(found.org) || "Support";
      const ids = await threadIds(deps, row.orgId, ticket.id, message);
      const replyTo = await replyAddress(deps, row.orgId, ticket.id, ticket.endUserId);
      const { text, html } = renderReply({ body: message.body, person, org, number: ticket.number });
      try {
        await transport.send({
          from: { name: `${person} at ${org}`, address: deps.config.mailFrom },
          to: found.email,
          replyTo: replyTo ?? undefined,
          subject: outreach ? ticket.subject : `Re: ${ticket.subject}`,
          text,
          html,
          messageId: ids.messageId,
          inReplyTo: ids.inReplyTo,
          references: ids.references.length > 0 ? ids.references : undefined,
          headers: {},
        });
      } catch (error) {
        if (error instanceof SmtpFailure) return error.temporary ? { kind: "retry", reason: error.message } : { kind: "failed", reason: error.message };
        throw error;
      }
      return { kind: "sent" };
    },
  };
}

async function firstSeq(deps: Deps, orgId: string, ticketId: string): Promise<number | undefined> {
  const [first] = await deps.db
    .select({ seq: ticketMessages.seq })
    .from(ticketMessages)
    .where(and(eq(ticketMessages.orgId, orgId), eq(ticketMessages.ticketId, ticketId)))
    .orderBy(ticketMessages.seq)
    .limit(1);
  return first?.seq;
}
