// "Did that help?" (README "Reports"): the customer's yes or no on one of the agent's replies,
// kept on that reply. A yes counts as a confirmed AI resolution; the latest answer counts.
import { and, desc, eq, inArray } from "drizzle-orm";
import { conversationMessages, conversations } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";

/** Records the answer on `messageId`, or on the conversation's latest complete agent reply. */
export async function recordFeedback(
  deps: Pick<Deps, "db" | "now">,
  input: { orgId: string; conversationId: string; messageId?: string; helpful: boolean },
): Promise<{ message_id: string; helpful: boolean }> {
  if (input.messageId !== undefined && !isUuid(input.messageId)) throw AppError.notFound("No such message.");
  const [reply] = await deps.db
    .select({ id: conversationMessages.id })
    .from(conversationMessages)
    .where(
      and(
        eq(conversationMessages.orgId, input.orgId),
        eq(conversationMessages.conversationId, input.conversationId),
        eq(conversationMessages.role, "agent"),
        eq(conversationMessages.status, "complete"),
        input.messageId ? eq(conversationMessages.id, input.messageId) : undefined,
      ),
    )
    .orderBy(desc(conversationMessages.createdAt), desc(conversationMessages.id))
    .limit(1);
  if (!reply) throw AppError.notFound("No such answer in this conversation.");
  // One statement: the reply's answer and the conversation's latest (src/conversations/report-facts.ts).
  const updated = deps.db
    .$with("updated")
    .as(
      deps.db
        .update(conversationMessages)
        .set({ helpful: input.helpful, helpfulAt: deps.now() })
        .where(eq(conversationMessages.id, reply.id))
        .returning({ conversationId: conversationMessages.conversationId }),
    );
  await deps.db
    .with(updated)
    .update(conversations)
    .set({ helpful: input.helpful })
    .where(and(eq(conversations.orgId, input.orgId), inArray(conversations.id, deps.db.select({ id: updated.conversationId }).from(updated))));
  return { message_id: reply.id, helpful: input.helpful };
}
