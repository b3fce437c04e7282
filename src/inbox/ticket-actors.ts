// Who changed a ticket, in each of the shapes a ticket write records it (src/inbox/ticket-writes.ts):
// the history entry's actor, a message's author, and the admin activity log's actor; and the two
// records every write makes with them, inside the write's own transaction.
import { recordActivity } from "../activity/log.ts";
import type { Tx } from "../db/client.ts";
import { ticketHistory } from "../db/schema/index.ts";
import type { Actor } from "../kit/actor.ts";
import type { InboxActor, Ticket } from "./ticket-model.ts";

export function historyActor(actor: InboxActor) {
  switch (actor.kind) {
    case "member":
      return { actorKind: "member" as const, actorMemberId: actor.memberId };
    case "token":
      return { actorKind: "token" as const, actorMemberId: actor.memberId, actorTokenId: actor.tokenId ?? null, actorClientId: actor.clientId };
    case "agent":
      return { actorKind: "agent" as const, actorAgentId: actor.agentId };
    case "customer":
      return { actorKind: "customer" as const, actorName: actor.endUserId };
    case "system":
      return { actorKind: "system" as const, actorName: actor.name };
  }
}

export function messageAuthor(actor: InboxActor) {
  switch (actor.kind) {
    case "member":
      return { authorKind: "member" as const, authorMemberId: actor.memberId };
    case "token":
      return { authorKind: "token" as const, authorMemberId: actor.memberId, authorClientId: actor.clientId };
    case "agent":
      return { authorKind: "agent" as const, authorAgentId: actor.agentId };
    case "customer":
      return { authorKind: "customer" as const };
    case "system":
      return { authorKind: "system" as const };
  }
}

/** The admin activity log (C3) knows no AI agent: it records one as the system actor `agent:<id>`. */
export function activityActor(actor: InboxActor): Actor {
  switch (actor.kind) {
    case "agent":
      return { kind: "system", name: `agent:${actor.agentId ?? "active"}` };
    case "token":
      return { kind: "token", tokenId: actor.tokenId ?? "", clientId: actor.clientId, memberId: actor.memberId, scopes: actor.scopes ?? [] };
    case "customer":
      return { kind: "customer", endUserId: actor.endUserId, sessionId: actor.sessionId ?? "" };
    default:
      return actor;
  }
}

/** One admin-activity row per ticket write, committed with it. The ticket's own history has the detail. */
export async function activity(tx: Tx, now: Date, ticket: Ticket, actor: InboxActor, action: string, summary: Record<string, unknown>) {
  await recordActivity(
    { db: tx, now: () => now },
    { orgId: ticket.orgId, actor: activityActor(actor), action, objectType: "ticket", objectId: ticket.id, summary: { number: ticket.number, ...summary } },
  );
}

export async function record(tx: Tx, now: Date, ticket: Ticket, actor: InboxActor, action: string, before: unknown, after: unknown) {
  await tx
    .insert(ticketHistory)
    .values({ orgId: ticket.orgId, ticketId: ticket.id, ...historyActor(actor), action, before: before ?? null, after: after ?? null, createdAt: now });
}

// ---------------------------------------------------------------------------------------------
// Writes
