// A person's reply, emailed to the ticket's customer (README "Email channel"; docs/decisions.md
// "When a reply is emailed"): a `load` and a `render` of the one mail kind (src/outbox/mail-kind.ts),
// and the rule that decides whether a reply is emailed at all. The reply is queued in the durable
// outbox in the same transaction that stores it (kind `ticket.reply_email`), and delivered later:
// everything is read again at send time, because the row may have waited. What goes out is the
// reply only — never a note, never another ticket's text — from "<person> at <org>" <MAIL_FROM>,
// threaded on the messages the customer has as email, with a Reply-To that routes the answer back
// to this ticket when inbound mail is on (a fresh random token per email; only its SHA-256 is stored).
//
// Seen, or emailed: a reply on a ticket the customer follows in the widget (not an email, API or
// MCP ticket, not outreach) waits REPLY_SEEN_GRACE_MS. If the customer's own widget received it
// meanwhile — handed to one of its event streams, or in the conversation it loaded — its email is
// cancelled (`markRepliesSeen`); otherwise it is mailed. A member's dashboard stream never counts.
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Db, Tx } from "../db/client.ts";
import { customerContacts } from "../customers/queries.ts";
import { ticketMessages, ticketReplyTokens, tickets } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { sha256Hex } from "../crypto/tokens.ts";
import { messageOf } from "../errors.ts";
import { escapeHtml } from "../html/html.ts";
import type { MailTransport } from "../mail/smtp.ts";
import { displayName, MAIL_RETRY_SCHEDULE, MALFORMED, mailHandler } from "../outbox/mail-kind.ts";
import { cancelQueued, enqueue, type OutboxHandler, type OutboxRow } from "../outbox/outbox.ts";
import { rowsByPayload } from "../outbox/states.ts";
import { type InboundIds, threadIds } from "./mail-thread.ts";
import { memberById } from "../tenancy/members.ts";
import { orgNames } from "../tenancy/orgs.ts";
import { customerTexts, type Texts, textsOf } from "../texts/store.ts";

export const REPLY_MAIL_KIND = "ticket.reply_email";

/** How long a reply to a customer who follows in the widget waits for their widget to receive it before it is emailed. */
export const REPLY_SEEN_GRACE_MS = 60_000;

export const SEEN_REASON = "customer saw the reply live"; // not for customers: an outbox row's reason

/** How long a reply's email can still be waiting: the grace and every retry of the mail schedule. Older replies have nothing left to cancel. */
const STILL_QUEUED_MS = REPLY_SEEN_GRACE_MS + MAIL_RETRY_SCHEDULE.reduce((a, b) => a + b, 0) * 1000 + 3600_000;

/** How long a Reply-To address keeps routing to its ticket (docs/decisions.md "Reply addresses"). */
export const REPLY_TOKEN_TTL_DAYS = 180;

/**
 * The outbox lane of the emails a ticket's customer gets about it (its replies, then its rating
 * email): one queue, so each is handed to SMTP only after the one queued before it was accepted or
 * given up (src/outbox/claim.ts; docs/decisions.md "The rating email follows the reply").
 */
export const ticketMailLane = (ticketId: string) => `ticket:${ticketId}`;

/** Sources whose customer is not in a chat with us: their replies are always emailed. */
const ALWAYS_EMAILED = new Set(["email", "api", "mcp"]);

/** Queues the email of a person's reply, in the transaction that stores the reply (a ticket with no customer gets none). */
export async function queueReplyEmail(
  tx: Db | Tx,
  p: {
    orgId: string;
    ticket: { id: string; endUserId: string | null; source: string; conversationId: string | null };
    messageId: string;
    outreach: boolean;
    now: Date;
  },
): Promise<void> {
  if (p.ticket.endUserId === null) return;
  const live = !p.outreach && !ALWAYS_EMAILED.has(p.ticket.source) && p.ticket.conversationId !== null;
  const runAt = live ? new Date(p.now.getTime() + REPLY_SEEN_GRACE_MS) : p.now;
  await enqueue(tx, {
    orgId: p.orgId,
    kind: REPLY_MAIL_KIND,
    lane: ticketMailLane(p.ticket.id),
    payload: { ticket_id: p.ticket.id, message_id: p.messageId, ...(live ? { live: true } : {}) },
    runAt,
    now: p.now,
  });
}

/**
 * The customer's widget received these messages (its event stream handed them to the connection,
 * or it loaded the conversation): the emails still queued for the people's replies among them are
 * cancelled. Never throws: a failure here costs at most one email the customer did not need.
 */
export async function markRepliesSeen(deps: Pick<Deps, "db" | "now" | "log">, orgId: string, messages: readonly Record<string, unknown>[]): Promise<void> {
  const now = deps.now().getTime();
  const replies = messages.filter(
    (m) => m.kind === "person" && typeof m.id === "string" && typeof m.created_at === "string" && now - Date.parse(m.created_at) < STILL_QUEUED_MS,
  );
  if (replies.length === 0) return;
  const since = new Date(Math.min(...replies.map((m) => Date.parse(m.created_at as string))));
  const ids = replies.map((m) => m.id as string);
  try {
    const rows = rowsByPayload(deps.db, { orgId, kind: REPLY_MAIL_KIND, since, key: "message_id", values: ids, equal: { live: "true" } });
    await cancelQueued(deps.db, rows, SEEN_REASON, deps.now());
  } catch (error) {
    deps.log.warn("could not record replies the customer saw", { error: messageOf(error) });
  }
}

