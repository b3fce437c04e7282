// One ticket: its thread (customer messages, replies, internal notes marked as internal), the
// reply, note and triage forms (for inbox:manage), and its history in words.
import { helpArticlesRead } from "./ticket-help-read.ts";
import { languageName } from "../i18n/catalogue.ts";
import { ticketCsat } from "./ticket-csat.ts";
import { type OriginalEmail, originalsOf } from "../inbound/originals.ts";
import { lastTicketEventId } from "../inbox/ticket-events.ts";
import { ticketDetail } from "../inbox/routes.ts";
import { PRIORITIES, STATUSES, type Ticket, TICKET_LIMITS } from "../inbox/tickets.ts";
import { html } from "../html/html.ts";
import { type DashboardContext, errorSummary, field, type FieldErrors, type FormValues, select, shellPage, submit, textarea, when } from "./kit/index.ts";
import { customerLabel, orgMembers } from "./inbox-people.ts";
import { priorityBadge, statusBadge } from "./views/ticket-badges.ts";
import { renderTurn, threadTurns } from "./inbox-thread.ts";
import { ticketTranslation, translatedBody, translateOption, translationNotice } from "./inbox-translation.ts";
import { PresenceLine } from "./views/presence-line.ts";
import { listSavedReplies } from "../inbox/saved-replies.ts";
import { fillSavedReply } from "../inbox/saved-reply-template.ts";

export interface TicketForms {
  /** `inserted`: a saved reply was put into the field (nothing sent yet). */
  /** `status`: the page's status when the reply was refused (a translator's failure: 502, none configured: 409). */
  reply?: { values: FormValues; errors: FieldErrors; inserted?: boolean; status?: number };
  note?: { values: FormValues; errors: FieldErrors };
  /** `conflict`: the ticket changed after the form was rendered (its `version`); nothing was saved. */
  triage?: { values: FormValues; errors: FieldErrors; conflict?: boolean };
}

function triageValues(ticket: Ticket): FormValues {
  return {
    subject: ticket.subject,
    status: ticket.status,
    priority: ticket.priority,
    team: ticket.team ?? "",
    assignee: ticket.assigneeMemberId ?? "",
    tags: ticket.tags.join(", "),
  };
}

