// `inbox_reply` with an optional `translate: true` (README "Languages" → "Translation"): the reply is
// sent in the customer's language with the original kept for members, as the dashboard and
// /api/tickets/{id}/replies do (reply.ts). The inbox family is wrapped here, where the translator is
// within reach, and listed in src/compose.ts. Only a member's client (an OAuth token) may ask for
// it: an AI agent in a chat already answers in the customer's language, and a call bound to a
// customer must not reach a member's translator. A translator's refusal or outage, like a closed
// ticket, is a result the caller can act on (isError, nothing sent), not a transport error.
import { AppError } from "../errors.ts";
import { findTicket, type InboxActor } from "../inbox/tickets.ts";
import { body, ticketRef } from "../inbox/tool-schemas.ts";
import { Arg, defineTool } from "../tools/define.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "../tools/types.ts";
import type { Static } from "@sinclair/typebox";
import { sendReply } from "./reply.ts";

/** inbox_reply's arguments (src/inbox/tools.ts) and `translate`. */
const ReplyInput = Arg.object(
  {
    ticket: ticketRef,
    body,
    translate: Arg.optional(
      Arg.boolean({
        description:
          "Send the reply in the customer's language (translated from yours by the organisation's translator), " +
          "the original kept for the team. If it cannot be translated nothing is sent and the result says why.",
      }),
    ),
  },
  { additionalProperties: false },
);

async function translatedReply(ctx: ToolContext, args: Static<typeof ReplyInput>): Promise<ToolResult> {
  if (ctx.channel === "chat" || ctx.boundCustomer || (ctx.actor.kind !== "member" && ctx.actor.kind !== "token"))
    throw AppError.badRequest("translate is for a member's client, not a chat or a call made for a customer.", [
      { path: "/translate", message: "is only for a member's client" },
    ]);
  const ticket = await findTicket(ctx.deps, ctx.orgId, args.ticket);
  if (!ticket) throw AppError.notFound(`No ticket ${args.ticket}.`);
  try {
    return { value: await sendReply(ctx.deps, { orgId: ctx.orgId, actor: ctx.actor as InboxActor, ticket, body: args.body, translate: true }) };
  } catch (error) {
    if (error instanceof AppError && (error.status === 409 || error.code === "translation_failed"))
      return { value: { error: error.code, message: error.message }, isError: true };
    throw error;
  }
}

/** The inbox family with `inbox_reply` taking `translate`. */
export function withTranslatedReply(tools: readonly ToolDefinition[]): ToolDefinition[] {
  return tools.map((tool) => {
    if (tool.name !== "inbox_reply") return tool;
    const { name, title = name, scope, source, readOnly, destructive, idempotent, openWorld, defaultEnabled } = tool;
    return defineTool({
      name,
      title,
      scope,
      source,
      readOnly,
      destructive,
      idempotent,
      openWorld,
      defaultEnabled,
      description: `${tool.description} With translate: true, it is sent in the customer's language.`,
      input: ReplyInput,
      execute: (ctx, args) => (args.translate === true ? translatedReply(ctx, args) : tool.execute(ctx, args)),
    });
  });
}
