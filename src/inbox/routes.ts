// The support inbox for the dashboard: /api/tickets (customers: customer-routes.ts).
// Roles inbox:view (read) and inbox:manage (reply, note, triage, outreach, create customers).
// Every route validates with TypeBox, asks requireMember who acts for which org, and calls one
// function of src/inbox/ with that org and actor.
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { jsonResponse } from "../kit/json-response.ts";
import { CUSTOMER_LIMITS, customerSummary, customersByIds, findCustomer } from "./customer-profiles.ts";
import { admitMemberStream, eventStream } from "../live/event-stream.ts";
import { EVENT_LIMITS, eventKey, lastTicketEventId, ticketEventsAfter } from "./ticket-events.ts";
import {
  addTicketMessage,
  findTicket,
  historyView,
  type InboxActor,
  listTickets,
  messageView,
  PRIORITIES,
  startOutreach,
  STATUSES,
  type Ticket,
  TICKET_LIMITS,
  ticketHistoryOf,
  ticketThread,
  ratingView,
  ticketView,
  updateTicket,
} from "./tickets.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { mediaResponse } from "../http/media-response.ts";
import { TicketDetailJson, TicketList, TicketMessageJson } from "./ticket-schemas.ts";

const Status = t.Union(STATUSES.map((s) => t.Literal(s)));
const Priority = t.Union(PRIORITIES.map((p) => t.Literal(p)));
const Body = t.String({ minLength: 1, maxLength: TICKET_LIMITS.body });
const Team = t.String({ maxLength: TICKET_LIMITS.team });
const Tags = t.Array(t.String({ minLength: 1, maxLength: TICKET_LIMITS.tag }), { maxItems: TICKET_LIMITS.tags });
const Cursor = t.String({ minLength: 1, maxLength: 64 });
const Ref = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
const STATUS_LIST = new RegExp(`^(${STATUSES.join("|")})(,(${STATUSES.join("|")}))*$`);
/** The refusals every ticket route may answer, in the one error shape; those naming a ticket or a customer also 404. */
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody };

async function ticketOr404(deps: Pick<Deps, "db">, orgId: string, ref: string): Promise<Ticket> {
  const ticket = await findTicket(deps, orgId, ref);
  if (!ticket) throw AppError.notFound("No such ticket.");
  return ticket;
}

/** A ticket with its thread (notes included), history and customer: what the inbox shows for one ticket. */
export async function ticketDetail(deps: Pick<Deps, "db">, ticket: Ticket) {
  const [messages, history, customers] = await Promise.all([
    ticketThread(deps, ticket),
    ticketHistoryOf(deps, ticket),
    customersByIds(deps, ticket.orgId, [ticket.endUserId]),
  ]);
  const customer = ticket.endUserId ? customers.get(ticket.endUserId) : undefined;
  return {
    ...ticketView(ticket),
    customer: customer ? customerSummary(customer) : null,
    rating: ratingView(ticket),
    messages: messages.map((m) => messageView(m, ticket.endUserId)),
    history: history.map(historyView),
  };
}

/**
 * How a reply is sent: plainly, or — with `translate` — in the customer's language. The translating
 * sender lives above this floor (src/translation/reply.ts) and is passed in by src/app.ts.
 */
export type ReplySender = (input: { orgId: string; actor: InboxActor; ticket: Ticket; body: string; translate: boolean }) => Promise<object>;

