// A ticket's history in words: events (created, a message added) by name, field changes as
// before → after, people by name.
import { type Html, html } from "../../html/html.ts";
import { when } from "../kit/table.ts";

export interface HistoryEntry {
  action: string;
  before: unknown;
  after: unknown;
  created_at: string;
}

function show(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.join(", ") || "—";
  return JSON.stringify(value).slice(0, 200);
}

/** One history entry in words: events (created, a message added) by name, field changes as before → after. */
function historyLine(action: string, before: unknown, after: unknown, names: ReadonlyMap<string, string>): string {
  const events: Record<string, string> = { created: "Ticket opened", reply: "Reply sent", note: "Internal note added", customer_message: "Customer wrote" };
  if (events[action]) return events[action]!;
  if (action === "assignee") {
    const person = (id: unknown) => (typeof id === "string" ? (names.get(id) ?? "a former member") : "nobody");
    return `assignee: ${person(before)} → ${person(after)}`;
  }
  return `${action}: ${show(before)} → ${show(after)}`;
}

export function TicketHistory({ history, names }: { history: readonly HistoryEntry[]; names: ReadonlyMap<string, string> }): Html {
  const item = (h: HistoryEntry) => html`<li><span class="muted">${when(h.created_at)}</span> ${historyLine(h.action, h.before, h.after, names)}</li>`;
  return html`<ul>${history.map(item)}</ul>`;
}
