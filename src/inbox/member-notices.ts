// Members hear by email when a customer writes (docs/decisions.md "Member notifications"): the
// ticket's assignee, or — while it is unassigned — every member with inbox:manage, except those
// who chose `off`. Throttled: at most one email per member per ticket in NOTICE_THROTTLE_MS, the
// throttle kept per (ticket, member) in the same transaction as the customer's message, so two
// instances never both send. A member who chose `notify_only` gets the ticket's number and a
// link, never the customer's text. Queued in the outbox (kind `ticket.member_notice`) with the
// message, and read again when sent.
import { and, eq, sql } from "drizzle-orm";
import type { Db, Tx } from "../db/client.ts";
import { customerContacts } from "../customers/queries.ts";
import { memberMailNotifications, ticketMemberNotices, ticketMessages, tickets, type MemberNotifyMode } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { escapeHtml } from "../html/html.ts";
import type { MailTransport } from "../mail/smtp.ts";
import { displayName, MALFORMED, type MailStop, mailHandler } from "../outbox/mail-kind.ts";
import { enqueue, type OutboxHandler, type OutboxRow } from "../outbox/outbox.ts";
import { memberCards } from "../tenancy/members.ts";
import { membershipRoles } from "../tenancy/memberships.ts";
import { orgNames } from "../tenancy/orgs.ts";

export const MEMBER_NOTICE_KIND = "ticket.member_notice";
export const NOTIFY_MODES = ["full", "notify_only", "off"] as const satisfies readonly MemberNotifyMode[];
/** One email per member per ticket in this window; later messages in it are in the inbox, not the mailbox. */
export const NOTICE_THROTTLE_MS = 10 * 60_000;

/** Who is told about a customer message on this ticket: the assignee, else the managers; never those who chose `off`. */
async function recipients(tx: Db | Tx, orgId: string, assignee: string | null): Promise<string[]> {
  const rows = await tx
    .select({ id: membershipRoles.memberId, mode: memberMailNotifications.mode })
    .from(membershipRoles)
    .leftJoin(
      memberMailNotifications,
      and(eq(memberMailNotifications.orgId, membershipRoles.orgId), eq(memberMailNotifications.memberId, membershipRoles.memberId)),
    )
    .where(
      and(eq(membershipRoles.orgId, orgId), assignee ? eq(membershipRoles.memberId, assignee) : sql`${membershipRoles.roles} @> array['inbox:manage']::text[]`),
    );
  return rows.filter((r) => r.mode !== "off").map((r) => r.id);
}

/** In the transaction that stores a customer message: one queued email per recipient outside the throttle window. */
export async function queueMemberNotices(
  tx: Db | Tx,
  p: { orgId: string; ticketId: string; assignee: string | null; messageId: string; now: Date },
): Promise<void> {
  for (const memberId of await recipients(tx, p.orgId, p.assignee)) {
    const since = new Date(p.now.getTime() - NOTICE_THROTTLE_MS);
    const [claimed] = await tx
      .insert(ticketMemberNotices)
      .values({ orgId: p.orgId, ticketId: p.ticketId, memberId, lastQueuedAt: p.now })
      .onConflictDoUpdate({
        target: [ticketMemberNotices.ticketId, ticketMemberNotices.memberId],
        set: { lastQueuedAt: p.now },
        setWhere: sql`${ticketMemberNotices.lastQueuedAt} <= ${since.toISOString()}::timestamptz`,
      })
      .returning({ memberId: ticketMemberNotices.memberId });
    if (claimed)
      await enqueue(tx, {
        orgId: p.orgId,
        kind: MEMBER_NOTICE_KIND,
        payload: { ticket_id: p.ticketId, member_id: memberId, message_id: p.messageId },
        runAt: p.now,
        now: p.now,
      });
  }
}

