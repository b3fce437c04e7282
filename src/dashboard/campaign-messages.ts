// A campaign's messages in the outbox: filtered by status, in cursor pages, with why each is where
// it is (sent, retrying and when, held, failed, cancelled).
import { type Campaign } from "../campaigns/model.ts";
import { listMessages } from "../campaigns/queries.ts";
import { html } from "../html/html.ts";
import { badge, cursorPager, type DashboardContext, listTable, select, shellPage, when } from "./kit/index.ts";

const MESSAGE_STATUSES = ["pending", "sending", "parked", "sent", "held", "failed", "cancelled"];

export async function messagesPage(ctx: DashboardContext, c: Campaign, query: Record<string, string | undefined>): Promise<Response> {
  const status = query.status && MESSAGE_STATUSES.includes(query.status) ? query.status : undefined;
  const page = await listMessages(ctx.deps, ctx.orgId, c.id, { status, cursor: query.cursor || undefined, limit: 25 });
  const tone = (s: string) => badge(s, s === "sent" ? "ok" : s === "failed" ? "danger" : s === "held" || s === "parked" ? "warn" : "");
  const body = html`<p><a href="/dashboard/campaigns/${c.slug}">← ${c.name}</a></p>
<h1>Messages of ${c.name}</h1>
<form method="get" action="/dashboard/campaigns/${c.slug}/messages" class="toolbar" aria-label="Filter messages">
${select({ name: "status", label: "Status", value: status ?? "", options: [{ value: "", label: "All" }, ...MESSAGE_STATUSES.map((s) => ({ value: s, label: s }))] })}
<button type="submit" class="secondary">Filter</button>
</form>
${listTable({
  caption: "Outbox messages",
  columns: ["Created", "To", "Subject", "Status", "Attempts", "Why / next attempt"],
  rows: page.messages,
  row: (m) =>
    html`<tr><td>${when(m.created_at)}</td><td><a href="/dashboard/customers/${m.customer_id}">${m.to}</a></td><td>${m.subject}</td><td>${tone(m.status)}</td><td>${String(m.attempts)}</td><td>${m.reason ?? (m.next_attempt_at ? `next at ${when(m.next_attempt_at)}` : m.sent_at ? `sent ${when(m.sent_at)}` : "—")}</td></tr>`,
  empty: `No messages${status ? " with this status" : " yet"}.`,
})}
${cursorPager(`/dashboard/campaigns/${c.slug}/messages`, query, page.next_cursor)}`;
  return shellPage(ctx, { title: `Messages · ${c.name}`, active: "campaigns", body });
}
