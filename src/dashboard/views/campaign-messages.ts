// A campaign's messages in the outbox: filtered by status, in cursor pages, with why each is where
// it is (sent, retrying and when, held, failed, cancelled).
import { type Html, html } from "../../html/html.ts";
import { badge, cursorPager, listTable, select, when } from "../kit/index.ts";
import type { Campaign } from "../../campaigns/model.ts";
import type { listMessages } from "../../campaigns/queries.ts";

type Page = Awaited<ReturnType<typeof listMessages>>;
type Message = Page["messages"][number];

export interface CampaignMessagesProps {
  campaign: Pick<Campaign, "slug" | "name">;
  /** The statuses the filter offers, and the one shown. */
  statuses: readonly string[];
  status: string | undefined;
  page: Page;
  query: Record<string, string | undefined>;
}

const tone = (s: string) => badge(s, s === "sent" ? "ok" : s === "failed" ? "danger" : s === "held" || s === "parked" ? "warn" : "");

function messageRow(m: Message): Html {
  const why = m.reason ?? (m.next_attempt_at ? `next at ${when(m.next_attempt_at)}` : m.sent_at ? `sent ${when(m.sent_at)}` : "—");
  const to = html`<td><a href="/dashboard/customers/${m.customer_id}">${m.to}</a></td>`;
  return html`<tr><td>${when(m.created_at)}</td>${to}<td>${m.subject}</td><td>${tone(m.status)}</td><td>${String(m.attempts)}</td><td>${why}</td></tr>`;
}

export function CampaignMessages(p: CampaignMessagesProps): Html {
  const c = p.campaign;
  const options = [{ value: "", label: "All" }, ...p.statuses.map((s) => ({ value: s, label: s }))];
  return html`<p><a href="/dashboard/campaigns/${c.slug}">← ${c.name}</a></p>
<h1>Messages of ${c.name}</h1>
<form method="get" action="/dashboard/campaigns/${c.slug}/messages" class="toolbar" aria-label="Filter messages">
${select({ name: "status", label: "Status", value: p.status ?? "", options })}
<button type="submit" class="secondary">Filter</button>
</form>
${listTable({
  caption: "Outbox messages",
  columns: ["Created", "To", "Subject", "Status", "Attempts", "Why / next attempt"],
  rows: p.page.messages,
  row: messageRow,
  empty: `No messages${p.status ? " with this status" : " yet"}.`,
})}
${cursorPager(`/dashboard/campaigns/${c.slug}/messages`, p.query, p.page.next_cursor)}`;
}
