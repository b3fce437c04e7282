// Dashboard: the inbox (issue #14). The ticket list with filters and cursor pages, one ticket with
// its thread (customer messages, replies, internal notes marked as internal), and the reply, note
// and triage forms. Every read and write goes through src/inbox/tickets.ts, as /api/tickets does,
// so the history, activity log and webhooks are the same whichever way a change comes in.
import { and, asc, eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import { members, memberships } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { customersByIds, customerSummary } from "../inbox/customer-profiles.ts";
import { ticketDetail } from "../inbox/routes.ts";
import {
  addTicketMessage,
  findTicket,
  type InboxActor,
  listTickets,
  PRIORITIES,
  STATUSES,
  type Ticket,
  TICKET_LIMITS,
  type TicketPatch,
  type TicketPriority,
  type TicketStatus,
  updateTicket,
} from "../inbox/tickets.ts";
import { lastTicketEventId } from "../inbox/ticket-events.ts";
import { isUuid } from "../kit/ids.ts";
import { Html, html } from "../html/html.ts";
import { type DashboardContext, errorSummary, field, type FieldErrors, formValues, type FormValues, redirect, select, shellPage, submit, textarea, when, withMember, formBody } from "./shell.ts";

/** Tickets a list page shows (the service's cursor pages). */
export const INBOX_PAGE = 25;

/** The inbox's own sections, linked under its heading on every inbox page. */
export function inboxTabs(current: "tickets" | "conversations" | "customers" | "companies"): Html {
  const tabs = [
    { key: "tickets", href: "/dashboard/inbox", label: "Tickets" },
    { key: "conversations", href: "/dashboard/conversations", label: "Conversations" },
    { key: "customers", href: "/dashboard/customers", label: "Customers" },
    { key: "companies", href: "/dashboard/companies", label: "Companies" },
  ];
  return html`<nav aria-label="Inbox sections"><p class="actions">${tabs.map((tab) => (tab.key === current ? html`<a class="button" href="${tab.href}" aria-current="page">${tab.label}</a>` : html`<a class="button secondary" href="${tab.href}">${tab.label}</a>`))}</p></nav>`;
}

/**
 * Cursor pagination links: the services page by an opaque cursor (stable while rows change), so the
 * dashboard offers "first page" and "next page" rather than numbered pages.
 */
export function cursorPager(path: string, query: Record<string, string | undefined>, nextCursor: string | null): Html {
  const link = (cursor?: string) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v && k !== "cursor") params.set(k, v);
    if (cursor) params.set("cursor", cursor);
    const qs = params.toString();
    return qs ? `${path}?${qs}` : path;
  };
  if (!query.cursor && !nextCursor) return html``;
  return html`<nav class="pager" aria-label="Pages">${query.cursor ? html`<a href="${link()}">← First page</a>` : ""}${nextCursor ? html`<a href="${link(nextCursor)}" rel="next">Next page →</a>` : ""}</nav>`;
}

export function statusBadge(status: string): Html {
  const cls = status === "open" ? "accent" : status === "pending" ? "warn" : status === "resolved" ? "ok" : "";
  return html`<span class="badge ${cls}">${status}</span>`;
}

export function priorityBadge(priority: string): Html {
  const cls = priority === "urgent" ? "danger" : priority === "high" ? "warn" : "";
  return html`<span class="badge ${cls}">${priority}</span>`;
}

function actorOf(ctx: DashboardContext): InboxActor {
  return { kind: "member", memberId: ctx.principal.member.id };
}

/** The org's members, for the assignee filter and the triage form. */
async function orgMembers(deps: Deps, orgId: string): Promise<{ id: string; label: string }[]> {
  const rows = await deps.db
    .select({ id: members.id, email: members.email, name: members.name })
    .from(memberships)
    .innerJoin(members, eq(members.id, memberships.memberId))
    .where(and(eq(memberships.orgId, orgId)))
    .orderBy(asc(members.email))
    .limit(500);
  return rows.map((m) => ({ id: m.id, label: m.name ? `${m.name} <${m.email}>` : m.email }));
}

