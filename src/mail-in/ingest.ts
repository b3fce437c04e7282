// An accepted inbound email becomes a customer message, once (README "Email channel"). The SMTP
// listener and the relay endpoint both end here, with the routes their recipients resolved to.
//
//   reply+<token>   a customer message on that ticket, by the inbox's own addTicketMessage (so a
//                   From that is not the customer's address is recorded as such, and shown; and so a
//                   pending or resolved ticket reopens as it would for a widget message, and the
//                   webhook and live events fire); a closed ticket gets a new ticket instead.
//   <alias>         a new ticket (source `email`) for the sender, an unverified customer by From —
//                   unless the message answers one of this org's tickets by In-Reply-To/References,
//                   comes from that ticket's customer (docs/interface.md H: the address first, then
//                   the ids) and passes DMARC (src/mail-in/authenticate.ts); one that fails opens a
//                   new ticket that names, for members, the ticket it claimed to answer.
//
// The Message-ID is claimed first, in the same transaction as the message: a redelivery, however
// often and on whichever instance, finds the claim and stores nothing (unique per org).
// Automatic mail (auto-replies, bounces, list mail; RFC 3834) is accepted and dropped.
import { and, eq, inArray } from "drizzle-orm";
import { endUserById } from "../customers/lookups.ts";
import { emailOnlyCustomer } from "../customers/queries.ts";
import { createVisitor } from "../customers/records.ts";
import { ticketInboundEmails } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { firstMessageId, ticketOfCustomerAddress, ticketsOfMessages } from "../inbox/mail-lookups.ts";
import { ticketMessageIdOf } from "../inbox/mail-thread.ts";
import { addTicketMessage, createTicketRow, TICKET_LIMITS } from "../inbox/tickets.ts";
import { authenticateEmail, type MailAuthentication } from "./authenticate.ts";
import { type ParsedEmail, parseEmail } from "./parse.ts";
import type { Route } from "./recipients.ts";

export type IngestOutcome = { status: "stored"; ticketId: string; messageId: string } | { status: "duplicate" } | { status: "ignored"; reason: string };

/** The SMTP client as the listener saw it (the relay knows none of it). */
export interface SmtpClient {
  ip?: string;
  helo?: string;
}

export async function ingestEmail(
  deps: Pick<Deps, "config" | "db" | "live" | "log" | "now" | "replies">,
  params: { raw: Buffer; routes: Route[]; envelopeFrom: string | null; client?: SmtpClient },
): Promise<IngestOutcome[]> {
  const mail = await parseEmail(params.raw, params.envelopeFrom, deps.replies);
  const reason = mail.automatic ?? (mail.from ? null : "no usable From address");
  if (reason) {
    deps.log.info("inbound email ignored", { reason });
    return [{ status: "ignored", reason }];
  }
  const auth = await authenticateEmail(deps, params.raw, { ...params.client, ...(params.envelopeFrom ? { sender: params.envelopeFrom } : {}) });
  const seen = new Set<string>();
  const outcomes: IngestOutcome[] = [];
  for (const route of params.routes) {
    const key = route.kind === "reply" ? `${route.orgId} ${route.ticketId}` : route.orgId;
    if (seen.has(key)) continue;
    seen.add(key);
    outcomes.push(await deliver(deps, route, mail, auth));
  }
  return outcomes;
}

function bodyOf(mail: ParsedEmail): string {
  const listed = mail.attachments.map((a) => `[Attachment not kept: ${a.name}, ${a.size} bytes]`).join("\n");
  const text = [mail.visible || "(no text)", listed].filter(Boolean).join("\n\n");
  return text.length <= TICKET_LIMITS.body ? text : `${text.slice(0, TICKET_LIMITS.body - 1)}…`;
}

