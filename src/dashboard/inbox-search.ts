// The inbox search's second half: chat conversations whose transcript holds the text, listed under
// the matching tickets (src/conversations/search.ts).
import { searchConversations } from "../conversations/search.ts";
import { type Html, html } from "../html/html.ts";
import { type DashboardContext, listTable, when } from "./kit/index.ts";

export async function conversationMatches(ctx: DashboardContext, text: string): Promise<Html> {
  const matches = await searchConversations(ctx.deps, ctx.orgId, text);
  return html`<h2 id="chats-h">Conversations</h2>
${listTable({
  caption: "Conversations mentioning the search",
  columns: ["Started", "Excerpt", "Ticket"],
  rows: matches,
  row: (m) =>
    html`<tr><td><a href="/dashboard/conversations/${m.id}">${when(m.createdAt)}</a></td><td class="prose">${m.excerpt}</td><td>${m.ticketId ? html`<a href="/dashboard/inbox/${m.ticketId}">ticket</a>` : "—"}</td></tr>`,
  empty: "No conversation mentions this.",
})}`;
}
