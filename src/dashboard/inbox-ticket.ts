// One ticket: its thread (customer messages, replies, internal notes marked as internal), the
// reply, note and triage forms (for inbox:manage), and its history in words; loaded here, drawn by
// views/ticket-detail.ts.
import { helpArticlesRead } from "./ticket-help-read.ts";
import { originalsOf } from "../mail-in/originals.ts";
import { lastTicketEventId } from "../inbox/ticket-events.ts";
import { ticketDetail } from "../inbox/routes.ts";
import { PRIORITIES, STATUSES, type Ticket, TICKET_LIMITS } from "../inbox/tickets.ts";
import { type DashboardContext, type FieldErrors, type FormValues, shellPage } from "./kit/index.ts";
import { customerLabel, orgMembers } from "./inbox-people.ts";
import { threadTurns } from "./inbox-thread.ts";
import { ticketTranslation } from "./inbox-translation.ts";
import { TicketDetail } from "./views/ticket-detail.ts";
import { listSavedReplies } from "../inbox/saved-replies.ts";
import { fillSavedReply } from "../inbox/saved-reply-template.ts";

export interface TicketForms {
  /** `inserted`: a saved reply was put into the field (nothing sent yet). */
  /** `status`: the page's status when the reply was refused (a translator's failure: 502, none configured: 409). */
  reply?: { values: FormValues; errors: FieldErrors; inserted?: boolean; status?: number };
  note?: { values: FormValues; errors: FieldErrors };
  /** `conflict`: the ticket changed after the form was rendered (its `version`); nothing was saved. */
  triage?: { values: FormValues; errors: FieldErrors; conflict?: boolean };
}

function triageValues(ticket: Ticket): FormValues {
  return {
    subject: ticket.subject,
    status: ticket.status,
    priority: ticket.priority,
    team: ticket.team ?? "",
    assignee: ticket.assigneeMemberId ?? "",
    tags: ticket.tags.join(", "),
  };
}

export async function ticketPage(ctx: DashboardContext, ticket: Ticket, forms: TicketForms = {}): Promise<Response> {
  const { deps, orgId } = ctx;
  // The cursor first: the thread rendered below holds everything up to it, the stream the rest.
  const cursor = await lastTicketEventId(deps, orgId, ticket.id);
  const [detail, people, snippets, helpRead] = await Promise.all([
    ticketDetail(deps, ticket),
    orgMembers(deps, orgId),
    listSavedReplies(deps, orgId),
    helpArticlesRead(deps, orgId, ticket.conversationId),
  ]);
  const originals = await originalsOf(
    deps,
    orgId,
    ticket.id,
    detail.messages.filter((m) => m.kind === "customer").map((m) => m.id),
  );
  const names = new Map(people.map((p) => [p.id, p.label]));
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
  const turns = await threadTurns(deps, ticket, detail.messages, author);
  const translation = await ticketTranslation(ctx, ticket, turns);
  const status = forms.triage?.conflict ? 409 : forms.reply?.inserted ? 200 : (forms.reply?.status ?? (forms.reply || forms.note || forms.triage ? 400 : 200));
  const me = ctx.principal.member;
  const fill = (text: string) => fillSavedReply(text, { customerName: detail.customer?.name ?? null, ticketNumber: ticket.number, agentName: me.name });
  const body = TicketDetail({
    ticket,
    customer: detail.customer ? { id: detail.customer.id, label: customerLabel(detail.customer), verified: detail.customer.verified } : null,
    people,
    names,
    turns,
    translation,
    originals,
    helpRead,
    history: detail.history,
    cursor,
    orgId,
    manage: ctx.can("inbox:manage"),
    snippets: snippets.map((r) => ({ id: r.id, name: r.name, text: fill(r.body) })),
    reply: forms.reply ?? { values: {}, errors: {} },
    note: forms.note ?? { values: {}, errors: {} },
    triage: forms.triage ?? { values: triageValues(ticket), errors: {} },
    statuses: STATUSES,
    priorities: PRIORITIES,
    limits: { body: TICKET_LIMITS.body, subject: TICKET_LIMITS.subject, team: TICKET_LIMITS.team, tags: TICKET_LIMITS.tags, tag: TICKET_LIMITS.tag },
  });
  return shellPage(ctx, { title: `#${ticket.number} ${ticket.subject}`, active: "inbox", body, status });
}
