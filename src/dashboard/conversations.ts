// Dashboard: chat conversations (role inbox:view). A filtered, cursor-paged list and one
// conversation's transcript with each answer's actions, sources and confidence, read through
// src/conversations/dashboard.ts as /api/conversations does. Session ids are never shown.
// One conversation also says whether its customer is on the site now (followed live by the page's
// script, /api/conversations/{id}/presence) and offers "Join conversation" (inbox:manage; README
// "Live conversation"): the member takes it over from the AI on the ticket page it opens.
import { Elysia, t } from "elysia";
import { CONVERSATION_LIMITS, listConversations, readConversation } from "../conversations/dashboard.ts";
import { joinConversation } from "../conversations/join.ts";
import { waitingTicket } from "../inbox/ticket-queries.ts";
import type { Deps } from "../deps.ts";
import { customersByIds, customerSummary } from "../inbox/customer-profiles.ts";
import { type Html, html } from "../html/html.ts";
import { cursorPager, type DashboardContext, formBody, IdParams, listTable, redirect, select, shellPage, submit, when, withMember } from "./kit/index.ts";
import { inboxTabs } from "./views/inbox-tabs.ts";

const PAGE = 25;

function who(c: { name: string | null; email: string | null; external_id: string | null } | undefined, anonymous: boolean): string {
  if (!c) return anonymous ? "anonymous visitor" : "—";
  return c.name || c.email || c.external_id || "anonymous visitor";
}

async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>): Promise<Response> {
  const routed = query.routed === "yes" ? true : query.routed === "no" ? false : undefined;
  const page = await listConversations(ctx.deps, ctx.orgId, {
    routed,
    customerId: query.customer || undefined,
    cursor: query.cursor || undefined,
    limit: PAGE,
  });
  const customers = await customersByIds(
    ctx.deps,
    ctx.orgId,
    page.conversations.map((c) => c.endUserId),
  );
  const body = html`<h1>Conversations</h1>
${inboxTabs("conversations")}
<form method="get" action="/dashboard/conversations" class="toolbar" aria-label="Filter conversations">
${select({
  name: "routed",
  label: "Handed to the team",
  value: query.routed ?? "",
  options: [
    { value: "", label: "All conversations" },
    { value: "yes", label: "Routed or escalated" },
    { value: "no", label: "Answered by the agent alone" },
  ],
})}
${query.customer ? html`<input type="hidden" name="customer" value="${query.customer}">` : ""}
<button type="submit" class="secondary">Filter</button>${query.routed || query.customer ? html` <a href="/dashboard/conversations">Clear filters</a>` : ""}
</form>
${listTable({
  caption: "Conversations",
  columns: ["Started", "Customer", "Messages", "Mode", "Routed", "Ticket"],
  rows: page.conversations,
  row: (c) => {
    const customer = c.endUserId ? customers.get(c.endUserId) : undefined;
    return html`<tr><td><a href="/dashboard/conversations/${c.id}">${when(c.createdAt)}</a></td><td>${customer ? html`<a href="/dashboard/customers/${customer.id}">${who(customerSummary(customer), c.anonymous)}</a>` : who(undefined, c.anonymous)}</td><td>${c.messageCount}</td><td>${c.mode}</td><td>${c.routed ? html`<span class="badge warn">routed</span>` : "—"}</td><td>${c.ticketId ? html`<a href="/dashboard/inbox/${c.ticketId}">ticket</a>` : "—"}</td></tr>`;
  },
  empty: `No conversations${routed !== undefined || query.customer ? " match these filters" : " yet"}.`,
})}
${cursorPager("/dashboard/conversations", query, page.nextCursor)}`;
  return shellPage(ctx, { title: "Conversations", active: "inbox", body });
}

function confidenceBadge(value: number | null): Html {
  if (value === null) return html``;
  const pct = Math.round(value * 100);
  return html`<span class="badge ${pct < 40 ? "danger" : pct < 70 ? "warn" : "ok"}">confidence ${pct}%</span>`;
}

function actionText(action: unknown): string {
  if (action && typeof action === "object") {
    const a = action as Record<string, unknown>;
    const name = typeof a.name === "string" ? a.name : typeof a.type === "string" ? a.type : typeof a.tool === "string" ? a.tool : "action";
    const status = typeof a.status === "string" ? ` (${a.status})` : typeof a.ok === "boolean" ? (a.ok ? " (ok)" : " (failed)") : "";
    return `${name}${status}`;
  }
  return String(action);
}