function customerLabel(c: { name: string | null; email: string | null; external_id: string | null; claimed_external_id?: string; verified: boolean } | null | undefined): string {
  if (!c) return "—";
  return c.name || c.email || c.external_id || (c.claimed_external_id ? `claims ${c.claimed_external_id}` : "anonymous visitor");
}

// ---- the list -----------------------------------------------------------------------------------

const STATUS_OPTIONS = [{ value: "", label: "Any status" }, { value: "active", label: "Open or pending" }, ...STATUSES.map((s) => ({ value: s, label: s }))];

async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>): Promise<Response> {
  const { deps, orgId } = ctx;
  const memberId = ctx.principal.member.id;
  const status = query.status === "active" ? (["open", "pending"] as TicketStatus[]) : query.status && (STATUSES as readonly string[]).includes(query.status) ? [query.status as TicketStatus] : undefined;
  const assignee = !query.assignee ? undefined : query.assignee === "none" ? null : query.assignee === "me" ? memberId : query.assignee;
  const team = query.team?.trim() || undefined;
  const text = query.q?.trim().slice(0, TICKET_LIMITS.text) || undefined;
  const [page, people] = await Promise.all([
    listTickets(deps, orgId, { status, assigneeId: assignee, team, text, customerId: query.customer || undefined, cursor: query.cursor || undefined, limit: INBOX_PAGE }),
    orgMembers(deps, orgId),
  ]);
  // Only a uuid may reach the uuid column (anything else matches no ticket and names nobody).
  const customers = await customersByIds(deps, orgId, [...page.tickets.map((row) => row.endUserId), query.customer && isUuid(query.customer) ? query.customer : null]);
  const only = query.customer ? customers.get(query.customer) : undefined;
  const names = new Map(people.map((p) => [p.id, p.label]));
  const filtered = Boolean(query.status || query.assignee || team || text || query.customer);
  const body = html`<h1>Inbox</h1>
${inboxTabs("tickets")}
${only ? html`<p>Tickets of <a href="/dashboard/customers/${only.id}">${customerLabel(customerSummary(only))}</a> · <a href="/dashboard/inbox">All tickets</a></p>` : ""}
<form method="get" action="/dashboard/inbox" class="toolbar" role="search" aria-label="Filter tickets">
${select({ name: "status", label: "Status", value: query.status ?? "", options: STATUS_OPTIONS })}
${select({ name: "assignee", label: "Assignee", value: query.assignee ?? "", options: [{ value: "", label: "Anyone" }, { value: "me", label: "Me" }, { value: "none", label: "Unassigned" }, ...people.map((p) => ({ value: p.id, label: p.label }))] })}
${field({ name: "team", label: "Team", value: query.team ?? "", maxLength: TICKET_LIMITS.team })}
${field({ name: "q", label: "Search", type: "search", value: query.q ?? "", maxLength: TICKET_LIMITS.text, placeholder: "Subject, text or #42" })}
${query.customer ? html`<input type="hidden" name="customer" value="${query.customer}">` : ""}
<button type="submit" class="secondary">Filter</button>${filtered ? html` <a href="/dashboard/inbox">Clear filters</a>` : ""}
</form>
<table>
<caption class="sr-only">Tickets</caption>
<thead><tr><th scope="col">#</th><th scope="col">Subject</th><th scope="col">Customer</th><th scope="col">Status</th><th scope="col">Priority</th><th scope="col">Team</th><th scope="col">Assignee</th><th scope="col">Updated</th></tr></thead>
<tbody>${page.tickets.map((row) => {
    const customer = row.endUserId ? customers.get(row.endUserId) : undefined;
    return html`<tr><td>${row.number}</td><td><a href="/dashboard/inbox/${row.number}">${row.subject}</a>${row.tags.map((tag) => html` <span class="badge">${tag}</span>`)}</td><td>${customer ? html`<a href="/dashboard/customers/${customer.id}">${customerLabel(customerSummary(customer))}</a>` : "—"}</td><td>${statusBadge(row.status)}</td><td>${priorityBadge(row.priority)}</td><td>${row.team ?? "—"}</td><td>${row.assigneeMemberId ? (names.get(row.assigneeMemberId) ?? "a former member") : "—"}</td><td>${when(row.updatedAt)}</td></tr>`;
  })}${page.tickets.length === 0 ? html`<tr><td colspan="8">${filtered ? "No ticket matches these filters." : "No tickets yet."}</td></tr>` : ""}</tbody>
</table>
${cursorPager("/dashboard/inbox", query, page.nextCursor)}`;
  return shellPage(ctx, { title: "Inbox", active: "inbox", body });
}

