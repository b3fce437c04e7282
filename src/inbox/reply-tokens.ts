// The ticket a reply address stands for: reply tokens are minted with the reply email
// (src/inbox/reply-mail.ts, only their SHA-256 stored) and looked up here when mail comes back.
import { and, eq, gt } from "drizzle-orm";
import { sha256Hex } from "../crypto/tokens.ts";
import { ticketReplyTokens } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";

/** The org, ticket and customer of an unexpired reply token, or null. */
export async function replyTokenTarget(
  deps: Pick<Deps, "db" | "now">,
  token: string,
): Promise<{ orgId: string; ticketId: string; endUserId: string | null } | null> {
  const [row] = await deps.db
    .select({ orgId: ticketReplyTokens.orgId, ticketId: ticketReplyTokens.ticketId, endUserId: ticketReplyTokens.endUserId })
    .from(ticketReplyTokens)
    .where(and(eq(ticketReplyTokens.tokenHash, sha256Hex(token)), gt(ticketReplyTokens.expiresAt, deps.now())));
  return row ?? null;
}
