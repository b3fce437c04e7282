// The inbox list's live side (README "Inbox"): GET /api/tickets/events, every ticket event of the
// org as Server-Sent Events (which ticket, and whether a message or a change), and
// GET /api/tickets/counts, the navigation's counts. The dashboard's list page follows the first
// and fetches itself again on each event, so new tickets and status changes show without a reload.
// And POST /api/tickets/{id}/typing: a member writing a reply tells the customer's widget, never
// stored (README "Live conversation", "Typing and presence").
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { mediaResponse } from "../http/media-response.ts";
import { admitMemberStream, eventStream } from "../live/event-stream.ts";
import { EVENT_LIMITS, eventKey, lastOrgEventId, orgEventsAfter, orgKey, TEAM_NAME } from "./ticket-events.ts";
import { findTicket, ticketCounts } from "./ticket-queries.ts";

export const TicketCounts = t.Object(
  {
    open: t.Integer({ description: "Tickets open or pending" }),
    unassigned: t.Integer({ description: "Of those, the ones nobody is assigned" }),
    mine: t.Integer({ description: "Of those, the ones assigned to the member asking" }),
  },
  { additionalProperties: false },
);

export function inboxLiveRoutes(deps: Pick<Deps, "config" | "db" | "live" | "log" | "metrics" | "now">) {
  return new Elysia({ name: "inbox-live" })
    .post(
      "/api/tickets/:id/typing",
      async ({ params, body, request }) => {
        const { principal, orgId } = await requireMember(deps, request, "inbox:manage");
        const ticket = await findTicket(deps, orgId, params.id);
        if (!ticket) throw AppError.notFound("No such ticket.");
        // Only a chat's ticket has a widget to tell; the customer sees the member's display name.
        const sent =
          ticket.conversationId !== null &&
          deps.live.typing(eventKey(ticket), "member", { typing: body.typing, name: principal.member.name?.trim() || TEAM_NAME });
        return { sent };
      },
      {
        params: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
        body: t.Object({ typing: t.Boolean() }, { additionalProperties: false }),
        response: {
          200: t.Object({ sent: t.Boolean({ description: "False when dropped: no chat, or another signal of the same state within the last second" }) }),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
        },
        detail: {
          summary: "Tell the customer's widget that you are typing a reply (or stopped); never stored, at most one a second (inbox:manage)",
          tags: ["Tickets"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .get(
      "/api/tickets/counts",
      async ({ request }) => {
        const { principal, orgId } = await requireMember(deps, request, "inbox:view");
        return ticketCounts(deps, orgId, principal.member.id);
      },
      {
        response: { 200: TicketCounts },
        detail: {
          summary: "How many tickets wait: open or pending, unassigned, and the member's own (inbox:view)",
          tags: ["Tickets"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .get(
      "/api/tickets/events",
      async ({ query, request }) => {
        const { principal, orgId } = await requireMember(deps, request, "inbox:view");
        const resume = request.headers.get("last-event-id") ?? query.last_event_id;
        if (resume !== undefined && resume !== null && !/^\d{1,15}$/.test(resume))
          throw AppError.badRequest("Last-Event-ID must be an event id this stream sent.", [
            { path: "/last_event_id", message: "must be a decimal integer of at most 15 digits" },
          ]);
        const after = resume === undefined || resume === null ? await lastOrgEventId(deps, orgId) : Number(resume);
        // A budget of its own: every dashboard page follows the org's events for the navigation's
        // queue counts, so sharing the ticket streams' budget would let a few open tabs take the
        // place of the thread a member is answering in.
        const release = admitMemberStream(deps, `member-org:${principal.member.id}`);
        return eventStream(deps, {
          key: orgKey(orgId),
          reader: { kind: "member" },
          read: (from) => orgEventsAfter(deps, orgId, from),
          page: EVENT_LIMITS.page,
          after,
          request,
          release,
        });
      },
      {
        query: t.Object({ last_event_id: t.Optional(t.String({ maxLength: 15 })) }),
        detail: {
          summary:
            "Every ticket event of the org as Server-Sent Events: `message` or `ticket`, " +
            "with the ticket's id (never a message's text); resume with Last-Event-ID (inbox:view)",
          tags: ["Tickets"],
          security: [{ dashboard: [] }],
          responses: mediaResponse(
            "Server-Sent Events (HTML Living Standard): `id:` (resume with Last-Event-ID), `event:` and a JSON `data:` line each; `retry: " +
              "3000` and a heartbeat comment every SDK_STREAM_HEARTBEAT_SECONDS. " +
              'A client that leaves more than 256 KiB of new events untaken is cut (README "Live conversation")',
            ["text/event-stream"],
          ),
        },
      },
    );
}