// ---- one ticket -----------------------------------------------------------------------------------

interface TicketForms {
  reply?: { values: FormValues; errors: FieldErrors };
  note?: { values: FormValues; errors: FieldErrors };
  /** `conflict`: the ticket changed after the form was rendered (its `version`); nothing was saved. */
  triage?: { values: FormValues; errors: FieldErrors; conflict?: boolean };
}

function triageValues(ticket: Ticket): FormValues {
  return { status: ticket.status, priority: ticket.priority, team: ticket.team ?? "", assignee: ticket.assigneeMemberId ?? "", tags: ticket.tags.join(", ") };
}

async function ticketPage(ctx: DashboardContext, ticket: Ticket, forms: TicketForms = {}): Promise<Response> {
  const { deps, orgId } = ctx;
  // The cursor first: the thread rendered below holds everything up to it, the stream the rest.
  const cursor = await lastTicketEventId(deps, orgId, ticket.id);
  const [detail, people] = await Promise.all([ticketDetail(deps, ticket), orgMembers(deps, orgId)]);
  const names = new Map(people.map((p) => [p.id, p.label]));
  const manage = ctx.can("inbox:manage");
  const author = (m: (typeof detail.messages)[number]): string =>
    m.kind === "customer"
      ? customerLabel(detail.customer)
      : m.author.kind === "member" && m.author.member_id
        ? (names.get(m.author.member_id) ?? "a former member")
        : m.author.kind === "agent"
          ? "AI agent"
          : m.author.kind === "token"
            ? "an AI client (MCP)"
            : m.author.kind;
  const message = (m: (typeof detail.messages)[number]) => {
    const label =
      m.kind === "note"
        ? html`<span class="badge warn">Internal note</span> <span class="muted">not visible to the customer</span>`
        : m.kind === "reply"
          ? html`<span class="badge accent">Reply</span>`
          : html`<span class="badge">Customer</span>${m.verified ? html` <span class="badge ok">verified</span>` : ""}`;
    return html`<article class="panel msg-${m.kind}" aria-label="${m.kind === "note" ? "Internal note" : m.kind === "reply" ? "Reply" : "Customer message"} by ${author(m)}"><p>${label} <strong>${author(m)}</strong> <span class="muted">${when(m.created_at)}</span></p><pre>${m.body}</pre></article>`;
  };
  const reply = forms.reply ?? { values: {}, errors: {} };
  const note = forms.note ?? { values: {}, errors: {} };
  const triage = forms.triage ?? { values: triageValues(ticket), errors: {} };
  const closed = ticket.status === "closed";
  const status = forms.triage?.conflict ? 409 : forms.reply || forms.note || forms.triage ? 400 : 200;
  const body = html`<p><a href="/dashboard/inbox">← Inbox</a></p>
<h1>#${ticket.number} ${ticket.subject}</h1>
<p>${statusBadge(ticket.status)}${priorityBadge(ticket.priority)}${ticket.team ? html`<span class="badge">team: ${ticket.team}</span>` : ""}<span class="badge">via ${ticket.source}</span>${ticket.tags.map((tag) => html`<span class="badge">${tag}</span>`)}</p>
<p class="muted">Customer: ${detail.customer ? html`<a href="/dashboard/customers/${detail.customer.id}">${customerLabel(detail.customer)}</a>${detail.customer.verified ? " (verified)" : " (not verified)"}` : "none"}${ticket.conversationId ? html` · <a href="/dashboard/conversations/${ticket.conversationId}">The chat conversation</a>` : ""} · Assignee: ${ticket.assigneeMemberId ? (names.get(ticket.assigneeMemberId) ?? "a former member") : "nobody"} · Opened ${when(ticket.createdAt)}</p>
<h2>Thread</h2>
<div id="thread" aria-live="polite" data-live-events="/api/tickets/${ticket.id}/events" data-last-event-id="${String(cursor)}" data-org="${orgId}">${detail.messages.length === 0 ? html`<p>No messages.</p>` : detail.messages.map(message)}</div>
${manage
  ? html`<div class="grid2">
<section aria-labelledby="reply-h"><h2 id="reply-h">Reply to the customer</h2>
${errorSummary(reply.errors)}
<form method="post" action="/dashboard/inbox/${ticket.number}/reply" novalidate>
${textarea({ name: "reply", label: "Reply", value: reply.values.reply, error: reply.errors.reply, rows: 5, maxLength: TICKET_LIMITS.body, hint: closed ? "This ticket is closed: reopen it (triage) before replying." : "The customer sees this." })}
<div class="actions">${submit("Send reply", { busy: "Sending…" })}</div>
</form></section>
<section aria-labelledby="note-h"><h2 id="note-h">Internal note</h2>
${errorSummary(note.errors)}
<form method="post" action="/dashboard/inbox/${ticket.number}/note" novalidate>
${textarea({ name: "note", label: "Note", value: note.values.note, error: note.errors.note, rows: 5, maxLength: TICKET_LIMITS.body, hint: "Only the team sees notes; they never reach the customer." })}
<div class="actions">${submit("Add note", { kind: "secondary", busy: "Adding…" })}</div>
</form></section>
</div>
<section aria-labelledby="triage-h"><h2 id="triage-h">Triage</h2>
${errorSummary(triage.errors)}
${forms.triage?.conflict ? html`<p class="error" role="alert">This ticket changed after you opened it (see the thread and history). Nothing was saved; your choices are kept below: check them and save again.</p>` : ""}
<form method="post" action="/dashboard/inbox/${ticket.number}/triage" novalidate class="panel">
<input type="hidden" name="version" value="${ticket.updatedAt.toISOString()}">
<div class="grid2">
${select({ name: "status", label: "Status", value: triage.values.status, error: triage.errors.status, options: STATUSES.map((s) => ({ value: s, label: s })) })}
${select({ name: "priority", label: "Priority", value: triage.values.priority, error: triage.errors.priority, options: PRIORITIES.map((p) => ({ value: p, label: p })) })}
${field({ name: "team", label: "Team", value: triage.values.team, error: triage.errors.team, maxLength: TICKET_LIMITS.team, hint: "Empty: no team." })}
${select({ name: "assignee", label: "Assignee", value: triage.values.assignee ?? "", error: triage.errors.assignee, options: [{ value: "", label: "Nobody" }, ...people.map((p) => ({ value: p.id, label: p.label }))] })}
</div>
${field({ name: "tags", label: "Tags", value: triage.values.tags, error: triage.errors.tags, hint: `Comma-separated; up to ${TICKET_LIMITS.tags}, each up to ${TICKET_LIMITS.tag} characters.` })}
<div class="actions">${submit("Save triage", { busy: "Saving…" })}</div>
</form></section>`
  : html`<p class="muted">You can read this ticket; replying, notes and triage need the inbox:manage role.</p>`}
<h2>History</h2>
<ul>${detail.history.map((h) => html`<li><span class="muted">${when(h.created_at)}</span> ${historyLine(h.action, h.before, h.after, names)}</li>`)}</ul>`;
  return shellPage(ctx, { title: `#${ticket.number} ${ticket.subject}`, active: "inbox", body, status });
}

