// Dashboard: chat conversations (role inbox:view). A filtered, cursor-paged list and one
// conversation's transcript with each answer's actions, sources and confidence, read through
// src/conversations/dashboard.ts as /api/conversations does. Session ids are never shown.
// One conversation also says whether its customer is on the site now (followed live by the page's
// script, /api/conversations/{id}/presence) and offers "Join conversation" (inbox:manage; README
// "Live conversation"): the member takes it over from the AI on the ticket page it opens.
import { Elysia, t } from "elysia";
import { CONVERSATION_LIMITS, listConversations, readConversation } from "../conversations/dashboard.ts";
import { joinConversation } from "../conversations/join.ts";
import { waitingTicket } from "../inbox/ticket-queries.ts";
import { customersByIds, customerSummary } from "../inbox/customer-profiles.ts";
import { type DashboardContext, type DashboardDeps, formBody, IdParams, redirect, shellPage, withMember } from "./kit/index.ts";
import { ConversationDetail } from "./views/conversation-detail.ts";
import { ConversationList } from "./views/conversation-list.ts";

const PAGE = 25;

function who(c: { name: string | null; email: string | null; external_id: string | null } | undefined, anonymous: boolean): string {
  if (!c) return anonymous ? "anonymous visitor" : "—";
  return c.name || c.email || c.external_id || "anonymous visitor";
}

async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>): Promise<Response> {
  const routed = query.routed === "yes" ? true : query.routed === "no" ? false : undefined;
  const page = await listConversations(ctx.deps, ctx.orgId, {
    routed,
    customerId: query.customer || undefined,
    cursor: query.cursor || undefined,
    limit: PAGE,
  });
  const customers = await customersByIds(
    ctx.deps,
    ctx.orgId,
    page.conversations.map((c) => c.endUserId),
  );
  const rows = page.conversations.map((conversation) => {
    const customer = conversation.endUserId ? customers.get(conversation.endUserId) : undefined;
    return { conversation, customerId: customer?.id ?? null, who: who(customer && customerSummary(customer), conversation.anonymous) };
  });
  const body = ConversationList({ rows, query, filtered: routed !== undefined || Boolean(query.customer), nextCursor: page.nextCursor });
  return shellPage(ctx, { title: "Conversations", active: "inbox", body });
}

async function conversationPage(ctx: DashboardContext, id: string): Promise<Response> {
  const c = await readConversation(ctx.deps, ctx.orgId, id);
  const customers = await customersByIds(ctx.deps, ctx.orgId, [c.customer_id]);
  const customer = c.customer_id ? customers.get(c.customer_id) : undefined;
  const waiting = c.ticket_id ? await waitingTicket(ctx.deps, ctx.orgId, c.ticket_id) : null;
  const body = ConversationDetail({
    conversation: c,
    customerId: customer?.id ?? null,
    who: who(customer && customerSummary(customer), c.anonymous),
    waiting,
    manage: ctx.can("inbox:manage"),
    orgId: ctx.orgId,
    messagesMax: CONVERSATION_LIMITS.messages,
  });
  return shellPage(ctx, { title: "Conversation", active: "inbox", body });
}

async function join(ctx: DashboardContext, id: string): Promise<Response> {
  const joined = await joinConversation(ctx.deps, { orgId: ctx.orgId, memberId: ctx.principal.member.id, conversationId: id });
  return redirect(
    ctx.deps,
    `/dashboard/inbox/${joined.ticket_number}`,
    "You joined the conversation. The AI agent stays quiet until you resolve or close this ticket.",
  );
}

const ListQuery = t.Object({
  routed: t.Optional(t.String({ maxLength: 5 })),
  customer: t.Optional(t.String({ maxLength: 36 })),
  cursor: t.Optional(t.String({ maxLength: 128 })),
});

export function conversationPages(deps: DashboardDeps) {
  return new Elysia({ name: "dashboard-conversations" })
    .get("/dashboard/conversations", ({ request, query }) => withMember(deps, request, "inbox:view", (ctx) => listPage(ctx, query)), { query: ListQuery })
    .get("/dashboard/conversations/:id", ({ request, params }) => withMember(deps, request, "inbox:view", (ctx) => conversationPage(ctx, params.id)), {
      params: IdParams,
    })
    .post("/dashboard/conversations/:id/join", ({ request, params }) => withMember(deps, request, "inbox:manage", (ctx) => join(ctx, params.id)), {
      params: IdParams,
      body: formBody({ text: 10, items: 2 }),
    });
}