/** The inbound address of a ticket for its customer, or null when inbound mail is off. */
async function replyAddress(deps: Pick<Deps, "config" | "db" | "now">, orgId: string, ticketId: string, endUserId: string): Promise<string | null> {
  const inbound = deps.config.inbound;
  if (!inbound.domain || (inbound.smtpPort === undefined && inbound.webhookSecret === undefined)) return null;
  // Lower-case hex: some relays fold the case of local parts.
  const token = randomBytes(16).toString("hex");
  const now = deps.now();
  await deps.db.insert(ticketReplyTokens).values({
    tokenHash: sha256Hex(token),
    orgId,
    ticketId,
    endUserId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + REPLY_TOKEN_TTL_DAYS * 86_400_000),
  });
  return `reply+${token}@${inbound.domain}`;
}

export function renderReply(p: { body: string; person: string; org: string; number: number }, texts: Texts = textsOf("en")) {
  const footer = texts.t("mail.reply_footer", { number: String(p.number) });
  const text = `${p.body}\n\n-- \n${p.person}, ${p.org}\n\n${footer}\n`;
  const paragraphs = p.body
    .split(/\n{2,}/)
    .map((para) => `<p>${escapeHtml(para).replace(/\n/g, "<br>")}</p>`)
    .join("\n");
  const html = `<!doctype html><html><body>${paragraphs}\n<p>— ${escapeHtml(p.person)}, ${escapeHtml(p.org)}</p>\n<p style="color:#666;font-size:12px">${escapeHtml(footer)}</p></body></html>`;
  return { text, html };
}

async function loadReply(deps: Pick<Deps, "db">, row: OutboxRow) {
  const { ticket_id: ticketId, message_id: messageId } = row.payload as { ticket_id?: unknown; message_id?: unknown };
  if (typeof ticketId !== "string" || typeof messageId !== "string") return MALFORMED;
  const [found] = await deps.db
    .select({ ticket: tickets, message: ticketMessages, org: orgNames.name, email: customerContacts.email })
    .from(ticketMessages)
    .innerJoin(tickets, and(eq(tickets.orgId, ticketMessages.orgId), eq(tickets.id, ticketMessages.ticketId)))
    .innerJoin(orgNames, eq(orgNames.id, tickets.orgId))
    .leftJoin(customerContacts, and(eq(customerContacts.orgId, tickets.orgId), eq(customerContacts.id, tickets.endUserId)))
    .where(and(eq(ticketMessages.orgId, row.orgId), eq(ticketMessages.id, messageId), eq(ticketMessages.ticketId, ticketId)));
  if (!found || found.message.kind !== "reply") return { kind: "cancelled" as const, reason: "reply no longer exists" };
  return { to: found.ticket.endUserId ? found.email : null, data: found };
}

type Found = Extract<Awaited<ReturnType<typeof loadReply>>, { data: unknown }>["data"];

async function renderReplyMail(
  deps: Pick<Deps, "config" | "db" | "now" | "texts">,
  inbound: InboundIds,
  row: OutboxRow,
  { ticket, message, org: orgName }: Found,
) {
  // The customer's language: the ticket's (set from the conversation), else the org's default (README "Languages").
  const texts = await customerTexts(deps, row.orgId, ticket.language);
  const support = texts.t("mail.support");
  const author = message.authorMemberId ? await memberById(deps.db, message.authorMemberId) : null;
  const person = displayName(author?.name || support) || support;
  const org = displayName(orgName) || support;
  const ids = await threadIds(deps, inbound, row.orgId, ticket.id, message);
  const replyTo = await replyAddress(deps, row.orgId, ticket.id, ticket.endUserId!);
  const { text, html } = renderReply({ body: message.body, person, org, number: ticket.number }, texts);
  return {
    fromName: texts.t("mail.from_name", { person, org }),
    replyTo: replyTo ?? undefined,
    subject: message.seq === (await firstSeq(deps, row.orgId, ticket.id)) ? ticket.subject : `Re: ${ticket.subject}`,
    text,
    html,
    // The ticket message's own id: inbound answers find the ticket by it (src/inbox/mail-thread.ts).
    messageLocal: message.id,
    inReplyTo: ids.inReplyTo,
    references: ids.references,
  };
}

export function replyMailHandler(deps: Pick<Deps, "config" | "db" | "now" | "texts">, transport: MailTransport | null, inbound: InboundIds): OutboxHandler {
  return mailHandler(deps, transport, {
    ordered: true,
    load: (row) => loadReply(deps, row),
    render: (found, row) => renderReplyMail(deps, inbound, row, found),
    // Later emails of the ticket thread on this one (src/inbox/mail-thread.ts); committed with the `sent` record.
    async onSent(tx, row, now) {
      const messageId = row.payload.message_id;
      if (typeof messageId === "string")
        await tx
          .update(ticketMessages)
          .set({ emailedAt: now })
          .where(and(eq(ticketMessages.orgId, row.orgId), eq(ticketMessages.id, messageId)));
    },
  });
}

/** The first message's place in the ticket: a reply that is the first message is outreach, with the ticket's subject as it is. */
async function firstSeq(deps: Pick<Deps, "db">, orgId: string, ticketId: string): Promise<number | undefined> {
  const [first] = await deps.db
    .select({ seq: ticketMessages.seq })
    .from(ticketMessages)
    .where(and(eq(ticketMessages.orgId, orgId), eq(ticketMessages.ticketId, ticketId)))
    .orderBy(ticketMessages.seq)
    .limit(1);
  return first?.seq;
}
