// A ticket's forms for inbox:manage: the reply (saved replies to insert, the translation option,
// send or send and resolve), the internal note, and the triage (refused when the ticket changed
// after the form was drawn).
import type { Ticket } from "../../inbox/tickets.ts";
import { type Html, html } from "../../html/html.ts";
import { errorSummary, field, type FieldErrors, type FormValues, select, submit, textarea } from "../kit/fields.ts";

export interface FormState {
  values: FormValues;
  errors: FieldErrors;
}

export interface ReplyFormProps {
  ticket: Ticket;
  state: FormState;
  /** Saved replies with their variables filled in for this ticket. */
  snippets: readonly { id: string; name: string; text: string }[];
  /** A chat's ticket: the member's typing is told to the customer. */
  chat: boolean;
  orgId: string;
  /** The "send in the customer's language" option (views/ticket-translation.ts). */
  translate: Html | "";
  bodyMax: number;
}

function SavedReplies({ ticket, snippets }: ReplyFormProps): Html | "" {
  if (snippets.length === 0) return "";
  const options = [{ value: "", label: "Choose a saved reply…" }, ...snippets.map((r) => ({ value: r.id, label: r.name }))];
  const action = `/dashboard/inbox/${ticket.number}/insert`;
  const insert = html`<button type="submit" class="secondary" formaction="${action}" formnovalidate data-insert-saved>Insert</button>`;
  const texts = html`<template id="saved-texts">${snippets.map((r) => html`<textarea data-saved-id="${r.id}">${r.text}</textarea>`)}</template>`;
  return html`<div class="toolbar">${select({ name: "saved_reply", label: "Saved reply", value: "", options })}${insert}</div>${texts}`;
}

export function ReplyForm(p: ReplyFormProps): Html {
  const { ticket, state } = p;
  const closed = ticket.status === "closed";
  const typing = p.chat ? html` data-typing="/api/tickets/${ticket.id}/typing" data-org="${p.orgId}"` : "";
  const hint = closed ? "This ticket is closed: reopen it (triage) before replying." : "The customer sees this.";
  const resolve = submit("Send and resolve", { kind: "secondary", name: "then", value: "resolve", busy: "Sending…" });
  return html`<section aria-labelledby="reply-h"><h2 id="reply-h">Reply to the customer</h2>
${errorSummary(state.errors)}
<form method="post" action="/dashboard/inbox/${ticket.number}/reply" novalidate${typing}>
${SavedReplies(p)}
${textarea({ name: "reply", label: "Reply", value: state.values.reply, error: state.errors.reply, rows: 5, maxLength: p.bodyMax, hint })}
${p.translate}
<div class="actions">${submit("Send reply", { busy: "Sending…" })} ${resolve}</div>
</form></section>`;
}

export function NoteForm({ ticket, state, bodyMax }: { ticket: Ticket; state: FormState; bodyMax: number }): Html {
  const hint = "Only the team sees notes; they never reach the customer.";
  return html`<section aria-labelledby="note-h"><h2 id="note-h">Internal note</h2>
${errorSummary(state.errors)}
<form method="post" action="/dashboard/inbox/${ticket.number}/note" novalidate>
${textarea({ name: "note", label: "Note", value: state.values.note, error: state.errors.note, rows: 5, maxLength: bodyMax, hint })}
<div class="actions">${submit("Add note", { kind: "secondary", busy: "Adding…" })}</div>
</form></section>`;
}

export interface TriageFormProps {
  ticket: Ticket;
  state: FormState & { conflict?: boolean };
  people: readonly { id: string; label: string }[];
  statuses: readonly string[];
  priorities: readonly string[];
  limits: { subject: number; team: number; tags: number; tag: number };
}

const KEPT = html`Nothing was saved; your choices are kept below: check them and save again.`;
const CONFLICT = html`This ticket changed after you opened it (see the thread and history). ${KEPT}`;

export function TriageForm({ ticket, state, people, statuses, priorities, limits }: TriageFormProps): Html {
  const { values: v, errors: e } = state;
  const assignees = [{ value: "", label: "Nobody" }, ...people.map((p) => ({ value: p.id, label: p.label }))];
  const tagsHint = `Comma-separated; up to ${limits.tags}, each up to ${limits.tag} characters.`;
  return html`<section aria-labelledby="triage-h"><h2 id="triage-h">Triage</h2>
${errorSummary(e)}
${state.conflict ? html`<p class="error" role="alert">${CONFLICT}</p>` : ""}
<form method="post" action="/dashboard/inbox/${ticket.number}/triage" novalidate class="panel">
<input type="hidden" name="version" value="${ticket.updatedAt.toISOString()}">
${field({ name: "subject", label: "Subject", value: v.subject, error: e.subject, maxLength: limits.subject, hint: 'Reply emails say "Re:" and this.' })}
<div class="grid2">
${select({ name: "status", label: "Status", value: v.status, error: e.status, options: statuses.map((s) => ({ value: s, label: s })) })}
${select({ name: "priority", label: "Priority", value: v.priority, error: e.priority, options: priorities.map((p) => ({ value: p, label: p })) })}
${field({ name: "team", label: "Team", value: v.team, error: e.team, maxLength: limits.team, hint: "Empty: no team." })}
${select({ name: "assignee", label: "Assignee", value: v.assignee ?? "", error: e.assignee, options: assignees })}
</div>
${field({ name: "tags", label: "Tags", value: v.tags, error: e.tags, hint: tagsHint })}
<div class="actions">${submit("Save triage", { busy: "Saving…" })}</div>
</form></section>`;
}
