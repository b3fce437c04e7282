// Ticket views: what the dashboard API, the SDK and the tools answer with. No reads, no writes.
import type { TicketActorKind } from "../db/schema/inbox.ts";
import type { Ticket, TicketHistoryEntry, TicketMessage } from "./ticket-model.ts";

export function ticketView(t: Ticket) {
  return {
    id: t.id,
    number: t.number,
    subject: t.subject,
    status: t.status,
    priority: t.priority,
    team: t.team,
    assignee_id: t.assigneeMemberId,
    tags: t.tags,
    source: t.source,
    customer_id: t.endUserId,
    conversation_id: t.conversationId,
    language: t.language,
    verified: t.verified,
    custom_fields: t.customFields,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}
export type TicketView = ReturnType<typeof ticketView>;

/** The customer's rating of a resolved ticket (README "CSAT"), or null before they rate. */
export function ratingView(t: Ticket) {
  return t.csatScore !== null && t.csatAt !== null ? { score: t.csatScore, comment: t.csatComment, rated_at: t.csatAt.toISOString() } : null;
}

function authorOf(
  m: { authorKind: TicketActorKind; authorMemberId: string | null; authorAgentId: string | null; authorClientId: string | null },
  endUserId: string | null,
) {
  return {
    kind: m.authorKind,
    ...(m.authorMemberId ? { member_id: m.authorMemberId } : {}),
    ...(m.authorAgentId ? { agent_id: m.authorAgentId } : {}),
    ...(m.authorClientId ? { client_id: m.authorClientId } : {}),
    ...(m.authorKind === "customer" && endUserId ? { customer_id: endUserId } : {}),
  };
}

/**
 * A message as the team sees it (notes included). `verified` says whether a customer message came
 * from a verified identity (README "Widget SDK"); it is null on replies and notes, which come from the team.
 * `email_from` and `from_customer`: on a message that arrived by email, its From address and whether
 * that is the ticket customer's address (a From header proves nothing; `verified` stays false);
 * null on every other message.
 */
export function messageView(m: TicketMessage, endUserId: string | null) {
  return {
    id: m.id,
    kind: m.kind,
    body: m.body,
    author: authorOf(m, endUserId),
    verified: m.kind === "customer" ? m.verified : null,
    email_from: m.emailFrom,
    from_customer: m.fromCustomer,
    created_at: m.createdAt.toISOString(),
  };
}
export type TicketMessageView = ReturnType<typeof messageView>;

export function historyView(h: TicketHistoryEntry) {
  return {
    id: h.id,
    action: h.action,
    actor: {
      kind: h.actorKind,
      ...(h.actorMemberId ? { member_id: h.actorMemberId } : {}),
      ...(h.actorTokenId ? { token_id: h.actorTokenId } : {}),
      ...(h.actorClientId ? { client_id: h.actorClientId } : {}),
      ...(h.actorAgentId ? { agent_id: h.actorAgentId } : {}),
      ...(h.actorName ? { name: h.actorName } : {}),
    },
    before: h.before ?? null,
    after: h.after ?? null,
    created_at: h.createdAt.toISOString(),
  };
}
