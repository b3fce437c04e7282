// The resolution email (README "CSAT"): when a ticket is resolved, its customer is asked for a
// rating by email, with one link per score (src/inbox/csat-page.ts). A ticket the customer follows
// in the widget waits REPLY_SEEN_GRACE_MS first, since the widget asks there; a rating given
// meanwhile, a ticket reopened, or CSAT turned off cancels it at send time. It shares the ticket's
// ordered mail lane with the replies, so it never reaches SMTP before a reply queued ahead of it
// was accepted (or given up). A `load` and a `render`
// of the one mail kind (src/outbox/mail-kind.ts); the link's token is minted at render time.
import { and, eq } from "drizzle-orm";
import type { Conn } from "../db/client.ts";
import { customerContacts } from "../customers/queries.ts";
import { tickets } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { escapeHtml } from "../html/html.ts";
import type { MailTransport } from "../mail/smtp.ts";
import { displayName, MALFORMED, mailHandler } from "../outbox/mail-kind.ts";
import { enqueue, type OutboxHandler, type OutboxRow } from "../outbox/outbox.ts";
import { CSAT_LIMITS, issueCsatToken } from "./csat.ts";
import { csatLink, scoreLabels } from "./csat-page.ts";
import { REPLY_SEEN_GRACE_MS, ticketMailLane } from "./reply-mail.ts";
import { orgNames } from "../tenancy/orgs.ts";
import { customerTexts, type Texts, textsOf } from "../texts/store.ts";
import { ownOrCatalogue } from "../i18n/catalogue.ts";
import { isRtl } from "../kit/language.ts";

export const RESOLUTION_MAIL_KIND = "ticket.resolution_email";

/** Queues the resolution email in the transaction that resolves the ticket (a ticket with no customer gets none). */
export async function queueResolutionEmail(
  tx: Conn,
  p: { orgId: string; ticket: { id: string; endUserId: string | null; source: string; conversationId: string | null }; now: Date },
): Promise<void> {
  if (p.ticket.endUserId === null) return;
  const inWidget = p.ticket.conversationId !== null && !["email", "api", "mcp"].includes(p.ticket.source);
  await enqueue(tx, {
    orgId: p.orgId,
    kind: RESOLUTION_MAIL_KIND,
    // Behind the ticket's replies queued before it ("Send and resolve"): the rating follows the reply.
    lane: ticketMailLane(p.ticket.id),
    payload: { ticket_id: p.ticket.id },
    runAt: new Date(p.now.getTime() + (inWidget ? REPLY_SEEN_GRACE_MS : 0)),
    now: p.now,
  });
}

async function load(deps: Pick<Deps, "db">, row: OutboxRow, csat: CsatSwitch) {
  const ticketId = (row.payload as { ticket_id?: unknown }).ticket_id;
  if (typeof ticketId !== "string") return MALFORMED;
  const [found] = await deps.db
    .select({ ticket: tickets, org: orgNames.name, email: customerContacts.email })
    .from(tickets)
    .innerJoin(orgNames, eq(orgNames.id, tickets.orgId))
    .leftJoin(customerContacts, and(eq(customerContacts.orgId, tickets.orgId), eq(customerContacts.id, tickets.endUserId)))
    .where(and(eq(tickets.orgId, row.orgId), eq(tickets.id, ticketId)));
  if (!found) return { kind: "cancelled" as const, reason: "ticket no longer exists" };
  const settings = await csat(row.orgId);
  if (!settings.csat_enabled) return { kind: "cancelled" as const, reason: "CSAT is off" };
  if (found.ticket.csatScore !== null) return { kind: "cancelled" as const, reason: "already rated" };
  if (found.ticket.status !== "resolved") return { kind: "cancelled" as const, reason: "no longer resolved" };
  return { to: found.email, data: { ...found, question: settings.csat_question } };
}

type Found = Extract<Awaited<ReturnType<typeof load>>, { data: unknown }>["data"];

export function renderResolution(p: { question: string; org: string; number: number; links: string[] }, texts: Texts = textsOf("en")) {
  const number = String(p.number);
  const labels = scoreLabels(texts);
  const footer = texts.t("mail.resolution_footer", { number, org: p.org, days: CSAT_LIMITS.linkDays });
  const resolved = texts.t("mail.resolution_resolved", { number });
  const lines = p.links.map((link, i) => `${i + 1} (${labels[i + 1]}): ${link}`);
  const text = `${resolved}\n\n${p.question}\n\n${lines.join("\n")}\n\n-- \n${footer}\n`;
  const html = `<!doctype html><html lang="${escapeHtml(texts.language)}"${isRtl(texts.language) ? ' dir="rtl"' : ""}><body><p>${escapeHtml(resolved)}</p>\n<p>${escapeHtml(p.question)}</p>\n<p>${p.links
    .map((link, i) => `<a href="${escapeHtml(link)}">${i + 1} — ${escapeHtml(labels[i + 1]!)}</a>`)
    .join("<br>\n")}</p>\n<p style="color:#666;font-size:12px">${escapeHtml(footer)}</p></body></html>`;
  return { text, html };
}

async function render(deps: Pick<Deps, "config" | "db" | "now" | "texts">, { ticket, org: orgName, question }: Found) {
  // The customer's language: the ticket's (set from the conversation), else the org's default (README "Languages").
  const texts = await customerTexts(deps, ticket.orgId, ticket.language);
  const org = displayName(orgName) || texts.t("mail.support");
  const token = await issueCsatToken(deps.db, { orgId: ticket.orgId, ticketId: ticket.id, now: deps.now() });
  const links = [1, 2, 3, 4, 5].map((score) => csatLink(deps.config.baseUrl, token, score));
  // The org's own question is said as written; the default one in the customer's language.
  const { text, html } = renderResolution(
    { question: ownOrCatalogue(question, "rating.question", texts.language, texts.overrides), org, number: ticket.number, links },
    texts,
  );
  return { fromName: org, subject: texts.t("mail.resolution_subject", { number: String(ticket.number) }), text, html };
}

/**
 * The org's CSAT switch and question, read at send time. Widget settings are the SDK's
 * (sdk/csat-settings.ts), which stands above the inbox: src/compose.ts passes it in.
 */
export type CsatSwitch = (orgId: string) => Promise<{ csat_enabled: boolean; csat_question: string }>;

export function resolutionMailHandler(deps: Pick<Deps, "config" | "db" | "now" | "texts">, transport: MailTransport | null, csat: CsatSwitch): OutboxHandler {
  return mailHandler(deps, transport, { ordered: true, load: (row) => load(deps, row, csat), render: (found) => render(deps, found) });
}
