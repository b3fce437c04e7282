// A ticket's thread turn by turn (README "Inbox"): the chat that led to it (the customer and the AI,
// the AI marked as such with its sources) merged in time order with the ticket's own messages —
// the customer, people by name, the AI, and internal notes set apart. A chat message the ticket
// also holds shows once; an AI turn with no text (it stayed quiet while a person had the chat) not
// at all. Drawn turn by turn by views/ticket-turn.ts.
import { readConversation } from "../conversations/dashboard.ts";
import type { Turn } from "./views/ticket-turn.ts";

export interface ThreadMessage {
  id: string;
  kind: "customer" | "reply" | "note";
  body: string;
  author: { kind: string; member_id?: string };
  verified: boolean | null;
  created_at: string;
}

/** Only web links are followed; anything else (a `javascript:` URL a document carried) is shown as text. */
function webUrl(url: unknown): string | null {
  return typeof url === "string" && /^https?:\/\//i.test(url) ? url : null;
}

async function chatTurns(deps: Parameters<typeof readConversation>[0], orgId: string, conversationId: string | null): Promise<Turn[]> {
  if (!conversationId) return [];
  const conversation = await readConversation(deps, orgId, conversationId).catch(() => null);
  if (!conversation) return [];
  return conversation.messages
    .filter((m) => (m.role === "customer" || m.role === "agent") && m.text.trim() !== "")
    .map((m) => ({
      id: m.id,
      at: m.created_at,
      kind: m.role === "customer" ? ("customer" as const) : ("ai" as const),
      who: "",
      text: m.text,
      sources: (m.sources ?? []).map((s) => ({ title: String(s.title || s.url || "a document"), url: webUrl(s.url) })),
    }));
}

export async function threadTurns<M extends ThreadMessage>(
  deps: Parameters<typeof readConversation>[0],
  ticket: { orgId: string; conversationId: string | null },
  messages: M[],
  authorName: (m: M) => string,
): Promise<Turn[]> {
  const chat = await chatTurns(deps, ticket.orgId, ticket.conversationId);
  const chatCustomer = new Set(chat.filter((t) => t.kind === "customer").map((t) => t.text.trim()));
  const own: Turn[] = messages
    .filter((m) => !(m.kind === "customer" && chatCustomer.has(m.body.trim())))
    .map((m) => ({
      id: m.id,
      at: m.created_at,
      kind: m.kind === "note" ? "note" : m.kind === "customer" ? "customer" : m.author.kind === "agent" ? "ai" : "person",
      who: authorName(m),
      text: m.body,
      sources: [],
      verified: m.verified === true,
    }));
  return [...chat, ...own].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
}
