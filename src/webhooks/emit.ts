// The payloads of each event type, built from the views their owners already return, so the call
// in each owner's transaction is one line. Version 1 of every payload (README "Webhooks").
import type { Db, Tx } from "../db/client.ts";
import { emitWebhookEvent } from "./events.ts";

/** Why the chat pipeline opened a ticket: routing (conversation.routed) or escalation (conversation.escalated). */
export type ChatTicketReason = "live_help" | "routing_rule" | "low_confidence" | "frustration";

interface TicketLike {
  id: string;
  number: number;
  team: string | null;
  conversation_id: string | null;
  updated_at: string;
  [key: string]: unknown;
}

/** ticket.created and, for a ticket the chat pipeline opened, conversation.routed or conversation.escalated. */
export async function emitTicketCreated(db: Db | Tx, input: { orgId: string; ticket: TicketLike; now: Date; chatReason?: ChatTicketReason }): Promise<void> {
  const { orgId, ticket, now, chatReason } = input;
  await emitWebhookEvent(db, { orgId, type: "ticket.created", data: ticket, now });
  if (!chatReason || !ticket.conversation_id) return;
  const conversation = { conversation_id: ticket.conversation_id, ticket, updated_at: ticket.updated_at };
  if (chatReason === "live_help" || chatReason === "routing_rule")
    await emitWebhookEvent(db, { orgId, type: "conversation.routed", data: { ...conversation, reason: chatReason, to: chatReason === "live_help" ? "person" : "team", team: ticket.team }, now });
  else await emitWebhookEvent(db, { orgId, type: "conversation.escalated", data: { ...conversation, reason: chatReason }, now });
}
