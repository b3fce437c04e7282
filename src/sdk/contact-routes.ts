// POST /api/sdk/conversations/{session_id}/contact (README "Live conversation", "Customers who can
// be reached"): at hand-off an anonymous visitor may leave an email address, so a person's reply
// still reaches them once the tab is closed (src/inbox/reply-mail.ts). Widget key and SDK rate
// limits first, as every keyed SDK route. The session id proves the conversation, nothing more: the
// address is stored as an unverified claim on a new visitor record (src/inbox/ticket-customer.ts),
// never on an existing customer, and a conversation whose customer is known is refused.
import { Elysia, t } from "elysia";
import { CHAT_LIMITS } from "../conversations/input.ts";
import { sessionOf } from "../conversations/sessions.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { claimTicketContact } from "../inbox/ticket-customer.ts";
import { requireWidgetKey } from "./auth.ts";
import { IDENTITY_LIMITS } from "./identity.ts";
import { limitSdkRequest } from "./limits.ts";

/**
 * An address a person could write to: a local part, `@`, and a domain of at least two labels,
 * no spaces or control characters. The widget checks the same pattern before sending.
 */
export const CONTACT_EMAIL_PATTERN = "^[^\\s@\\x00-\\x1f\\x7f]+@[^\\s@.\\x00-\\x1f\\x7f]+(\\.[^\\s@.\\x00-\\x1f\\x7f]+)+$";

const Params = t.Object({ session_id: t.String({ minLength: 1, maxLength: CHAT_LIMITS.sessionId, description: "The chat's X-Session-Id." }) });
const Body = t.Object(
  {
    email: t.String({ minLength: 5, maxLength: IDENTITY_LIMITS.email, pattern: CONTACT_EMAIL_PATTERN, description: "Stored lower-cased, marked unverified." }),
  },
  { additionalProperties: false },
);
const Answer = t.Object({
  ticket_number: t.Integer(),
  email: t.String(),
  verified: t.Literal(false, { description: "Always false: nobody proved the address is the visitor's." }),
});

export function contactRoutes(deps: Pick<Deps, "config" | "db" | "limiter" | "live" | "now" | "widgetKeys">) {
  return new Elysia({ name: "sdk-contact" })
    .derive(async ({ request, path }) => {
      if (!/^\/api\/sdk\/conversations\/[^/]+\/contact$/.test(path)) return {};
      const auth = await requireWidgetKey(deps, request);
      await limitSdkRequest(deps, auth, request);
      return { auth };
    })
    .post(
      "/api/sdk/conversations/:session_id/contact",
      async ({ params, body, auth }) => {
        const orgId = auth!.orgId;
        const conversation = await sessionOf(deps, orgId, params.session_id);
        if (!conversation) throw AppError.notFound("No such conversation.");
        // A customer's conversation: their address is theirs to set through identify, with proof.
        if (!conversation.anonymous)
          throw new AppError(409, "customer_known", "This conversation belongs to an identified customer; their address comes from identify.");
        if (!conversation.ticketId)
          throw new AppError(409, "no_ticket", "This conversation was not handed to a person: there is no ticket to follow up by email.");
        const { ticket, customer } = await claimTicketContact(deps, {
          orgId,
          ticketId: conversation.ticketId,
          conversationId: conversation.id,
          email: body.email,
        });
        return { ticket_number: ticket.number, email: customer.email!, verified: false as const };
      },
      {
        params: Params,
        body: Body,
        response: { 200: Answer, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 429: ErrorBody },
        detail: {
          summary:
            "An anonymous visitor's email address for the conversation's waiting ticket (optional; stored unverified, so a person's reply reaches them by email)",
          tags: ["Widget SDK"],
          security: [{ widgetKey: [] }],
        },
      },
    );
}