async function conversationPage(ctx: DashboardContext, id: string): Promise<Response> {
  const c = await readConversation(ctx.deps, ctx.orgId, id);
  const customers = await customersByIds(ctx.deps, ctx.orgId, [c.customer_id]);
  const customer = c.customer_id ? customers.get(c.customer_id) : undefined;
  const waiting = c.ticket_id ? await waitingTicket(ctx.deps, ctx.orgId, c.ticket_id) : null;
  const speaker = (m: (typeof c.messages)[number]) =>
    m.role === "customer" ? "Customer" : m.role === "agent" ? "AI agent" : `Reported (${m.reported_speaker ?? "earlier"})`;
  const body = html`<p><a href="/dashboard/conversations">← Conversations</a></p>
<h1>Conversation of ${when(c.created_at)}</h1>
<p class="muted">Customer: ${customer ? html`<a href="/dashboard/customers/${customer.id}">${who(customerSummary(customer), c.anonymous)}</a>` : who(undefined, c.anonymous)} · ${c.message_count} messages · mode ${c.mode}${c.routed ? html` · <span class="badge warn">routed</span>` : ""}${c.ticket_id ? html` · <a href="/dashboard/inbox/${c.ticket_id}">Its ticket</a>` : ""}</p>
${presenceLine(ctx, `/api/conversations/${c.id}/presence`)}
${takeOver(ctx, c.id, waiting)}
${c.message_count > c.messages.length ? html`<p class="muted">Showing the latest ${CONVERSATION_LIMITS.messages} messages.</p>` : ""}
<h2>Transcript</h2>
${c.messages.length === 0 ? html`<p>No messages.</p>` : ""}
${c.messages.map(
  (
    m,
  ) => html`<article class="panel" aria-label="${speaker(m)} at ${when(m.created_at)}"><p><span class="badge${m.role === "agent" ? " accent" : ""}">${speaker(m)}</span> <span class="muted">${when(m.created_at)}</span> ${confidenceBadge(m.confidence)}${m.status !== "complete" && m.role === "agent" ? html`<span class="badge danger">${m.status}</span>` : ""}</p>
<pre>${m.text}</pre>
${m.error ? html`<p class="error">${m.error}</p>` : ""}
${m.actions.length ? html`<p><strong>Actions:</strong> ${m.actions.map((a) => html`<span class="badge">${actionText(a)}</span>`)}</p>` : ""}
${m.routing ? html`<p><strong>Routing:</strong> ${m.routing.action}${m.routing.ticket_id ? html` · <a href="/dashboard/inbox/${m.routing.ticket_id}">ticket</a>` : ""}</p>` : ""}
${m.sources.length ? html`<p><strong>Sources:</strong></p><ul>${m.sources.map((s) => html`<li>${s.url && /^https?:\/\//.test(s.url) ? html`<a href="${s.url}" rel="noopener noreferrer">${s.title}</a>` : s.title}</li>`)}</ul>` : ""}
</article>`,
)}`;
  return shellPage(ctx, { title: "Conversation", active: "inbox", body });
}

/**
 * Whether the customer's widget is open now, filled in and kept current by the page's script: from
 * `url` (a stream of its own), or from the page's thread stream when `url` is null (the ticket page).
 */
export function presenceLine(ctx: DashboardContext, url: string | null): Html {
  return html`<p class="presence muted" aria-live="polite"${url ? html` data-presence-events="${url}" data-org="${ctx.orgId}"` : ""}><span class="badge">on the site?</span> Whether the customer's chat is open now shows here while the page's script runs.</p>`;
}

/** Who has the conversation: the ticket a person holds (linked), else the join button (inbox:manage). */
function takeOver(ctx: DashboardContext, id: string, waiting: Awaited<ReturnType<typeof waitingTicket>>) {
  if (waiting?.personHas)
    return html`<p class="panel">A person has this conversation: the AI stays quiet until <a href="/dashboard/inbox/${waiting.number}">ticket #${waiting.number}</a> is resolved or closed. Reply there; the customer sees it live.</p>`;
  if (!ctx.can("inbox:manage")) return html`<p class="muted">The AI agent answers this conversation. Joining it needs the inbox:manage role.</p>`;
  return html`<div class="panel"><p>The AI agent answers this conversation${waiting ? html` (<a href="/dashboard/inbox/${waiting.number}">ticket #${waiting.number}</a> waits for a person)` : ""}. Join it to answer the customer yourself: the AI stops answering, the customer sees that you joined, and you reply from the ticket it opens, live both ways. Resolve the ticket to hand the conversation back to the AI.</p>
<form method="post" action="/dashboard/conversations/${id}/join"><input type="hidden" name="go" value="1">${submit("Join conversation", { busy: "Joining…" })}</form></div>`;
}

async function join(ctx: DashboardContext, id: string): Promise<Response> {
  const joined = await joinConversation(ctx.deps, { orgId: ctx.orgId, memberId: ctx.principal.member.id, conversationId: id });
  return redirect(
    ctx.deps,
    `/dashboard/inbox/${joined.ticket_number}`,
    "You joined the conversation. The AI agent stays quiet until you resolve or close this ticket.",
  );
}

const ListQuery = t.Object({
  routed: t.Optional(t.String({ maxLength: 5 })),
  customer: t.Optional(t.String({ maxLength: 36 })),
  cursor: t.Optional(t.String({ maxLength: 128 })),
});

export function conversationPages(deps: Deps) {
  return new Elysia({ name: "dashboard-conversations" })
    .get("/dashboard/conversations", ({ request, query }) => withMember(deps, request, "inbox:view", (ctx) => listPage(ctx, query)), { query: ListQuery })
    .get("/dashboard/conversations/:id", ({ request, params }) => withMember(deps, request, "inbox:view", (ctx) => conversationPage(ctx, params.id)), {
      params: IdParams,
    })
    .post("/dashboard/conversations/:id/join", ({ request, params }) => withMember(deps, request, "inbox:manage", (ctx) => join(ctx, params.id)), {
      params: IdParams,
      body: formBody({ text: 10, items: 2 }),
    });
}