export async function ticketPage(ctx: DashboardContext, ticket: Ticket, forms: TicketForms = {}): Promise<Response> {
  const { deps, orgId } = ctx;
  // The cursor first: the thread rendered below holds everything up to it, the stream the rest.
  const cursor = await lastTicketEventId(deps, orgId, ticket.id);
  const [detail, people, snippets, helpRead] = await Promise.all([
    ticketDetail(deps, ticket),
    orgMembers(deps, orgId),
    listSavedReplies(deps, orgId),
    helpArticlesRead(deps, orgId, ticket.conversationId),
  ]);
  const originals = await originalsOf(
    deps,
    orgId,
    ticket.id,
    detail.messages.filter((m) => m.kind === "customer").map((m) => m.id),
  );
  const names = new Map(people.map((p) => [p.id, p.label]));
  const manage = ctx.can("inbox:manage");
  const author = (m: (typeof detail.messages)[number]): string =>
    m.kind === "customer"
      ? customerLabel(detail.customer)
      : m.author.kind === "member" && m.author.member_id
        ? (names.get(m.author.member_id) ?? "a former member")
        : m.author.kind === "agent"
          ? "AI agent"
          : m.author.kind === "token"
            ? "an AI client (MCP)"
            : m.author.kind;
  const turns = await threadTurns(deps, ticket, detail.messages, author);
  const translation = await ticketTranslation(ctx, ticket, turns);
  const customer = customerLabel(detail.customer);
  const reply = forms.reply ?? { values: {}, errors: {} };
  const note = forms.note ?? { values: {}, errors: {} };
  const triage = forms.triage ?? { values: triageValues(ticket), errors: {} };
  const closed = ticket.status === "closed";
  // A chat's ticket: the customer's presence and typing show, and the member's typing is told (README "Live conversation").
  const chat = ticket.conversationId !== null;
  const status = forms.triage?.conflict ? 409 : forms.reply?.inserted ? 200 : (forms.reply?.status ?? (forms.reply || forms.note || forms.triage ? 400 : 200));
  const me = ctx.principal.member;
  const fill = (text: string) => fillSavedReply(text, { customerName: detail.customer?.name ?? null, ticketNumber: ticket.number, agentName: me.name });
  const body = html`<p><a href="/dashboard/inbox">← Inbox</a></p>
<h1>#${ticket.number} ${ticket.subject}</h1>
<p>${statusBadge(ticket.status)}${priorityBadge(ticket.priority)}${ticket.team ? html`<span class="badge">team: ${ticket.team}</span>` : ""}<span class="badge">via ${ticket.source}</span>${ticket.language ? html`<span class="badge">language: <span lang="${ticket.language}">${languageName(ticket.language)}</span></span>` : ""}${ticket.tags.map((tag) => html`<span class="badge">${tag}</span>`)}</p>
<p class="muted">Customer: ${detail.customer ? html`<a href="/dashboard/customers/${detail.customer.id}">${customerLabel(detail.customer)}</a>${detail.customer.verified ? " (verified)" : " (not verified)"}` : "none"}${ticket.conversationId ? html` · <a href="/dashboard/conversations/${ticket.conversationId}">The chat conversation</a>` : ""} · Assignee: ${ticket.assigneeMemberId ? (names.get(ticket.assigneeMemberId) ?? "a former member") : "nobody"} · Opened ${when(ticket.createdAt)}</p>
${ticketCsat(ticket)}
${helpRead}
<h2>Thread</h2>
${translationNotice(translation)}
<div id="thread" aria-live="polite" data-live-events="/api/tickets/${ticket.id}/events" data-last-event-id="${String(cursor)}" data-org="${orgId}">${turns.length === 0 ? html`<p>No messages.</p>` : turns.map((turn) => renderTurn(turn, customer, { sender: emailSender(originals.get(turn.id)), original: emailOriginal(originals.get(turn.id)) }, translatedBody(translation, turn)))}</div>
${chat ? html`<p class="typing muted" data-typing-of="customer" aria-live="polite" hidden>The customer is typing…</p>${PresenceLine({ url: null, orgId })}` : ""}
${
  manage
    ? html`<div class="grid2">
<section aria-labelledby="reply-h"><h2 id="reply-h">Reply to the customer</h2>
${errorSummary(reply.errors)}
<form method="post" action="/dashboard/inbox/${ticket.number}/reply" novalidate${chat ? html` data-typing="/api/tickets/${ticket.id}/typing" data-org="${orgId}"` : ""}>
${snippets.length > 0 ? html`<div class="toolbar">${select({ name: "saved_reply", label: "Saved reply", value: "", options: [{ value: "", label: "Choose a saved reply…" }, ...snippets.map((r) => ({ value: r.id, label: r.name }))] })}<button type="submit" class="secondary" formaction="/dashboard/inbox/${ticket.number}/insert" formnovalidate data-insert-saved>Insert</button></div><template id="saved-texts">${snippets.map((r) => html`<textarea data-saved-id="${r.id}">${fill(r.body)}</textarea>`)}</template>` : ""}
${textarea({ name: "reply", label: "Reply", value: reply.values.reply, error: reply.errors.reply, rows: 5, maxLength: TICKET_LIMITS.body, hint: closed ? "This ticket is closed: reopen it (triage) before replying." : "The customer sees this." })}
${translateOption(translation, reply.values)}
<div class="actions">${submit("Send reply", { busy: "Sending…" })} ${submit("Send and resolve", { kind: "secondary", name: "then", value: "resolve", busy: "Sending…" })}</div>
</form></section>
<section aria-labelledby="note-h"><h2 id="note-h">Internal note</h2>
${errorSummary(note.errors)}
<form method="post" action="/dashboard/inbox/${ticket.number}/note" novalidate>
${textarea({ name: "note", label: "Note", value: note.values.note, error: note.errors.note, rows: 5, maxLength: TICKET_LIMITS.body, hint: "Only the team sees notes; they never reach the customer." })}
<div class="actions">${submit("Add note", { kind: "secondary", busy: "Adding…" })}</div>
</form></section>
</div>
<section aria-labelledby="triage-h"><h2 id="triage-h">Triage</h2>
${errorSummary(triage.errors)}
${forms.triage?.conflict ? html`<p class="error" role="alert">This ticket changed after you opened it (see the thread and history). Nothing was saved; your choices are kept below: check them and save again.</p>` : ""}
<form method="post" action="/dashboard/inbox/${ticket.number}/triage" novalidate class="panel">
<input type="hidden" name="version" value="${ticket.updatedAt.toISOString()}">
${field({ name: "subject", label: "Subject", value: triage.values.subject, error: triage.errors.subject, maxLength: TICKET_LIMITS.subject, hint: 'Reply emails say "Re:" and this.' })}
<div class="grid2">
${select({ name: "status", label: "Status", value: triage.values.status, error: triage.errors.status, options: STATUSES.map((s) => ({ value: s, label: s })) })}
${select({ name: "priority", label: "Priority", value: triage.values.priority, error: triage.errors.priority, options: PRIORITIES.map((p) => ({ value: p, label: p })) })}
${field({ name: "team", label: "Team", value: triage.values.team, error: triage.errors.team, maxLength: TICKET_LIMITS.team, hint: "Empty: no team." })}
${select({ name: "assignee", label: "Assignee", value: triage.values.assignee ?? "", error: triage.errors.assignee, options: [{ value: "", label: "Nobody" }, ...people.map((p) => ({ value: p.id, label: p.label }))] })}
</div>
${field({ name: "tags", label: "Tags", value: triage.values.tags, error: triage.errors.tags, hint: `Comma-separated; up to ${TICKET_LIMITS.tags}, each up to ${TICKET_LIMITS.tag} characters.` })}
<div class="actions">${submit("Save triage", { busy: "Saving…" })}</div>
</form></section>`
    : html`<p class="muted">You can read this ticket; replying, notes and triage need the inbox:manage role.</p>`
}
<h2>History</h2>
<ul>${detail.history.map((h) => html`<li><span class="muted">${when(h.created_at)}</span> ${historyLine(h.action, h.before, h.after, names)}</li>`)}</ul>`;
  return shellPage(ctx, { title: `#${ticket.number} ${ticket.subject}`, active: "inbox", body, status });
}

