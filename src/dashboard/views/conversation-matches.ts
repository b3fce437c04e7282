// The inbox search's second half: chat conversations whose transcript holds the text, listed under
// the matching tickets.
import type { ConversationMatch } from "../../conversations/search.ts";
import { type Html, html } from "../../html/html.ts";
import { listTable, when } from "../kit/table.ts";

function row(m: ConversationMatch): Html {
  const ticket = m.ticketId ? html`<a href="/dashboard/inbox/${m.ticketId}">ticket</a>` : "—";
  return html`<tr><td><a href="/dashboard/conversations/${m.id}">${when(m.createdAt)}</a></td><td class="prose">${m.excerpt}</td><td>${ticket}</td></tr>`;
}

export function ConversationMatches({ matches }: { matches: readonly ConversationMatch[] }): Html {
  return html`<h2 id="chats-h">Conversations</h2>
${listTable({
  caption: "Conversations mentioning the search",
  columns: ["Started", "Excerpt", "Ticket"],
  rows: matches,
  row,
  empty: "No conversation mentions this.",
})}`;
}
