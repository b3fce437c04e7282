// Customer satisfaction (README "CSAT"): a resolved ticket's customer rates it 1–5 with an optional
// comment, once — in the widget, or through the link of the resolution email. The rating is kept on
// the ticket with who answered it (a person, or only the AI), recorded in the history and sent as
// `conversation.rated`. A link's token is stored as its SHA-256 only and expires; a second rating
// of a rated ticket changes nothing and answers the rating already given.
import { and, eq, inArray } from "drizzle-orm";
import { mintToken, sha256Hex } from "../crypto/tokens.ts";
import type { Conn } from "../db/client.ts";
import { ticketCsatTokens, ticketHistory, ticketMessages, tickets } from "../db/schema/index.ts";
import type { CsatHandledBy } from "../db/schema/inbox.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { isUuid } from "../kit/ids.ts";
import { emitWebhookEvent } from "../webhooks/events.ts";

export const CSAT_LIMITS = { comment: 2000, linkDays: 14 };

export interface Rating {
  ticket_id: string;
  ticket_number: number;
  score: number;
  comment: string | null;
  handled_by: CsatHandledBy;
  rated_at: string;
  /** False when the ticket was rated before: nothing changed. */
  recorded: boolean;
}

function checkRating(score: number, comment: string | null | undefined): string | null {
  if (!Number.isInteger(score) || score < 1 || score > 5)
    throw AppError.badRequest("score must be an integer from 1 to 5.", [{ path: "/score", message: "must be an integer from 1 to 5" }]);
  const text = comment?.trim() ?? "";
  if (text.length > CSAT_LIMITS.comment)
    throw AppError.badRequest(`comment is longer than ${CSAT_LIMITS.comment} characters.`, [
      { path: "/comment", message: `must be at most ${CSAT_LIMITS.comment} characters` },
    ]);
  return text === "" ? null : text;
}

type TicketRow = typeof tickets.$inferSelect;
const ratingOf = (t: TicketRow, recorded: boolean): Rating => ({
  ticket_id: t.id,
  ticket_number: t.number,
  score: t.csatScore!,
  comment: t.csatComment,
  handled_by: t.csatHandledBy!,
  rated_at: t.csatAt!.toISOString(),
  recorded,
});

/** Rates a resolved (or closed) ticket once. Another rating of a rated ticket answers the first one. */
export async function rateTicket(
  deps: Pick<Deps, "db" | "now">,
  input: { orgId: string; ticketId: string; score: number; comment?: string | null; conversationId?: string },
): Promise<Rating> {
  const comment = checkRating(input.score, input.comment);
  if (!isUuid(input.ticketId)) throw AppError.notFound("No such ticket.");
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const [ticket] = await tx
      .select()
      .from(tickets)
      .where(and(eq(tickets.orgId, input.orgId), eq(tickets.id, input.ticketId)))
      .for("update");
    if (!ticket || (input.conversationId !== undefined && ticket.conversationId !== input.conversationId)) throw AppError.notFound("No such ticket.");
    if (ticket.csatScore !== null) return ratingOf(ticket, false);
    if (ticket.status !== "resolved" && ticket.status !== "closed") throw new AppError(409, "not_resolved", "Only a resolved ticket can be rated.");
    const [person] = await tx
      .select({ id: ticketMessages.id })
      .from(ticketMessages)
      .where(and(eq(ticketMessages.ticketId, ticket.id), eq(ticketMessages.kind, "reply"), inArray(ticketMessages.authorKind, ["member", "token"])))
      .limit(1);
    const handledBy: CsatHandledBy = person ? "person" : "ai";
    const [rated] = await tx
      .update(tickets)
      .set({ csatScore: input.score, csatComment: comment, csatHandledBy: handledBy, csatAt: now })
      .where(eq(tickets.id, ticket.id))
      .returning();
    await tx.insert(ticketHistory).values({
      orgId: ticket.orgId,
      ticketId: ticket.id,
      actorKind: "customer",
      actorName: ticket.endUserId,
      action: "csat",
      before: null,
      after: { score: input.score, comment },
      createdAt: now,
    });
    const rating = ratingOf(rated!, true);
    await emitWebhookEvent(tx, {
      orgId: ticket.orgId,
      type: "conversation.rated",
      data: {
        conversation_id: ticket.conversationId,
        ticket_id: ticket.id,
        ticket_number: ticket.number,
        score: rating.score,
        comment,
        handled_by: handledBy,
        updated_at: rating.rated_at,
      },
      now,
    });
    return rating;
  });
}

/** A ticket's status and rating, for the widget's prompt. */
export async function ticketRating(deps: Pick<Deps, "db">, orgId: string, ticketId: string): Promise<{ status: string; score: number | null } | null> {
  const [row] = await deps.db
    .select({ status: tickets.status, score: tickets.csatScore })
    .from(tickets)
    .where(and(eq(tickets.orgId, orgId), eq(tickets.id, ticketId)));
  return row ?? null;
}

/** A rating link's token for a ticket, valid for CSAT_LIMITS.linkDays; only its SHA-256 is stored. */
export async function issueCsatToken(conn: Conn, input: { orgId: string; ticketId: string; now: Date }): Promise<string> {
  const token = mintToken("");
  const expiresAt = new Date(input.now.getTime() + CSAT_LIMITS.linkDays * 24 * 3600 * 1000);
  await conn.insert(ticketCsatTokens).values({ tokenHash: sha256Hex(token), orgId: input.orgId, ticketId: input.ticketId, createdAt: input.now, expiresAt });
  return token;
}

/** The ticket a link's token names: 404 for a token never issued, 410 once it expired. */
export async function ticketOfCsatToken(
  deps: Pick<Deps, "db" | "now">,
  token: string,
): Promise<{ orgId: string; ticketId: string; number: number; language: string | null; rating: Rating | null }> {
  const [row] =
    token.length > 0 && token.length <= 128
      ? await deps.db
          .select({ token: ticketCsatTokens, ticket: tickets })
          .from(ticketCsatTokens)
          .innerJoin(tickets, eq(tickets.id, ticketCsatTokens.ticketId))
          .where(eq(ticketCsatTokens.tokenHash, sha256Hex(token)))
      : [];
  if (!row) throw AppError.notFound("This rating link is not valid.");
  if (row.token.expiresAt.getTime() <= deps.now().getTime()) throw new AppError(410, "link_expired", "This rating link has expired.");
  return {
    orgId: row.token.orgId,
    ticketId: row.ticket.id,
    number: row.ticket.number,
    language: row.ticket.language,
    rating: row.ticket.csatScore === null ? null : ratingOf(row.ticket, false),
  };
}

/** Rates through a link: the token is checked first, then the ticket is rated once. */
export async function rateByToken(deps: Pick<Deps, "db" | "now">, token: string, score: number, comment?: string | null): Promise<Rating> {
  const found = await ticketOfCsatToken(deps, token);
  return rateTicket(deps, { orgId: found.orgId, ticketId: found.ticketId, score, comment });
}
