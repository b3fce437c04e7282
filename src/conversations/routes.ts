// Dashboard API of chat conversations: GET /api/conversations and
// GET /api/conversations/:id, role inbox:view, always within the member's org.
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { customerSummary, customersByIds } from "../inbox/customer-profiles.ts";
import { CONVERSATION_LIMITS, conversationView, listConversations, readConversation } from "./dashboard.ts";
import { ConversationDetailJson, ConversationList } from "./schemas.ts";

const Id = t.String({ minLength: 1, maxLength: 64 });
const DateTime = t.String({ minLength: 1, maxLength: 40, description: "An ISO 8601 date or date-time." });
/** The refusals both routes may answer, in the one error shape. */
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody };

function date(path: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const parsed = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(parsed.getTime()))
    throw AppError.badRequest(`${path.slice(1)} must be an ISO 8601 date.`, [{ path, message: "must be an ISO 8601 date or date-time" }]);
  return parsed;
}

export function conversationRoutes(deps: Pick<Deps, "config" | "db" | "now">) {
  return new Elysia({ name: "conversations" })
    .get(
      "/api/conversations",
      async ({ query, request }) => {
        const { orgId } = await requireMember(deps, request, "inbox:view");
        const page = await listConversations(deps, orgId, {
          customerId: query.customer,
          agentId: query.agent,
          routed: query.routed === undefined ? undefined : query.routed === "true",
          since: date("/since", query.since),
          until: date("/until", query.until),
          cursor: query.cursor,
          limit: query.limit,
        });
        const customers = await customersByIds(
          deps,
          orgId,
          page.conversations.map((c) => c.endUserId),
        );
        return {
          conversations: page.conversations.map((c) => {
            const customer = c.endUserId ? customers.get(c.endUserId) : undefined;
            return { ...conversationView(c), customer: customer ? customerSummary(customer) : null };
          }),
          ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
        };
      },
      {
        query: t.Object({
          customer: t.Optional(Id),
          agent: t.Optional(Id),
          routed: t.Optional(t.Union([t.Literal("true"), t.Literal("false")])),
          since: t.Optional(DateTime),
          until: t.Optional(DateTime),
          cursor: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
          limit: t.Optional(t.Integer({ minimum: 1, maximum: CONVERSATION_LIMITS.pageSize })),
        }),
        response: { 200: ConversationList, ...errors },
        detail: {
          summary: "The org's conversations, newest first; filter by customer, agent, routed, time (inbox:view)",
          tags: ["Conversations"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .get(
      "/api/conversations/:id",
      async ({ params, request }) => {
        const { orgId } = await requireMember(deps, request, "inbox:view");
        const conversation = await readConversation(deps, orgId, params.id);
        const customers = await customersByIds(deps, orgId, [conversation.customer_id]);
        const customer = conversation.customer_id ? customers.get(conversation.customer_id) : undefined;
        return { ...conversation, customer: customer ? customerSummary(customer) : null };
      },
      {
        params: t.Object({ id: Id }),
        response: { 200: ConversationDetailJson, ...errors, 404: ErrorBody },
        detail: { summary: "One conversation with its messages and customer (inbox:view)", tags: ["Conversations"], security: [{ dashboard: [] }] },
      },
    );
}
