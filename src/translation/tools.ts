// `inbox_reply` with an optional `translate: true` (README "Languages" → "Translation"): the reply is
// sent in the customer's language with the original kept for members, as the dashboard and
// /api/tickets/{id}/replies do (reply.ts). The inbox family is wrapped here, where the translator is
// within reach, and listed in src/compose.ts. Only a member's client (an OAuth token) may ask for
// it: an AI agent in a chat already answers in the customer's language, and a call bound to a
// customer must not reach a member's translator. A translator's refusal or outage, like a closed
// ticket, is a result the caller can act on (isError, nothing sent), not a transport error.
import { AppError } from "../errors.ts";
import { findTicket, type InboxActor } from "../inbox/tickets.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "../tools/types.ts";
import { sendReply } from "./reply.ts";

const TRANSLATE = {
  type: "boolean",
  description:
    "Send the reply in the customer's language (translated from yours by the organisation's translator), the original kept for the team. If it cannot be translated nothing is sent and the result says why.",
};

async function translatedReply(ctx: ToolContext, args: Record<string, unknown>): Promise<ToolResult> {
  if (ctx.channel === "chat" || ctx.boundCustomer || (ctx.actor.kind !== "member" && ctx.actor.kind !== "token"))
    throw AppError.badRequest("translate is for a member's client, not a chat or a call made for a customer.", [
      { path: "/translate", message: "is only for a member's client" },
    ]);
  const ticket = await findTicket(ctx.deps, ctx.orgId, args.ticket as string);
  if (!ticket) throw AppError.notFound(`No ticket ${String(args.ticket)}.`);
  try {
    return { value: await sendReply(ctx.deps, { orgId: ctx.orgId, actor: ctx.actor as InboxActor, ticket, body: args.body as string, translate: true }) };
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
    const schema = tool.inputSchema as { properties: Record<string, unknown> };
    return {
      ...tool,
      description: `${tool.description} With translate: true, it is sent in the customer's language.`,
      inputSchema: { ...tool.inputSchema, properties: { ...schema.properties, translate: TRANSLATE } },
      execute: (ctx, args) => (args.translate === true ? translatedReply(ctx, args) : tool.execute(ctx, args)),
    };
  });
}