export async function notifyMode(deps: Pick<Deps, "db">, orgId: string, memberId: string): Promise<MemberNotifyMode> {
  const [row] = await deps.db
    .select({ mode: memberMailNotifications.mode })
    .from(memberMailNotifications)
    .where(and(eq(memberMailNotifications.orgId, orgId), eq(memberMailNotifications.memberId, memberId)));
  return row?.mode ?? "full";
}

export async function setNotifyMode(deps: Pick<Deps, "db" | "now">, orgId: string, memberId: string, mode: MemberNotifyMode): Promise<MemberNotifyMode> {
  const now = deps.now();
  await deps.db
    .insert(memberMailNotifications)
    .values({ orgId, memberId, mode, updatedAt: now })
    .onConflictDoUpdate({ target: [memberMailNotifications.orgId, memberMailNotifications.memberId], set: { mode, updatedAt: now } });
  return mode;
}

async function loadNotice(deps: Pick<Deps, "db">, row: OutboxRow) {
  const { ticket_id: ticketId, member_id: memberId, message_id: messageId } = row.payload as Record<string, unknown>;
  if (typeof ticketId !== "string" || typeof memberId !== "string" || typeof messageId !== "string") return MALFORMED;
  const [found] = await deps.db
    .select({
      ticket: tickets,
      body: ticketMessages.body,
      org: orgNames.name,
      email: memberCards.email,
      customer: customerContacts.name,
      customerEmail: customerContacts.email,
    })
    .from(tickets)
    .innerJoin(ticketMessages, and(eq(ticketMessages.orgId, tickets.orgId), eq(ticketMessages.ticketId, tickets.id), eq(ticketMessages.id, messageId)))
    .innerJoin(orgNames, eq(orgNames.id, tickets.orgId))
    .innerJoin(membershipRoles, and(eq(membershipRoles.orgId, tickets.orgId), eq(membershipRoles.memberId, memberId)))
    .innerJoin(memberCards, eq(memberCards.id, memberId))
    .leftJoin(customerContacts, and(eq(customerContacts.orgId, tickets.orgId), eq(customerContacts.id, tickets.endUserId)))
    .where(and(eq(tickets.orgId, row.orgId), eq(tickets.id, ticketId)));
  if (!found) return { kind: "cancelled" as const, reason: "ticket, message or membership no longer exists" };
  const mode = await notifyMode(deps, row.orgId, memberId);
  if (mode === "off") return { kind: "cancelled" as const, reason: "member turned notifications off" };
  return { to: found.email, data: { ...found, mode } };
}

type Notice = Exclude<Awaited<ReturnType<typeof loadNotice>>, MailStop>["data"];

function renderNotice(deps: Pick<Deps, "config">, found: Notice) {
  const { ticket, mode } = found;
  const link = `${deps.config.baseUrl}/dashboard/inbox/${ticket.id}`;
  const who = found.customer || found.customerEmail || "A customer";
  const intro = `${who} wrote on ticket #${ticket.number} (${ticket.subject}).`;
  // "notify only" never carries the customer's text.
  const text = mode === "full" ? `${intro}\n\n${found.body}\n\nOpen it: ${link}\n` : `${intro}\n\nOpen it: ${link}\n`;
  const html = `<p>${escapeHtml(intro)}</p>${mode === "full" ? `<blockquote>${escapeHtml(found.body).replace(/\n/g, "<br>")}</blockquote>` : ""}<p><a href="${escapeHtml(link)}">Open ticket #${ticket.number}</a></p>`;
  return {
    fromName: `${displayName(found.org)} inbox`,
    subject: `[#${ticket.number}] ${ticket.subject}`,
    text,
    html,
    // RFC 3834 section 5: sent by a program, so no one's auto-responder answers it.
    headers: { "Auto-Submitted": "auto-generated" },
  };
}

/** Member notices as a kind of the one mail handler (src/outbox/mail-kind.ts). */
export function memberNoticeHandler(deps: Pick<Deps, "config" | "db">, transport: MailTransport | null): OutboxHandler {
  return mailHandler(deps, transport, { load: (row) => loadNotice(deps, row), render: (found) => renderNotice(deps, found) });
}
