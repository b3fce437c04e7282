// The inbox's model: ticket types, the closed sets of statuses, priorities and sources, every cap,
// and who may act. Shared by the writes, the queries and the views of tickets.
import type { tickets, ticketHistory, ticketMessages } from "../db/schema/index.ts";
import type { TicketMessageKind, TicketPriority, TicketSource, TicketStatus } from "../db/schema/inbox.ts";
import { FREE_FORM_LIMITS } from "../http/free-form.ts";
import type { ChatTicketReason } from "../webhooks/emit.ts";
import type { Tx } from "../db/client.ts";
import type { Deps } from "../deps.ts";

export type { TicketMessageKind, TicketPriority, TicketSource, TicketStatus };
export type Ticket = typeof tickets.$inferSelect;
export type TicketMessage = typeof ticketMessages.$inferSelect;
export type TicketHistoryEntry = typeof ticketHistory.$inferSelect;
/** What a ticket write (src/inbox/ticket-writes.ts) uses: the database, the clock, and the live wake-ups it sends once committed. */
export type Writer = Pick<Deps, "db" | "now" | "live">;

export const STATUSES = ["open", "pending", "resolved", "closed"] as const satisfies readonly TicketStatus[];
export const PRIORITIES = ["low", "normal", "high", "urgent"] as const satisfies readonly TicketPriority[];
export const SOURCES = ["widget", "api", "chat", "mcp", "email"] as const satisfies readonly TicketSource[];

/** Every cap of the inbox, shared by the dashboard API, the SDK route and the inbox_* tools (documented in the README). */
export const TICKET_LIMITS = {
  subject: 250,
  /** Same as a chat message (docs/interface.md 2.5). */
  body: 10_000,
  team: 100,
  tags: 20,
  tag: 50,
  customFieldKeys: 50,
  /** Serialised JSON, and nesting: the house bound for stored free-form objects. */
  customFieldsBytes: FREE_FORM_LIMITS.maxBytes,
  customFieldsDepth: FREE_FORM_LIMITS.maxDepth,
  /** Free-text filter. */
  text: 200,
  pageSize: 100,
  defaultPageSize: 25,
  /** Messages and history entries returned with one ticket (the most recent ones). */
  thread: 500,
} as const;

/**
 * Who acts. The first four kinds are the tool runtime's `Actor` (C1) so its callers pass theirs
 * unchanged; `agent` is an AI agent replying or triaging in a chat. A token acts for its member.
 */
export type InboxActor =
  | { kind: "token"; tokenId?: string; clientId: string; memberId: string; scopes?: readonly string[] }
  | { kind: "member"; memberId: string }
  | { kind: "customer"; endUserId: string | null; sessionId?: string }
  | { kind: "system"; name: string }
  /** The AI agent; `name` is how the customer sees it sign (the chat pipeline and the tool runtime know it). */
  | { kind: "agent"; agentId: string | null; name?: string };

/** One message added to a ticket's thread (ticket-writes.ts `addTicketMessage`). */
export interface AddMessageInput {
  orgId: string;
  actor: InboxActor;
  ticketId: string;
  kind: TicketMessageKind;
  body: string;
  verified?: boolean;
  email?: EmailSender;
  /** Run in the message's transaction once it is stored (a translated reply keeps its original: src/translation/reply.ts). */
  withMessage?: (tx: Tx, messageId: string) => Promise<void>;
}

export interface CreateTicketInput {
  subject: string;
  message: string;
  customerId?: string | null;
  priority?: TicketPriority;
  team?: string;
  source: TicketSource;
  customFields?: Record<string, unknown>;
  conversationId?: string;
  /** Whether the customer's identity was verified (README "Widget SDK", identity verification); only a verified request may say true. */
  verified?: boolean;
  /** What the first message is: the customer writing in (default, status `open`), or our outbound first message (outreach, status `pending`). */
  firstMessage?: "customer" | "reply";
  /** Why the chat pipeline opened it: announced as conversation.routed or conversation.escalated (README "Webhooks"). */
  chatReason?: ChatTicketReason;
  /** The first message arrived by email (src/mail-in/): who sent it. */
  email?: EmailSender;
  /** The customer's language (ISO 639-1): a ticket opened from a conversation takes the conversation's. */
  language?: string | null;
}

/** The sender of a customer message that arrived by email: its From address, and whether that is the ticket customer's address. */
export interface EmailSender {
  from: string;
  fromCustomer: boolean;
}

export interface TicketPatch {
  subject?: string;
  status?: TicketStatus;
  priority?: TicketPriority;
  team?: string | null;
  assigneeId?: string | null;
  tags?: string[];
}
