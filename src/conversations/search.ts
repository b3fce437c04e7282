// Text search over chat transcripts for the inbox's search box (README "Inbox"): the newest
// conversations of the org with a message containing the text (case-insensitive), each with the
// first matching message as its excerpt. Only customer and AI turns are searched.
import { and, desc, eq, ilike, inArray } from "drizzle-orm";
import { conversationMessages, conversations } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { escapeLike } from "../inbox/tickets.ts";

export interface ConversationMatch {
  id: string;
  ticketId: string | null;
  endUserId: string | null;
  createdAt: Date;
  excerpt: string;
}

/** At most `limit` conversations, newest matching message first. */
export async function searchConversations(deps: Pick<Deps, "db">, orgId: string, text: string, limit = 10): Promise<ConversationMatch[]> {
  const needle = text.trim();
  if (needle === "") return [];
  const rows = await deps.db
    .select({
      id: conversations.id,
      ticketId: conversations.ticketId,
      endUserId: conversations.endUserId,
      createdAt: conversations.createdAt,
      text: conversationMessages.text,
    })
    .from(conversationMessages)
    .innerJoin(conversations, and(eq(conversations.id, conversationMessages.conversationId), eq(conversations.orgId, orgId)))
    .where(
      and(
        eq(conversationMessages.orgId, orgId),
        inArray(conversationMessages.role, ["customer", "agent"]),
        ilike(conversationMessages.text, escapeLike(needle)),
      ),
    )
    .orderBy(desc(conversationMessages.createdAt))
    .limit(limit * 5);
  const seen = new Map<string, ConversationMatch>();
  for (const row of rows) {
    if (seen.has(row.id)) continue;
    seen.set(row.id, { id: row.id, ticketId: row.ticketId, endUserId: row.endUserId, createdAt: row.createdAt, excerpt: excerptOf(row.text, needle) });
    if (seen.size >= limit) break;
  }
  return [...seen.values()];
}

/** Up to 160 characters around the first occurrence of the text. */
function excerptOf(text: string, needle: string): string {
  const at = text.toLowerCase().indexOf(needle.toLowerCase());
  const start = Math.max(0, at - 60);
  const cut = text.slice(start, start + 160);
  return `${start > 0 ? "…" : ""}${cut}${start + 160 < text.length ? "…" : ""}`;
}
