// The dashboard's view of chat conversations (role inbox:view): a filtered, cursor-paged
// list and one conversation with its messages and actions. Session ids are never shown (only
// their hash is stored); the conversation's `id` is what tickets and the dashboard use.
import { and, eq, gte, lt, type SQL } from "drizzle-orm";
import { type KeysetOrder, keysetPage } from "../db/keyset.ts";
import { conversations } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import type { Conversation } from "./sessions.ts";
import { type ConversationMessage, recentMessages } from "./transcript.ts";

export const CONVERSATION_LIMITS = { pageSize: 100, defaultPageSize: 25, messages: 500 } as const;

export interface ConversationFilters {
  /** Our end-user id. */
  customerId?: string;
  agentId?: string;
  /** true: conversations that went to a team or a person; false: those that never did. */
  routed?: boolean;
  /** Created at or after. */
  since?: Date;
  /** Created before. */
  until?: Date;
  cursor?: string;
  limit?: number;
}

export function conversationView(c: Conversation) {
  return {
    id: c.id,
    customer_id: c.endUserId,
    anonymous: c.anonymous,
    agent_id: c.agentId,
    mode: c.mode,
    routed: c.routed,
    ticket_id: c.ticketId,
    message_count: c.messageCount,
    context: c.context,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

export function messageView(m: ConversationMessage) {
  return {
    id: m.id,
    role: m.role,
    ...(m.role === "reported" ? { reported_speaker: m.reportedSpeaker } : {}),
    text: m.text,
    images: m.images,
    actions: m.actions,
    sources: m.sources,
    confidence: m.confidence,
    agent_id: m.agentId,
    routing: m.routing,
    status: m.status,
    error: m.error,
    mode: m.mode,
    created_at: m.createdAt.toISOString(),
  };
}

/** Newest first, ties by id (src/db/keyset.ts). */
const ORDER: KeysetOrder = { table: conversations, scope: conversations.orgId, id: conversations.id, keys: [conversations.createdAt, conversations.id] };

export async function listConversations(
  deps: Pick<Deps, "db">,
  orgId: string,
  filters: ConversationFilters,
): Promise<{ conversations: Conversation[]; nextCursor: string | null }> {
  const limit = filters.limit ?? CONVERSATION_LIMITS.defaultPageSize;
  const where: (SQL | undefined)[] = [eq(conversations.orgId, orgId)];
  // Ids that are not uuids can match nothing: an empty page, not an error (like the ticket list).
  if (filters.customerId !== undefined) {
    if (!isUuid(filters.customerId)) return { conversations: [], nextCursor: null };
    where.push(eq(conversations.endUserId, filters.customerId));
  }
  if (filters.agentId !== undefined) {
    if (!isUuid(filters.agentId)) return { conversations: [], nextCursor: null };
    where.push(eq(conversations.agentId, filters.agentId));
  }
  if (filters.routed !== undefined) where.push(eq(conversations.routed, filters.routed));
  if (filters.since) where.push(gte(conversations.createdAt, filters.since));
  if (filters.until) where.push(lt(conversations.createdAt, filters.until));
  const { page, nextCursor } = await keysetPage(
    ORDER,
    orgId,
    { where, cursor: filters.cursor, limit, badCursor: () => AppError.badCursor() },
    (filter, orderBy, take) =>
      deps.db
        .select()
        .from(conversations)
        .where(filter)
        .orderBy(...orderBy)
        .limit(take),
    (c) => c.id,
  );
  return { conversations: page, nextCursor };
}

/** One conversation of the org with its latest messages (oldest first); 404 for another org's or an unknown id. */
export async function readConversation(deps: Pick<Deps, "db">, orgId: string, id: string) {
  if (!isUuid(id)) throw AppError.notFound("No such conversation.");
  const [conversation] = await deps.db
    .select()
    .from(conversations)
    .where(and(eq(conversations.orgId, orgId), eq(conversations.id, id)));
  if (!conversation) throw AppError.notFound("No such conversation.");
  const messages = await recentMessages(deps, conversation, CONVERSATION_LIMITS.messages);
  return { ...conversationView(conversation), messages: messages.map(messageView) };
}

/** One entry of a conversation's context (docs/interface.md 2.5 `context`), or null: what a ticket page shows beside its thread. */
export async function conversationContextEntry(
  deps: Pick<Deps, "db">,
  orgId: string,
  id: string,
  key: string,
): Promise<{ label: string; value: unknown } | null> {
  if (!isUuid(id)) return null;
  const [row] = await deps.db
    .select({ context: conversations.context })
    .from(conversations)
    .where(and(eq(conversations.orgId, orgId), eq(conversations.id, id)));
  const entry = (row?.context as Record<string, { label?: unknown; value?: unknown }> | undefined)?.[key];
  return entry && typeof entry.label === "string" ? { label: entry.label, value: entry.value } : null;
}
