// Who may read a chat conversation through GET /api/sdk/conversations/{session_id} (and its
// events), and what they see. The binding rules are the chat's (src/conversations/sessions.ts,
// docs/decisions.md "Chat sessions"), applied without writing anything:
//   * another org's key finds nothing: 404, as for an id that never existed;
//   * an anonymous visitor's session: the session id is the bearer secret, so its holder reads it;
//   * a customer's session: the request must be that customer — with a `user_token` (header
//     X-User-Token or query user_token) when the customer is verified or the org requires
//     verification (missing: 403 user_token_required), else with their `user_id` (header X-User-Id
//     or query user_id); anyone else: 403 session_forbidden, as /api/sdk/chat answers.
import { recentMessages } from "../conversations/transcript.ts";
import { type Conversation, sessionOf } from "../conversations/sessions.ts";
import { findEndUser } from "../customers/records.ts";
import { agentNames } from "../agents/lookups.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { type CustomerMessage, EVENT_LIMITS, lastEventId, TEAM_NAME, ticketMessagesSeen } from "../inbox/ticket-events.ts";
import { findTicket } from "../inbox/tickets.ts";
import { identitySettings, userTokenRequired, verifyUserToken } from "./identity.ts";

export interface Reader {
  userId?: string;
  userToken?: string;
}

function forbidden(): AppError {
  return new AppError(403, "session_forbidden", "This session belongs to another customer.");
}

/** The conversation `sessionId` names, if this reader may read it; throws 404 or 403 otherwise. */
export async function readableConversation(deps: Pick<Deps, "cipher" | "db" | "now">, orgId: string, sessionId: string, reader: Reader): Promise<Conversation> {
  const conversation = await sessionOf(deps, orgId, sessionId);
  if (!conversation) throw AppError.notFound("No such conversation.");
  if (conversation.anonymous) return conversation;
  // Bound to a customer whose record is gone: nobody may take it over.
  const owner = conversation.endUserId ? await findEndUser(deps, orgId, conversation.endUserId) : null;
  if (!owner?.externalId) throw forbidden();
  const settings = await identitySettings(deps, orgId);
  if (reader.userToken !== undefined) {
    const expected = reader.userId ?? owner.externalId;
    await verifyUserToken(settings.secrets, reader.userToken, expected, deps.now());
    if (expected !== owner.externalId) throw forbidden();
    return conversation;
  }
  if (owner.verified || settings.enabled) throw userTokenRequired();
  if (reader.userId !== owner.externalId) throw forbidden();
  return conversation;
}

/** The conversation as its customer sees it: customer messages, AI answers and people's replies, oldest first. */
export async function conversationView(deps: Deps, conversation: Conversation, sessionId: string) {
  // The cursor first: the messages up to it are here, everything after it comes by the stream.
  const last = await lastEventId(deps, conversation.orgId, conversation.id);
  const [transcript, fromTickets, ticket] = await Promise.all([
    recentMessages(deps, conversation, EVENT_LIMITS.history),
    ticketMessagesSeen(deps, conversation.orgId, conversation.id, last),
    conversation.ticketId ? findTicket(deps, conversation.orgId, conversation.ticketId) : null,
  ]);
  const agentIds = [...new Set(transcript.flatMap((m) => (m.role === "agent" && m.agentId ? [m.agentId] : [])))];
  const names = await agentNames(deps, agentIds);
  const chat: CustomerMessage[] = transcript
    .filter((m) => m.role === "customer" || (m.role === "agent" && m.text !== ""))
    .map((m) => ({
      id: m.id,
      kind: m.role === "customer" ? "customer" : "agent",
      author: { name: m.role === "customer" ? "You" : (m.agentId && names.get(m.agentId)) || TEAM_NAME },
      text: m.text,
      created_at: m.createdAt.toISOString(),
    }));
  // A stable merge by time: a chat message and a ticket message of the same instant keep the chat's first.
  const messages = [...chat, ...fromTickets]
    .map((m, i) => ({ m, i }))
    .sort((a, b) => a.m.created_at.localeCompare(b.m.created_at) || a.i - b.i)
    .map((x) => x.m);
  return {
    session_id: sessionId,
    messages: messages.slice(-EVENT_LIMITS.history),
    ticket: ticket ? { number: ticket.number, status: ticket.status } : null,
    /** Where GET …/events should resume to get exactly what happens after this answer. */
    last_event_id: String(last),
  };
}
