// Inbox fixtures for the dashboard tests, written through the same services the product uses:
// a customer of a company (external id co-<label>) with events, a ticket with a customer message, and a chat conversation whose answer
// carries actions, sources and a confidence.
import { customerEvents } from "../../src/db/schema/index.ts";
import { createSession } from "../../src/conversations/sessions.ts";
import { transcriptsSettled } from "../../src/agents/turn.ts";
import { storeReply } from "../../src/conversations/transcript.ts";
import { upsertCustomers } from "../../src/inbox/customer-profiles.ts";
import { createTicket } from "../../src/inbox/tickets.ts";
import type { TestApp } from "../support/app.ts";

export interface InboxFixture {
  customerId: string;
  ticketId: string;
  ticketNumber: number;
  conversationId: string;
}

export async function seedInbox(app: TestApp, orgId: string, agentId: string, label = "Ada"): Promise<InboxFixture> {
  const deps = app.deps;
  const [created] = await upsertCustomers(deps, orgId, { kind: "system", name: "test" }, [
    { external_id: `cust-${label}`, email: `${label.toLowerCase()}@example.com`, name: `${label} <Lovelace>`, company_id: `co-${label}` },
  ]);
  const user = created!.user;
  await deps.db.insert(customerEvents).values({ orgId, endUserId: user.id, name: "viewed_pricing", properties: { plan: "pro" }, occurredAt: deps.now() });
  const { conversation } = await createSession(deps, {
    orgId,
    party: { endUserId: user.id },
    agentId,
    mode: "chat",
    firstMessage: { text: "How do I get a refund?", images: [], mode: "chat" },
  });
  const ticket = await createTicket(deps, {
    orgId,
    actor: { kind: "customer", endUserId: user.id },
    input: {
      subject: `Refund for ${label} <b>now</b>`,
      message: "Please refund order 42.",
      customerId: user.id,
      source: "chat",
      conversationId: conversation.id,
    },
  });
  await storeReply(deps, conversation, {
    text: "Refunds take 5 days.",
    agentId,
    actions: [{ name: "inbox_create_ticket", status: "ok" }],
    sources: [
      { doc_id: "d1", title: "Refund policy", url: "https://example.com/refunds" },
      { doc_id: "d2", title: "Old <policy>", url: "javascript:alert(1)" },
    ],
    confidence: 0.82,
    routing: { action: "route", ticket_id: ticket.id },
    status: "complete",
    ticketId: ticket.id,
  });
  await transcriptsSettled(deps, conversation.id);
  return { customerId: user.id, ticketId: ticket.id, ticketNumber: ticket.number, conversationId: conversation.id };
}
