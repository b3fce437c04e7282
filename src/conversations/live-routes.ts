// A member and a chat conversation, live (README "Live conversation"): POST /api/conversations/{id}/join
// (role inbox:manage, like replying to a ticket) takes the conversation over from the AI
// (./join.ts); GET /api/conversations/{id}/presence (inbox:view) tells whether the customer is on
// the site now — their widget's event stream open, on any instance (src/live/signals.ts) — and when
// they type, as Server-Sent Events that carry no stored event. Another org's conversation is 404.
import { Elysia, t } from "elysia";
import { and, eq } from "drizzle-orm";
import { requireMember } from "../auth/guard.ts";
import { conversations } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { isUuid } from "../kit/ids.ts";
import { admitMemberStream, eventStream } from "../live/event-stream.ts";
import { joinConversation } from "./join.ts";

const Params = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody };

async function conversationOr404(deps: Pick<Deps, "db">, orgId: string, id: string): Promise<string> {
  if (!isUuid(id)) throw AppError.notFound("No such conversation.");
  const [row] = await deps.db
    .select({ id: conversations.id })
    .from(conversations)
    .where(and(eq(conversations.orgId, orgId), eq(conversations.id, id)));
  if (!row) throw AppError.notFound("No such conversation.");
  return row.id;
}

export function conversationLiveRoutes(deps: Pick<Deps, "config" | "db" | "live" | "log" | "metrics" | "now">) {
  return new Elysia({ name: "conversations-live" })
    .post(
      "/api/conversations/:id/join",
      async ({ params, request }) => {
        const { principal, orgId } = await requireMember(deps, request, "inbox:manage");
        return joinConversation(deps, { orgId, memberId: principal.member.id, conversationId: params.id });
      },
      {
        params: Params,
        response: {
          200: t.Object({ ticket_id: t.String(), ticket_number: t.Integer(), created: t.Boolean() }, { additionalProperties: false }),
          ...errors,
        },
        detail: {
          summary:
            "Join the conversation: the AI stops answering it, and a ticket assigned to you (the one it waits on, or a new one) carries it live both ways (inbox:manage)",
          tags: ["Conversations"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .get(
      "/api/conversations/:id/presence",
      async ({ params, request }) => {
        const { principal, orgId } = await requireMember(deps, request, "inbox:view");
        const id = await conversationOr404(deps, orgId, params.id);
        const release = admitMemberStream(deps, `member:${principal.member.id}`);
        // No rows: only the conversation's signals (`presence`, `typing`) travel on it.
        return eventStream(deps, { key: id, reader: { kind: "member" }, read: async () => [], page: 1, after: 0, request, release, signals: true });
      },
      {
        params: Params,
        response: { ...errors, 429: ErrorBody },
        detail: {
          summary:
            "Whether the customer is on the site now, as Server-Sent Events: `presence` {online} when the stream opens and on each change, and `typing` {typing} as the customer types (inbox:view)",
          tags: ["Conversations"],
          security: [{ dashboard: [] }],
          responses: { 200: { description: "text/event-stream", content: { "text/event-stream": { schema: { type: "string" } } } } },
        },
      },
    );
}