async function deliver(deps: Pick<Deps, "config" | "db" | "live" | "now">, route: Route, mail: ParsedEmail, auth: MailAuthentication): Promise<IngestOutcome> {
  const now = deps.now();
  const from = mail.from!;
  return deps.db.transaction(async (tx) => {
    const txDeps = { ...deps, db: tx };
    const [claim] = await tx
      .insert(ticketInboundEmails)
      .values({
        orgId: route.orgId,
        messageId: mail.messageId,
        fromAddress: from.address,
        subject: mail.subject,
        original: mail.original,
        attachments: mail.attachments,
        authResults: auth.summary,
        dmarc: auth.dmarc,
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: ticketInboundEmails.id });
    if (!claim) return { status: "duplicate" } as const;
    const answered = route.kind === "alias" ? await answeredTicket(txDeps, route.orgId, mail) : null;
    // A From header and a Message-ID prove nothing: an alias message joins the ticket it answers
    // only when DMARC passes; otherwise it opens a new ticket, linked for members to the one it claimed.
    if (answered && auth.dmarc !== "pass")
      await tx.update(ticketInboundEmails).set({ claimedTicketId: answered.ticketId }).where(eq(ticketInboundEmails.id, claim.id));
    const target = route.kind === "reply" ? { ticketId: route.ticketId, endUserId: route.endUserId } : auth.dmarc === "pass" ? answered : null;
    // Anyone who has a reply address can write to it: members see who did, and when it was not the
    // customer — on the original, and on the message itself (the ticket JSON, the webhook).
    const fromCustomer = route.kind !== "reply" || (await isCustomerAddress(txDeps, route.orgId, route.endUserId, from.address));
    if (!fromCustomer) await tx.update(ticketInboundEmails).set({ fromCustomer: false }).where(eq(ticketInboundEmails.id, claim.id));
    const email = { from: from.address, fromCustomer };
    const body = bodyOf(mail);
    let stored: { ticketId: string; messageId: string } | null = null;
    if (target) {
      try {
        const message = await addTicketMessage(txDeps, {
          orgId: route.orgId,
          actor: { kind: "customer", endUserId: target.endUserId },
          ticketId: target.ticketId,
          kind: "customer",
          body,
          verified: false,
          email,
        });
        stored = { ticketId: target.ticketId, messageId: message.id };
      } catch (error) {
        // A closed ticket takes no customer message: the answer opens a new ticket, as in the widget.
        if (!(error instanceof AppError && error.code === "ticket_closed")) throw error;
      }
    }
    if (!stored) {
      const customerId = target?.endUserId ?? (await emailCustomer(txDeps, route.orgId, from));
      const ticket = await createTicketRow(txDeps, {
        orgId: route.orgId,
        actor: { kind: "customer", endUserId: customerId },
        input: { subject: mail.subject || "(no subject)", message: body, customerId, source: "email", email },
      });
      stored = { ticketId: ticket.id, messageId: (await firstMessageId(tx, route.orgId, ticket.id))! };
    }
    await tx.update(ticketInboundEmails).set({ ticketId: stored.ticketId, ticketMessageId: stored.messageId }).where(eq(ticketInboundEmails.id, claim.id));
    return { status: "stored", ...stored } as const;
  });
}

/**
 * The ticket a message sent to the alias answers: one of our Message-IDs (or one we received) in
 * In-Reply-To/References, on a ticket of this org whose customer has the From address. The ids
 * alone are not enough: they were seen by everyone on the thread.
 */
async function answeredTicket(
  deps: Pick<Deps, "config" | "db">,
  orgId: string,
  mail: ParsedEmail,
): Promise<{ ticketId: string; endUserId: string | null } | null> {
  if (mail.answers.length === 0) return null;
  const ours = mail.answers.map((id) => ticketMessageIdOf(id, deps.config.mailFrom)).filter((id): id is string => id !== null);
  const byOurs = await ticketsOfMessages(deps.db, orgId, ours);
  const byTheirs = await deps.db
    .select({ ticketId: ticketInboundEmails.ticketId })
    .from(ticketInboundEmails)
    .where(and(eq(ticketInboundEmails.orgId, orgId), inArray(ticketInboundEmails.messageId, mail.answers)));
  const ids = [...new Set([...byOurs, ...byTheirs.map((r) => r.ticketId)].filter((id): id is string => id !== null))];
  if (ids.length === 0) return null;
  return ticketOfCustomerAddress(deps.db, orgId, ids, mail.from!.address);
}

/** Whether `address` is the email address of the customer `endUserId` (case-insensitively). */
async function isCustomerAddress(deps: Pick<Deps, "db">, orgId: string, endUserId: string | null, address: string): Promise<boolean> {
  if (!endUserId) return false;
  const customer = await endUserById(deps.db, orgId, endUserId);
  return customer?.email?.toLowerCase() === address;
}

/**
 * The customer an email to the alias belongs to: the unverified email-only record this address
 * already has in the org, else a new one. A From header proves nothing, so it never reaches a
 * customer the org identified (as a typed email in the widget never does).
 */
async function emailCustomer(deps: Pick<Deps, "db" | "now">, orgId: string, from: { address: string; name: string }): Promise<string> {
  const known = await emailOnlyCustomer(deps.db, orgId, from.address);
  return known?.id ?? (await createVisitor(deps, orgId, { email: from.address, name: from.name })).id;
}
