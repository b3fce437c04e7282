// HTTP side of the email channel (README "Email channel"):
//   POST /api/inbound/email          a raw RFC 5322 message from a relay, for operators who cannot
//                                    open an SMTP port (Bearer INBOUND_WEBHOOK_SECRET, compared in
//                                    constant time); the same recipient rules as the SMTP listener.
//   GET /api/tickets/:id/messages/:message_id/email
//                                    the original of a message that came by email, for members to
//                                    expand (quoted history included; attachments listed).
import { and, eq } from "drizzle-orm";
import { Elysia, t } from "elysia";
import { requireMember } from "../auth/guard.ts";
import { constantTimeEqual } from "../crypto/tokens.ts";
import { ticketInboundEmails } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { readBodyCapped } from "../net/capped-body.ts";
import { findTicket } from "../inbox/tickets.ts";
import { isUuid } from "../kit/ids.ts";
import { ingestEmail } from "./ingest.ts";
import { resolveRecipient, type Route } from "./recipients.ts";
import { MAX_RECIPIENTS } from "./smtp.ts";

/** The recipients a relayed message names in its header (relays keep the envelope there). */
export function headerRecipients(raw: string): string[] {
  const end = raw.search(/\r?\n\r?\n/);
  const block = (end < 0 ? raw : raw.slice(0, end)).replace(/\r?\n[ \t]+/g, " ");
  const found: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    const match = /^(to|cc|delivered-to|x-original-to|envelope-to)\s*:(.*)$/i.exec(line);
    if (match) found.push(...(match[2]!.match(/[^\s<>,;:"()]+@[^\s<>,;:"()]+/g) ?? []));
  }
  return [...new Set(found.map((a) => a.toLowerCase()))].slice(0, MAX_RECIPIENTS);
}

/** GET …/messages/{message_id}/email: the stored original of a message that came by email. */
const InboundEmailJson = t.Object(
  {
    message_id: t.String({ description: "The email's Message-ID" }),
    from: t.String({ description: "The From address" }),
    from_customer: t.Boolean({ description: "Whether From is the ticket's customer" }),
    authentication: t.String({ description: "What the receiving checks found (SPF, DKIM, DMARC), as Authentication-Results" }),
    dmarc: t.String({ description: "The DMARC result (RFC 7489), e.g. pass, fail or none" }),
    claimed_ticket_id: t.Union([t.String(), t.Null()], { description: "The ticket it claimed to answer when it was not let in there" }),
    subject: t.String(),
    original: t.String({ description: "The message's text as received, quoted history included" }),
    attachments: t.Array(t.Object({ name: t.String(), size: t.Integer(), content_type: t.String() }), { description: "Listed, not kept" }),
    received_at: t.String({ format: "date-time" }),
  },
  { additionalProperties: false },
);

function relayAuthorised(deps: Pick<Deps, "config">, request: Request): void {
  const secret = deps.config.inbound.webhookSecret;
  if (!secret) throw AppError.notFound("Inbound email by relay is not enabled (INBOUND_WEBHOOK_SECRET).");
  const header = request.headers.get("authorization") ?? "";
  const presented = /^Bearer (.+)$/i.exec(header)?.[1] ?? "";
  if (!constantTimeEqual(presented, secret)) throw new AppError(401, "unauthorized", "A valid Authorization: Bearer <INBOUND_WEBHOOK_SECRET> is required.");
}

const tags = ["Email"];
/** One result per ticket the message reached (IngestOutcome); the other fields are present by status. */
const IngestResults = t.Object({
  results: t.Array(
    t.Object({
      status: t.Union([t.Literal("stored"), t.Literal("duplicate"), t.Literal("ignored")], {
        description: "stored; duplicate: a Message-ID already stored; ignored: automatic mail, a bounce, or no usable From address.",
      }),
      ticket_id: t.Optional(t.String({ format: "uuid", description: "When stored: the ticket it was added to or opened." })),
      message_id: t.Optional(t.String({ format: "uuid", description: "When stored: the ticket message it became." })),
      reason: t.Optional(t.String({ description: "When ignored: why." })),
    }),
  ),
});