/** One history entry in words: events (created, a message added) by name, field changes as before → after. */
function historyLine(action: string, before: unknown, after: unknown, names: Map<string, string>): string {
  const events: Record<string, string> = { created: "Ticket opened", reply: "Reply sent", note: "Internal note added", customer_message: "Customer wrote" };
  if (events[action]) return events[action]!;
  if (action === "assignee") {
    const person = (id: unknown) => (typeof id === "string" ? (names.get(id) ?? "a former member") : "nobody");
    return `assignee: ${person(before)} → ${person(after)}`;
  }
  return `${action}: ${show(before)} → ${show(after)}`;
}

function show(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.join(", ") || "—";
  return JSON.stringify(value).slice(0, 200);
}

async function ticketOr404(deps: Deps, orgId: string, ref: string): Promise<Ticket> {
  const ticket = await findTicket(deps, orgId, ref);
  if (!ticket) throw AppError.notFound("No such ticket.");
  return ticket;
}

/** A message body's problem, checked before the service so the error sits next to the field. */
function bodyProblem(text: string): string | undefined {
  if (text.trim() === "") return "Write something first.";
  if (text.length > TICKET_LIMITS.body) return `At most ${TICKET_LIMITS.body} characters (this has ${text.length}).`;
  return undefined;
}

