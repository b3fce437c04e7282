// "Join conversation" (README "Live conversation"; docs/decisions.md "Joining an AI conversation"):
// a member takes over a chat. The conversation gets a ticket the member holds (src/inbox/ticket-join.ts),
// linked here in the same transaction, so from the commit on the AI stays quiet in it and the
// existing two-way machinery carries it: the customer's messages join the ticket and reach the
// member's ticket page live; the member's replies reach the widget live. Resolving or closing the
// ticket gives the conversation back to the AI.
import { and, eq } from "drizzle-orm";
import { conversations } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { orgKey } from "../inbox/ticket-events.ts";
import { joinChatTicket } from "../inbox/ticket-join.ts";
import { isUuid } from "../kit/ids.ts";
import { CONVERSATION_LIMITS } from "./dashboard.ts";
import { recentMessages } from "./transcript.ts";

const SUBJECT_MAX = 120;

/** The joined ticket's subject: the customer's first line in the chat, else a plain name. */
function subjectOf(messages: { role: string; text: string }[]): string {
  const first = messages.find((m) => m.role === "customer" && m.text.trim() !== "");
  const line =
    first?.text
      .split("\n")
      .find((l) => l.trim() !== "")
      ?.trim() ?? "Chat conversation";
  return line.length > SUBJECT_MAX ? `${line.slice(0, SUBJECT_MAX - 1)}…` : line;
}

export interface Joined {
  ticket_id: string;
  ticket_number: number;
  /** False when the member took the ticket the conversation already waited on. */
  created: boolean;
}

/** The member joins the org's conversation `id`; 404 for another org's or an unknown id. */
export async function joinConversation(
  deps: Pick<Deps, "db" | "live" | "now">,
  input: { orgId: string; memberId: string; conversationId: string },
): Promise<Joined> {
  const { orgId, memberId, conversationId } = input;
  if (!isUuid(conversationId)) throw AppError.notFound("No such conversation.");
  const now = deps.now();
  const joined = await deps.db.transaction(async (tx) => {
    // Locked: two members joining at once make one ticket, the second takes it.
    const [conversation] = await tx
      .select()
      .from(conversations)
      .where(and(eq(conversations.orgId, orgId), eq(conversations.id, conversationId)))
      .for("update");
    if (!conversation) throw AppError.notFound("No such conversation.");
    const messages = await recentMessages({ ...deps, db: tx }, conversation, CONVERSATION_LIMITS.messages);
    const result = await joinChatTicket(tx, {
      orgId,
      memberId,
      conversationId,
      ticketId: conversation.ticketId,
      customerId: conversation.endUserId,
      subject: subjectOf(messages),
      now,
    });
    if (conversation.ticketId !== result.ticket.id || !conversation.routed)
      await tx
        .update(conversations)
        .set({ ticketId: result.ticket.id, routed: true })
        .where(and(eq(conversations.orgId, orgId), eq(conversations.id, conversationId)));
    return result;
  });
  deps.live.wake(conversationId);
  deps.live.wake(orgKey(orgId));
  return { ticket_id: joined.ticket.id, ticket_number: joined.ticket.number, created: joined.created };
}
