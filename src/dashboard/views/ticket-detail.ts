// One ticket: its badges and customer, the rating and why the chat handed it over, the help
// articles read before asking, its thread (kept current by the page's script), the customer's
// presence and typing on a chat's ticket, the reply, note and triage forms (inbox:manage), and its
// history in words.
import type { OriginalEmail } from "../../mail-in/originals.ts";
import type { Ticket } from "../../inbox/tickets.ts";
import type { TicketTranslation } from "../inbox-translation.ts";
import { type Html, html } from "../../html/html.ts";
import { languageName } from "../../i18n/catalogue.ts";
import { when } from "../kit/table.ts";
import { PresenceLine } from "./presence-line.ts";
import { priorityBadge, statusBadge } from "./ticket-badges.ts";
import { ticketCsat } from "./ticket-csat.ts";
import { emailOriginal, emailSender } from "./ticket-email.ts";
import { type HelpArticleRead, HelpArticlesRead } from "./ticket-help-read.ts";
import { type HistoryEntry, TicketHistory } from "./ticket-history.ts";
import { type FormState, NoteForm, ReplyForm, TriageForm } from "./ticket-forms.ts";
import { translatedBody, translateOption, translationNotice } from "./ticket-translation.ts";
import { type Turn, TicketTurn } from "./ticket-turn.ts";

export interface TicketDetailProps {
  ticket: Ticket;
  customer: { id: string; label: string; verified: boolean } | null;
  /** The org's members, and their names by id (the assignee, the history). */
  people: readonly { id: string; label: string }[];
  names: ReadonlyMap<string, string>;
  turns: readonly Turn[];
  translation: TicketTranslation;
  /** The originals of the messages that came by email, by message id. */
  originals: ReadonlyMap<string, OriginalEmail>;
  helpRead: readonly HelpArticleRead[];
  history: readonly HistoryEntry[];
  /** The last ticket event the thread holds: the live stream follows from there. */
  cursor: number | string;
  orgId: string;
  /** inbox:manage: the forms; without it, a line saying what it takes. */
  manage: boolean;
  snippets: readonly { id: string; name: string; text: string }[];
  reply: FormState;
  note: FormState;
  triage: FormState & { conflict?: boolean };
  statuses: readonly string[];
  priorities: readonly string[];
  limits: { body: number; subject: number; team: number; tags: number; tag: number };
}

function Badges({ ticket }: TicketDetailProps): Html {
  const team = ticket.team ? html`<span class="badge">team: ${ticket.team}</span>` : "";
  const language = ticket.language ? html`<span class="badge">language: <span lang="${ticket.language}">${languageName(ticket.language)}</span></span>` : "";
  const tags = ticket.tags.map((tag) => html`<span class="badge">${tag}</span>`);
  return html`<p>${statusBadge(ticket.status)}${priorityBadge(ticket.priority)}${team}<span class="badge">via ${ticket.source}</span>${language}${tags}</p>`;
}

function Who({ ticket, customer, names }: TicketDetailProps): Html {
  const person = customer
    ? html`<a href="/dashboard/customers/${customer.id}">${customer.label}</a>${customer.verified ? " (verified)" : " (not verified)"}`
    : "none";
  const chat = ticket.conversationId ? html` · <a href="/dashboard/conversations/${ticket.conversationId}">The chat conversation</a>` : "";
  const assignee = ticket.assigneeMemberId ? (names.get(ticket.assigneeMemberId) ?? "a former member") : "nobody";
  return html`<p class="muted">Customer: ${person}${chat} · Assignee: ${assignee} · Opened ${when(ticket.createdAt)}</p>`;
}

function Thread(p: TicketDetailProps): Html {
  const { ticket, turns, translation, originals } = p;
  const customer = p.customer?.label ?? "—";
  const turn = (t: Turn) =>
    TicketTurn({
      turn: t,
      customer,
      email: { sender: emailSender(originals.get(t.id)), original: emailOriginal(originals.get(t.id)) },
      body: translatedBody(translation, t),
    });
  const live = html`data-live-events="/api/tickets/${ticket.id}/events" data-last-event-id="${String(p.cursor)}" data-org="${p.orgId}"`;
  return html`<div id="thread" aria-live="polite" ${live}>${turns.length === 0 ? html`<p>No messages.</p>` : turns.map(turn)}</div>`;
}

function Forms(p: TicketDetailProps): Html {
  const chat = p.ticket.conversationId !== null;
  const reply = ReplyForm({
    ticket: p.ticket,
    state: p.reply,
    snippets: p.snippets,
    chat,
    orgId: p.orgId,
    translate: translateOption(p.translation, p.reply.values),
    bodyMax: p.limits.body,
  });
  const note = NoteForm({ ticket: p.ticket, state: p.note, bodyMax: p.limits.body });
  const triage = TriageForm({ ticket: p.ticket, state: p.triage, people: p.people, statuses: p.statuses, priorities: p.priorities, limits: p.limits });
  return html`<div class="grid2">
${reply}
${note}
</div>
${triage}`;
}

const TYPING = html`<p class="typing muted" data-typing-of="customer" aria-live="polite" hidden>The customer is typing…</p>`;

export function TicketDetail(p: TicketDetailProps): Html {
  const { ticket } = p;
  // A chat's ticket: the customer's presence and typing show (README "Live conversation").
  const chat = ticket.conversationId !== null;
  const readOnly = html`<p class="muted">You can read this ticket; replying, notes and triage need the inbox:manage role.</p>`;
  return html`<p><a href="/dashboard/inbox">← Inbox</a></p>
<h1>#${ticket.number} ${ticket.subject}</h1>
${Badges(p)}
${Who(p)}
${ticketCsat(ticket)}
${HelpArticlesRead({ read: p.helpRead })}
<h2>Thread</h2>
${translationNotice(p.translation)}
${Thread(p)}
${chat ? html`${TYPING}${PresenceLine({ url: null, orgId: p.orgId })}` : ""}
${p.manage ? Forms(p) : readOnly}
<h2>History</h2>
${TicketHistory({ history: p.history, names: p.names })}`;
}
