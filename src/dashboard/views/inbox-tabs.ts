// The inbox's own sections (tickets, conversations, customers, companies), linked under its
// heading on every inbox page. The ticket queues with their counts sit in the dashboard's nav
// (shell.ts).
import { type Html, html } from "../../html/html.ts";

export function inboxTabs(current: "tickets" | "conversations" | "customers" | "companies"): Html {
  const tabs = [
    { key: "tickets", href: "/dashboard/inbox", label: "Tickets" },
    { key: "conversations", href: "/dashboard/conversations", label: "Conversations" },
    { key: "customers", href: "/dashboard/customers", label: "Customers" },
    { key: "companies", href: "/dashboard/companies", label: "Companies" },
  ];
  const link = (tab: (typeof tabs)[number]) =>
    tab.key === current
      ? html`<a class="button" href="${tab.href}" aria-current="page">${tab.label}</a>`
      : html`<a class="button secondary" href="${tab.href}">${tab.label}</a>`;
  return html`<nav aria-label="Inbox sections"><p class="actions">${tabs.map(link)}</p></nav>`;
}
