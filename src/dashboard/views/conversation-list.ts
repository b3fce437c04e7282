// The conversations list: the filter (routed or not, one customer) and a cursor page.
import type { listConversations } from "../../conversations/dashboard.ts";
import { type Html, html } from "../../html/html.ts";
import { select } from "../kit/fields.ts";
import { cursorPager, listTable, when } from "../kit/table.ts";
import { inboxTabs } from "./inbox-tabs.ts";

type Conversation = Awaited<ReturnType<typeof listConversations>>["conversations"][number];

export interface ConversationListProps {
  /** Each conversation with who its customer is: linked when known, else a word. */
  rows: readonly { conversation: Conversation; customerId: string | null; who: string }[];
  query: Record<string, string | undefined>;
  /** Whether a filter narrows the list. */
  filtered: boolean;
  nextCursor: string | null;
}

const ROUTED_OPTIONS = [
  { value: "", label: "All conversations" },
  { value: "yes", label: "Routed or escalated" },
  { value: "no", label: "Answered by the agent alone" },
];

function row({ conversation: c, customerId, who }: ConversationListProps["rows"][number]): Html {
  const customer = customerId ? html`<a href="/dashboard/customers/${customerId}">${who}</a>` : who;
  const routed = c.routed ? html`<span class="badge warn">routed</span>` : "—";
  const ticket = c.ticketId ? html`<a href="/dashboard/inbox/${c.ticketId}">ticket</a>` : "—";
  const started = html`<a href="/dashboard/conversations/${c.id}">${when(c.createdAt)}</a>`;
  return html`<tr><td>${started}</td><td>${customer}</td><td>${c.messageCount}</td><td>${c.mode}</td><td>${routed}</td><td>${ticket}</td></tr>`;
}

export function ConversationList({ rows, query, filtered, nextCursor }: ConversationListProps): Html {
  const clear = query.routed || query.customer ? html` <a href="/dashboard/conversations">Clear filters</a>` : "";
  return html`<h1>Conversations</h1>
${inboxTabs("conversations")}
<form method="get" action="/dashboard/conversations" class="toolbar" aria-label="Filter conversations">
${select({
  name: "routed",
  label: "Handed to the team",
  value: query.routed ?? "",
  options: ROUTED_OPTIONS,
})}
${query.customer ? html`<input type="hidden" name="customer" value="${query.customer}">` : ""}
<button type="submit" class="secondary">Filter</button>${clear}
</form>
${listTable({
  caption: "Conversations",
  columns: ["Started", "Customer", "Messages", "Mode", "Routed", "Ticket"],
  rows,
  row,
  empty: `No conversations${filtered ? " match these filters" : " yet"}.`,
})}
${cursorPager("/dashboard/conversations", query, nextCursor)}`;
}