export function inboxRoutes(deps: Pick<Deps, "config" | "db" | "live" | "log" | "metrics" | "now">, sendReply?: ReplySender) {
  const member = async (request: Request, role: "inbox:view" | "inbox:manage") => {
    const { principal, orgId } = await requireMember(deps, request, role);
    return { orgId, actor: { kind: "member", memberId: principal.member.id } satisfies InboxActor, memberId: principal.member.id };
  };

  return new Elysia({ name: "inbox" })
    .get(
      "/api/tickets",
      async ({ query, request }) => {
        const { orgId, memberId } = await member(request, "inbox:view");
        const assignee = query.assignee === undefined ? undefined : query.assignee === "none" ? null : query.assignee === "me" ? memberId : query.assignee;
        // A customer by our id or the org's external id; an unknown one matches no ticket.
        const customer = query.customer === undefined ? undefined : ((await findCustomer(deps, orgId, query.customer))?.id ?? "none");
        const page = await listTickets(deps, orgId, {
          status: query.status?.split(",") as Ticket["status"][] | undefined,
          assigneeId: assignee,
          team: query.team,
          language: query.language,
          tag: query.tag,
          customerId: customer,
          text: query.text,
          cursor: query.cursor,
          limit: query.limit,
        });
        const customers = await customersByIds(
          deps,
          orgId,
          page.tickets.map((t) => t.endUserId),
        );
        return {
          tickets: page.tickets.map((ticket) => {
            const customer = ticket.endUserId ? customers.get(ticket.endUserId) : undefined;
            return { ...ticketView(ticket), customer: customer ? customerSummary(customer) : null, rating: ratingView(ticket) };
          }),
          ...(page.nextCursor ? { next_cursor: page.nextCursor } : {}),
        };
      },
      {
        query: t.Object({
          status: t.Optional(t.String({ pattern: STATUS_LIST.source, maxLength: 40 })),
          assignee: t.Optional(t.String({ minLength: 1, maxLength: 36 })),
          team: t.Optional(Team),
          language: t.Optional(t.String({ pattern: "^[a-z]{2,3}$", description: "The customer's language, ISO 639-1 (`es`)." })),
          tag: t.Optional(t.String({ minLength: 1, maxLength: TICKET_LIMITS.tag })),
          customer: t.Optional(t.String({ minLength: 1, maxLength: CUSTOMER_LIMITS.externalId })),
          text: t.Optional(t.String({ maxLength: TICKET_LIMITS.text })),
          cursor: t.Optional(Cursor),
          limit: t.Optional(t.Integer({ minimum: 1, maximum: TICKET_LIMITS.pageSize })),
        }),
        response: { 200: TicketList, ...errors },
        detail: {
          summary: "The org's tickets; filter by status, assignee, team, language, tag, customer, text (inbox:view)",
          tags: ["Tickets"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .post(
      "/api/tickets",
      async ({ body, request }) => {
        const { orgId, actor } = await member(request, "inbox:manage");
        const ticket = await startOutreach(deps, {
          orgId,
          actor,
          customer: body.customer_id,
          subject: body.subject,
          message: body.message,
          priority: body.priority,
          team: body.team,
          source: "api",
        });
        return jsonResponse(await ticketDetail(deps, ticket), 201);
      },
      {
        body: t.Object(
          {
            customer_id: t.String({ minLength: 1, maxLength: 256 }),
            subject: t.String({ minLength: 1, maxLength: TICKET_LIMITS.subject }),
            message: Body,
            priority: t.Optional(Priority),
            team: t.Optional(Team),
          },
          { additionalProperties: false },
        ),
        response: { 201: TicketDetailJson, ...errors, 404: ErrorBody },
        detail: { summary: "Open a ticket to a customer with a first message (outreach) (inbox:manage)", tags: ["Tickets"], security: [{ dashboard: [] }] },
      },
    )
    .get(
      "/api/tickets/:id",
      async ({ params, request }) => {
        const { orgId } = await member(request, "inbox:view");
        return ticketDetail(deps, await ticketOr404(deps, orgId, params.id));
      },
      {
        params: Ref,
        response: { 200: TicketDetailJson, ...errors, 404: ErrorBody },
        detail: { summary: "One ticket with its messages, notes, customer and rating (inbox:view)", tags: ["Tickets"], security: [{ dashboard: [] }] },
      },
    )
    .get(
      "/api/tickets/:id/events",
      async ({ params, query, request }) => {
        const { orgId, memberId } = await member(request, "inbox:view");
        const ticket = await ticketOr404(deps, orgId, params.id);
        const resume = request.headers.get("last-event-id") ?? query.last_event_id;
        if (resume !== undefined && resume !== null && !/^\d{1,15}$/.test(resume))
          throw AppError.badRequest("Last-Event-ID must be an event id this stream sent.", [
            { path: "/last_event_id", message: "must be a decimal integer of at most 15 digits" },
          ]);
        const after = resume === undefined || resume === null ? await lastTicketEventId(deps, orgId, ticket.id) : Number(resume);
        const release = admitMemberStream(deps, `member:${memberId}`);
        return eventStream(deps, {
          key: eventKey(ticket),
          reader: { kind: "member" },
          read: (from) => ticketEventsAfter(deps, orgId, ticket.id, from),
          page: EVENT_LIMITS.page,
          after,
          request,
          release,
          // A chat's ticket also hears the customer typing and whether they are on the site.
          signals: ticket.conversationId !== null,
        });
      },
      {
        params: Ref,
        query: t.Object({ last_event_id: t.Optional(t.String({ maxLength: 15 })) }),
        detail: {
          summary: 'The ticket\'s new messages and status changes as Server-Sent Events (never notes); resume with Last-Event-ID (README "Live conversation")',
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
    )
    .patch(
      "/api/tickets/:id",
      async ({ params, body, request }) => {
        const { orgId, actor } = await member(request, "inbox:manage");
        const ticket = await ticketOr404(deps, orgId, params.id);
        await updateTicket(deps, {
          orgId,
          actor,
          ticketId: ticket.id,
          patch: { subject: body.subject, status: body.status, priority: body.priority, team: body.team, assigneeId: body.assignee_id, tags: body.tags },
        });
        return ticketDetail(deps, await ticketOr404(deps, orgId, ticket.id));
      },
      {
        params: Ref,
        body: t.Object(
          {
            subject: t.Optional(t.String({ minLength: 1, maxLength: TICKET_LIMITS.subject })),
            status: t.Optional(Status),
            priority: t.Optional(Priority),
            team: t.Optional(t.Union([Team, t.Null()])),
            assignee_id: t.Optional(t.Union([t.String({ format: "uuid" }), t.Null()])),
            tags: t.Optional(Tags),
          },
          { additionalProperties: false, minProperties: 1 },
        ),
        response: { 200: TicketDetailJson, ...errors, 404: ErrorBody },
        detail: {
          summary: "Change a ticket's subject, status, priority, team, assignee or tags (inbox:manage)",
          tags: ["Tickets"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .post(
      "/api/tickets/:id/replies",
      async ({ params, body, request }) => {
        const { orgId, actor } = await member(request, "inbox:manage");
        const ticket = await ticketOr404(deps, orgId, params.id);
        const translate = body.translate === true;
        if (translate && !sendReply) throw new AppError(409, "translation_unavailable", "Translation is not available on this server.");
        const sent = sendReply
          ? await sendReply({ orgId, actor, ticket, body: body.body, translate })
          : await addTicketMessage(deps, { orgId, actor, ticketId: ticket.id, kind: "reply", body: body.body });
        return jsonResponse(sent, 201);
      },
      {
        params: Ref,
        body: t.Object({ body: Body, translate: t.Optional(t.Boolean()) }, { additionalProperties: false }),
        response: { 201: TicketMessageJson, ...errors, 404: ErrorBody, 409: ErrorBody, 502: ErrorBody },
        detail: {
          summary:
            "Reply to the customer (shown in the widget, emailed when they are away); with translate: true, " +
            'sent in the customer\'s language and the original kept as `original` (README "Translation"): ' +
            "409 translation_unavailable, 502 translation_failed and nothing sent when it cannot be; 409 ticket_closed on a closed ticket (inbox:manage)",
          tags: ["Tickets"],
          security: [{ dashboard: [] }],
        },
      },
    )
    .post(
      "/api/tickets/:id/notes",
      async ({ params, body, request }) => {
        const { orgId, actor } = await member(request, "inbox:manage");
        const ticket = await ticketOr404(deps, orgId, params.id);
        return jsonResponse(await addTicketMessage(deps, { orgId, actor, ticketId: ticket.id, kind: "note", body: body.body }), 201);
      },
      {
        params: Ref,
        body: t.Object({ body: Body }, { additionalProperties: false }),
        response: { 201: TicketMessageJson, ...errors, 404: ErrorBody },
        detail: { summary: "Add an internal note, never shown to the customer (inbox:manage)", tags: ["Tickets"], security: [{ dashboard: [] }] },
      },
    );
}