/** The patch a triage form asks for, or the field errors that stop it. */
function triagePatch(v: FormValues): { patch: TicketPatch; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const patch: TicketPatch = {};
  if (v.status !== undefined) {
    if ((STATUSES as readonly string[]).includes(v.status)) patch.status = v.status as TicketStatus;
    else errors.status = "Choose a status from the list.";
  }
  if (v.priority !== undefined) {
    if ((PRIORITIES as readonly string[]).includes(v.priority)) patch.priority = v.priority as TicketPriority;
    else errors.priority = "Choose a priority from the list.";
  }
  if (v.team !== undefined) {
    const team = v.team.trim();
    if (team.length > TICKET_LIMITS.team) errors.team = `At most ${TICKET_LIMITS.team} characters.`;
    patch.team = team === "" ? null : team;
  }
  if (v.assignee !== undefined) patch.assigneeId = v.assignee === "" ? null : v.assignee;
  if (v.tags !== undefined) {
    const tags = v.tags.split(",").map((s) => s.trim()).filter(Boolean);
    if (tags.length > TICKET_LIMITS.tags) errors.tags = `At most ${TICKET_LIMITS.tags} tags.`;
    else if (tags.some((tag) => tag.length > TICKET_LIMITS.tag)) errors.tags = `Each tag is at most ${TICKET_LIMITS.tag} characters.`;
    patch.tags = tags;
  }
  return { patch, errors };
}

