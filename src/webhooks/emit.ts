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
    await emitWebhookEvent(db, {
      orgId,
      type: "conversation.routed",
      data: { ...conversation, reason: chatReason, to: chatReason === "live_help" ? "person" : "team", team: ticket.team },
      now,
    });
  else await emitWebhookEvent(db, { orgId, type: "conversation.escalated", data: { ...conversation, reason: chatReason }, now });
}

/** campaign.message.sent, for the campaign message an outbox row delivered (src/campaigns/mail.ts reads it). */
export async function emitCampaignMessageSent(
  db: Db | Tx,
  orgId: string,
  m: { id: string; campaignId: string; endUserId: string; stepId: string; subject: string },
  now: Date,
): Promise<void> {
  const sentAt = now.toISOString();
  await emitWebhookEvent(db, {
    orgId,
    type: "campaign.message.sent",
    data: { message_id: m.id, campaign_id: m.campaignId, customer_id: m.endUserId, step_id: m.stepId, subject: m.subject, sent_at: sentAt, updated_at: sentAt },
    now,
  });
}

interface ConnectorLike {
  id: string;
  orgId: string;
  name: string;
  slug: string;
  status: string;
  lastError: string | null;
  updatedAt: Date;
}

/** connector.status_changed when the rows a connector update returned changed its status; returns the rows. Call inside the update's transaction. */
export async function withConnectorStatusEvent<R extends ConnectorLike>(db: Db | Tx, before: { status: string }, rows: R[]): Promise<R[]> {
  const after = rows[0];
  if (after && after.status !== before.status) {
    const data = {
      id: after.id,
      name: after.name,
      slug: after.slug,
      status: after.status,
      previous_status: before.status,
      last_error: after.lastError,
      updated_at: after.updatedAt.toISOString(),
    };
    await emitWebhookEvent(db, { orgId: after.orgId, type: "connector.status_changed", data, now: after.updatedAt });
  }
  return rows;
}