/** One history entry in words: events (created, a message added) by name, field changes as before → after. */
function historyLine(action: string, before: unknown, after: unknown, names: Map<string, string>): string {
  const events: Record<string, string> = { created: "Ticket opened", reply: "Reply sent", note: "Internal note added", customer_message: "Customer wrote" };
  if (events[action]) return events[action]!;
  if (action === "assignee") {
    const person = (id: unknown) => (typeof id === "string" ? (names.get(id) ?? "a former member") : "nobody");
    return `assignee: ${person(before)} → ${person(after)}`;
  }
  return `${action}: ${show(before)} → ${show(after)}`;
}

function show(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.join(", ") || "—";
  return JSON.stringify(value).slice(0, 200);
}

/** A message that arrived by email: the original as received (quoted history, signature) and the attachments it listed, for members to expand. */
/** Who sent a message that came by email; marked when it was not the customer's address. */
function emailSender(original: OriginalEmail | undefined) {
  if (!original) return "";
  const sender = original.fromCustomer
    ? html`<p class="muted">By email from ${original.from} · DMARC: ${original.dmarc}</p>`
    : html`<p><span class="badge warn">Not the customer's address</span> Sent by email from <strong>${original.from}</strong> · DMARC: ${original.dmarc}</p>`;
  const claimed = original.claimedTicketId
    ? html`<p><span class="badge warn">Unverified sender</span> Claims to answer <a href="/dashboard/inbox/${original.claimedTicketId}">another ticket</a>; kept apart because its sender was not authenticated (DMARC ${original.dmarc}).</p>`
    : "";
  return html`${sender}${claimed}`;
}

function emailOriginal(original: OriginalEmail | undefined) {
  if (!original) return "";
  const files =
    original.attachments.length > 0
      ? html`<p class="muted">Attachments (not stored): ${original.attachments.map((a, i) => html`${i > 0 ? ", " : ""}${a.name} (${Math.ceil(a.size / 1024)} KB)`)}</p>`
      : "";
  return html`<details><summary>The original email from ${original.from}</summary>${files}<p class="muted">Authentication-Results: ${original.authResults || "none"}</p><pre>${original.original}</pre></details>`;
}