export function inboundRoutes(deps: Pick<Deps, "config" | "db" | "live" | "log" | "now" | "replies">) {
  return new Elysia({ name: "inbound-email" })
    .post(
      "/api/inbound/email",
      async ({ request }) => {
        // Nothing of the body is read before the relay is known to be on and the secret right
        // (the body parser leaves this route's body alone: src/http/body.ts DeferredBody).
        relayAuthorised(deps, request);
        const read = await readBodyCapped(request, deps.config.inbound.maxMessageBytes);
        if (read === null)
          throw new AppError(413, "payload_too_large", `The message is larger than ${deps.config.inbound.maxMessageBytes} bytes (INBOUND_MAX_MESSAGE_BYTES).`);
        // The bytes as sent: an 8-bit body is decoded by its declared charset when parsed, as on SMTP.
        const bytes = Buffer.from(read.buffer, read.byteOffset, read.byteLength);
        if (bytes.length === 0) throw AppError.badRequest("The body must be a raw RFC 5322 message.");
        const routes: Route[] = [];
        for (const address of headerRecipients(bytes.toString("latin1"))) {
          const route = await resolveRecipient(deps, address);
          if (route) routes.push(route);
        }
        if (routes.length === 0) throw new AppError(404, "unknown_recipient", "No recipient of this message is a reply address or a support alias here.");
        const outcomes = await ingestEmail(deps, { raw: bytes, routes, envelopeFrom: null });
        return {
          results: outcomes.map((o) =>
            o.status === "stored"
              ? { status: o.status, ticket_id: o.ticketId, message_id: o.messageId }
              : o.status === "ignored"
                ? { status: o.status, reason: o.reason }
                : { status: o.status },
          ),
        };
      },
      {
        response: { 200: IngestResults, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 413: ErrorBody },
        detail: {
          summary: "Receive one email from a relay (raw RFC 5322 message as the body; Bearer INBOUND_WEBHOOK_SECRET)",
          description:
            "The recipients are read from To, Cc, Delivered-To, X-Original-To and Envelope-To. " +
            "200 with one result per ticket reached (`stored`, `duplicate` for a Message-ID already stored, " +
            "`ignored` for automatic mail and bounces); 401 bad secret; " +
            "404 no acceptable recipient (or relay not enabled); 413 past INBOUND_MAX_MESSAGE_BYTES.",
          tags,
          security: [{ inboundSecret: [] }],
          requestBody: {
            required: true,
            content: { "message/rfc822": { schema: { type: "string", description: "The raw RFC 5322 message, at most INBOUND_MAX_MESSAGE_BYTES" } } },
          },
        },
      },
    )
    .get(
      "/api/tickets/:id/messages/:message_id/email",
      async ({ params, request }) => {
        const { orgId } = await requireMember(deps, request, "inbox:view");
        const ticket = await findTicket(deps, orgId, params.id);
        if (!ticket || !isUuid(params.message_id)) throw AppError.notFound("No such email.");
        const [row] = await deps.db
          .select()
          .from(ticketInboundEmails)
          .where(
            and(eq(ticketInboundEmails.orgId, orgId), eq(ticketInboundEmails.ticketId, ticket.id), eq(ticketInboundEmails.ticketMessageId, params.message_id)),
          );
        if (!row) throw AppError.notFound("No such email.");
        return {
          message_id: row.messageId,
          from: row.fromAddress,
          from_customer: row.fromCustomer,
          authentication: row.authResults,
          dmarc: row.dmarc,
          claimed_ticket_id: row.claimedTicketId,
          subject: row.subject,
          original: row.original,
          attachments: row.attachments,
          received_at: row.createdAt.toISOString(),
        };
      },
      {
        params: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }), message_id: t.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: InboundEmailJson, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        detail: { summary: "The original of a customer message that came by email (quoted history included; attachments listed, not kept)", tags },
      },
    );
}
