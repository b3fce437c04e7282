// A chat turn up to the point where generation starts, for both chat endpoints: the customer's
// identity (403 per docs/interface.md 5), the session (403 when it is someone else's), the agent
// that answers (404 not_found when `agent_id` is unknown, 404 no_active_agent — as /api/sdk/config
// — when the org has no active agent), and the customer's message stored before anything is
// generated. The routes (src/sdk/chat-routes.ts) then run the pipeline and store the reply.
import { handoffSetting } from "./settings.ts";
import { retrieve } from "../agents/pipeline/knowledge.ts";
import type { ChatTurn } from "../agents/pipeline/run.ts";
import { getAgent, type Agent } from "../agents/service.ts";
import { checkChatInput, type HistoryItem } from "../conversations/input.ts";
import { type ContextEntry, type Conversation, createSession, findSession, updateSession } from "../conversations/sessions.ts";
import { type ConversationMessage, recentMessages, storeCustomerMessage, transcriptsSettled } from "../conversations/transcript.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import type { WidgetAuth } from "./auth.ts";
import type { ChatBodyValue } from "./chat-schemas.ts";
import { resolveIdentity } from "./identity.ts";
import { limitSdkTickets } from "./limits.ts";
import { noActiveAgent } from "./service.ts";

export interface Prepared {
  turn: ChatTurn;
  sessionId: string;
}

/**
 * The agent that answers: the pinned one (unknown, another org's or disabled: 404 not_found), else
 * the conversation's (after a handoff), else the active one (none: 404 no_active_agent).
 */
async function agentFor(deps: Deps, orgId: string, pinned: string | undefined, conversation: Conversation | null): Promise<Agent> {
  if (pinned !== undefined) {
    const agent = await getAgent(deps, orgId, pinned);
    if (!agent) throw AppError.notFound("No such agent in this organisation.");
    return agent;
  }
  const current = conversation?.agentId ? await getAgent(deps, orgId, conversation.agentId) : null;
  const agent = current ?? (await getAgent(deps, orgId));
  if (!agent) throw noActiveAgent(); // the code and message /api/sdk/config gives
  return agent;
}

/** Everything before generation: identity, session, agent, and the customer's message stored. */
export async function prepare(deps: Deps, auth: WidgetAuth, body: ChatBodyValue, request: Request): Promise<Prepared> {
  const { reported } = checkChatInput(body as { message: string; images?: string[]; conversation_history?: HistoryItem[]; context?: Record<string, unknown> });
  const identity = await resolveIdentity(deps, auth.orgId, { user_id: body.user_id, user_token: body.user_token, company_id: body.company_id, custom_fields: body.custom_fields });
  const party = { endUserId: identity.endUser?.id ?? null };
  const mode = body.mode ?? "chat";
  const context = body.context as Record<string, ContextEntry> | undefined;
  let conversation = body.session_id !== undefined ? await findSession(deps, auth.orgId, body.session_id, party) : null;
  // A streamed reply of this session may still be being written: the history must include it.
  if (conversation) await transcriptsSettled(deps, conversation.id);
  const agent = await agentFor(deps, auth.orgId, body.agent_id, conversation);
  // Retrieval reads only the org's docs: it runs while the message is stored (generation waits for both).
  const knowledge = retrieve(deps, auth.orgId, body.message);
  knowledge.catch(() => {}); // awaited by the pipeline; a failure surfaces there, not as an unhandled rejection
  const images = body.images ?? [];
  const message = { text: body.message, images, mode };
  const handoff = conversation?.ticketId ? await handoffSetting(deps, auth.orgId) : { ai_answers_during_handoff: false };
  let sessionId: string;
  let history: ConversationMessage[];
  if (conversation) {
    // Server history wins: what the client says happened is ignored for a session we know.
    sessionId = body.session_id!;
    conversation = await updateSession(deps, conversation, { context, mode });
    history = await recentMessages(deps, conversation);
    await storeCustomerMessage(deps, conversation, message);
  } else {
    // A new conversation: the session, any reported turns and the message in one statement.
    ({ conversation, sessionId } = await createSession(deps, { orgId: auth.orgId, party, agentId: agent.id, mode, context, reported, firstMessage: message }));
    history = reported.length > 0 ? (await recentMessages(deps, conversation)).slice(0, -1) : [];
  }
  return {
    sessionId,
    turn: { orgId: auth.orgId, agent, conversation, customer: { ...identity, reported: (body.custom_fields as Record<string, unknown> | undefined) ?? {} }, message: body.message, images, mode, behavior: body.behavior_context, history, knowledge, chargeTicket: () => limitSdkTickets(deps, auth, request), aiAnswersDuringHandoff: handoff.ai_answers_during_handoff },
  };
}