/** A 400 from the service, as field errors: its details name the field by JSON pointer. */
function serviceErrors(error: AppError, fallback: string): FieldErrors {
  const errors: FieldErrors = {};
  const details = Array.isArray(error.details) ? (error.details as { path?: string; message?: string }[]) : [];
  for (const d of details) {
    const name = (d.path ?? "").replace(/^\//, "").split("/")[0]!;
    const key = name === "assignee_id" ? "assignee" : name === "body" ? fallback : name;
    if (key && !errors[key]) errors[key] = d.message ?? error.message;
  }
  if (Object.keys(errors).length === 0) errors[fallback] = error.message;
  return errors;
}

// ---- routes -------------------------------------------------------------------------------------

const ListQuery = t.Object({
  status: t.Optional(t.String({ maxLength: 20 })),
  assignee: t.Optional(t.String({ maxLength: 36 })),
  team: t.Optional(t.String({ maxLength: TICKET_LIMITS.team })),
  q: t.Optional(t.String({ maxLength: TICKET_LIMITS.text })),
  customer: t.Optional(t.String({ maxLength: 36 })),
  cursor: t.Optional(t.String({ maxLength: 64 })),
});
const Ref = t.Object({ ref: t.String({ maxLength: 64 }) });
/** Form bodies: every field a bounded string (the page reports what is wrong with each). */
const FormBody = formBody({ text: 40_000, item: 300, items: 50 });

export function inboxPages(deps: Deps) {
  const message = (kind: "reply" | "note") => async (ctx: DashboardContext, ref: string, body: unknown) => {
    const ticket = await ticketOr404(deps, ctx.orgId, ref);
    const values = formValues(body);
    const text = values[kind] ?? "";
    const problem = bodyProblem(text);
    if (problem) return ticketPage(ctx, ticket, { [kind]: { values, errors: { [kind]: problem } } });
    try {
      await addTicketMessage(deps, { orgId: ctx.orgId, actor: actorOf(ctx), ticketId: ticket.id, kind, body: text });
    } catch (error) {
      // 409 ticket_closed (a reply to a closed ticket) and validation: shown next to the field.
      if (error instanceof AppError && (error.status === 400 || error.status === 409)) return ticketPage(ctx, ticket, { [kind]: { values, errors: error.status === 409 ? { [kind]: error.message } : serviceErrors(error, kind) } });
      throw error;
    }
    return redirect(deps, `/dashboard/inbox/${ticket.number}`, kind === "reply" ? "Reply sent." : "Internal note added.");
  };
  const reply = message("reply");
  const note = message("note");
  return new Elysia({ name: "dashboard-inbox" })
    .get("/dashboard/inbox", ({ request, query }) => withMember(deps, request, "inbox:view", (ctx) => listPage(ctx, query)), { query: ListQuery })
    .get("/dashboard/inbox/:ref", ({ request, params }) => withMember(deps, request, "inbox:view", async (ctx) => ticketPage(ctx, await ticketOr404(deps, ctx.orgId, params.ref))), { params: Ref })
    .post("/dashboard/inbox/:ref/reply", ({ request, params, body }) => withMember(deps, request, "inbox:manage", (ctx) => reply(ctx, params.ref, body)), { params: Ref, body: FormBody })
    .post("/dashboard/inbox/:ref/note", ({ request, params, body }) => withMember(deps, request, "inbox:manage", (ctx) => note(ctx, params.ref, body)), { params: Ref, body: FormBody })
    .post(
      "/dashboard/inbox/:ref/triage",
      ({ request, params, body }) =>
        withMember(deps, request, "inbox:manage", async (ctx) => {
          const ticket = await ticketOr404(deps, ctx.orgId, params.ref);
          const values = formValues(body);
          // A form rendered before someone else's change would silently undo it: refuse it, keep the values.
          if (values.version !== undefined && values.version !== ticket.updatedAt.toISOString()) return ticketPage(ctx, ticket, { triage: { values, errors: {}, conflict: true } });
          const { patch, errors } = triagePatch(values);
          if (Object.keys(errors).length > 0) return ticketPage(ctx, ticket, { triage: { values, errors } });
          try {
            await updateTicket(deps, { orgId: ctx.orgId, actor: actorOf(ctx), ticketId: ticket.id, patch });
          } catch (error) {
            if (error instanceof AppError && error.status === 400) return ticketPage(ctx, ticket, { triage: { values, errors: serviceErrors(error, "tags") } });
            throw error;
          }
          return redirect(deps, `/dashboard/inbox/${ticket.number}`, "Triage saved.");
        }),
      { params: Ref, body: FormBody },
    );
}
