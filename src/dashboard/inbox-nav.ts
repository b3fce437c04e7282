// The inbox's own sections (tickets, conversations, customers, companies), linked under its
// heading on every inbox page, and the ticket queues with their counts (open, unassigned, mine).
import { type Html, html } from "../html/html.ts";

export function inboxTabs(current: "tickets" | "conversations" | "customers" | "companies"): Html {
  const tabs = [
    { key: "tickets", href: "/dashboard/inbox", label: "Tickets" },
    { key: "conversations", href: "/dashboard/conversations", label: "Conversations" },
    { key: "customers", href: "/dashboard/customers", label: "Customers" },
    { key: "companies", href: "/dashboard/companies", label: "Companies" },
  ];
  return html`<nav aria-label="Inbox sections"><p class="actions">${tabs.map((tab) => (tab.key === current ? html`<a class="button" href="${tab.href}" aria-current="page">${tab.label}</a>` : html`<a class="button secondary" href="${tab.href}">${tab.label}</a>`))}</p></nav>`;
}

/** The queues with how many tickets wait in each (kept current by the list's live events). */
export function queueLinks(counts: { open: number; unassigned: number; mine: number }): Html {
  const queues = [
    { key: "open", href: "/dashboard/inbox?status=active", label: "Open", count: counts.open },
    { key: "unassigned", href: "/dashboard/inbox?status=active&assignee=none", label: "Unassigned", count: counts.unassigned },
    { key: "mine", href: "/dashboard/inbox?status=active&assignee=me", label: "Mine", count: counts.mine },
  ];
  return html`<nav aria-label="Ticket queues" class="queues"><ul>${queues.map((q) => html`<li><a href="${q.href}" data-queue="${q.key}">${q.label} <span class="badge" data-count="${q.key}">${String(q.count)}</span></a></li>`)}</ul></nav>`;
}
