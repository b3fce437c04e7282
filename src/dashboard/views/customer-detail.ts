// One customer: who they are (a claimed id shown as a claim), their traits, their recent tickets
// and the events the widget tracked.
import type { customerDetail } from "../../inbox/customer-profiles.ts";
import { type Html, html } from "../../html/html.ts";
import { listTable, when } from "../kit/table.ts";
import { verifiedBadge } from "./customer-identity.ts";
import { priorityBadge, statusBadge } from "./ticket-badges.ts";

type Customer = Awaited<ReturnType<typeof customerDetail>>;

export interface CustomerDetailProps {
  customer: Customer;
  /** The company it belongs to, when that company is found. */
  company: { name: string | null; externalId: string | null } | null;
  /** How many recent tickets and events the page lists. */
  limits: { recentTickets: number; recentEvents: number };
}

/** The name a customer's page is titled with. */
export const customerTitle = (c: Pick<Customer, "name" | "email" | "external_id">) => c.name || c.email || c.external_id || "Anonymous visitor";

/** A trait's value as text. */
export const traitText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

function Details({ customer: c, company }: CustomerDetailProps): Html {
  const claim = c.claimed_external_id ? html` <span class="muted">(claims ${c.claimed_external_id}, unproven)</span>` : "";
  const companyLink = c.company_id ? html`<a href="/dashboard/companies/${c.company_id}">${company?.name || company?.externalId || "its company"}</a>` : "—";
  return html`<table>
<caption class="sr-only">Customer details</caption>
<tbody>
<tr><th scope="row">Email</th><td>${c.email ?? "—"}</td></tr>
<tr><th scope="row">External id</th><td>${c.external_id ?? "—"}${claim}</td></tr>
<tr><th scope="row">Company</th><td>${companyLink}</td></tr>
<tr><th scope="row">First seen</th><td>${when(c.created_at)}</td></tr>
${Object.entries(c.traits ?? {}).map(([k, v]) => html`<tr><th scope="row">${k}</th><td>${traitText(v)}</td></tr>`)}
</tbody>
</table>`;
}

type TicketRow = Customer["tickets"][number];
type EventRow = Customer["events"][number];

function ticketRow(tk: TicketRow): Html {
  const subject = html`<a href="/dashboard/inbox/${tk.number}">${tk.subject}</a>`;
  const badges = html`<td>${statusBadge(tk.status)}</td><td>${priorityBadge(tk.priority)}</td>`;
  return html`<tr><td>${tk.number}</td><td>${subject}</td>${badges}<td>${when(tk.updated_at)}</td></tr>`;
}

const eventRow = (e: EventRow): Html =>
  html`<tr><td>${when(e.occurred_at)}</td><td><code>${e.name}</code></td><td><code>${JSON.stringify(e.properties ?? {}).slice(0, 300)}</code></td></tr>`;

export function CustomerDetail(p: CustomerDetailProps): Html {
  const c = p.customer;
  const inbox = html`<a href="/dashboard/inbox?customer=${c.id}">All their tickets in the inbox</a>`;
  const chats = html`<a href="/dashboard/conversations?customer=${c.id}">Their conversations</a>`;
  return html`<p><a href="/dashboard/customers">← Customers</a></p>
<h1>${customerTitle(c)} ${verifiedBadge(c.verified)}</h1>
${Details(p)}
<h2>Tickets</h2>
<p class="muted">The ${p.limits.recentTickets} most recent · ${inbox} · ${chats}</p>
${listTable({
  caption: "Tickets of this customer",
  columns: ["#", "Subject", "Status", "Priority", "Updated"],
  rows: c.tickets,
  row: ticketRow,
  empty: "No tickets.",
})}
<h2>Events</h2>
<p class="muted">The ${p.limits.recentEvents} most recent, as tracked by the widget.</p>
${listTable({
  caption: "Events of this customer",
  columns: ["When", "Event", "Properties"],
  rows: c.events,
  row: eventRow,
  empty: "No events.",
})}`;
}
