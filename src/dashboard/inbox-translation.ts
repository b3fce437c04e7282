// A ticket in the member's language (README "Languages" → "Translation"): each customer message in
// another language shown translated with the original one click away, each reply that was sent
// translated shown as the member wrote it with what the customer received beside it, a plain line
// when no translator is configured, and the reply form's "send in the customer's language" option
// (on by default when the customer's language is not the member's). Through src/translation/;
// drawn by views/ticket-translation.ts.
import type { Ticket } from "../inbox/tickets.ts";
import { ticketLanguages } from "../translation/reply.ts";
import { translationView } from "../translation/settings.ts";
import { type Shown, type StoredText, storedTexts, translateForMember } from "../translation/store.ts";
import type { DashboardContext } from "./kit/index.ts";

export interface TicketTranslation {
  member: string;
  customer: string | null;
  configured: boolean;
  shown: Map<string, Shown>;
  originals: Map<string, StoredText>;
  unavailable: string | null;
}

export async function ticketTranslation(
  ctx: DashboardContext,
  ticket: Ticket,
  turns: { id: string; kind: string; text: string }[],
): Promise<TicketTranslation> {
  const { deps, orgId } = ctx;
  const [languages, view] = await Promise.all([ticketLanguages(deps, ticket, ctx.principal.member.id), translationView(deps, orgId)]);
  const customerTurns = turns.filter((t) => t.kind === "customer").map((t) => ({ id: t.id, text: t.text }));
  const fallback = ticket.language ?? languages.customer;
  const [translated, stored] = await Promise.all([
    translateForMember(deps, orgId, languages.member, customerTurns, fallback),
    storedTexts(
      deps,
      orgId,
      turns.filter((t) => t.kind === "person").map((t) => t.id),
    ),
  ]);
  return {
    ...languages,
    configured: view.provider !== null,
    shown: translated.shown,
    originals: new Map(stored.filter((r) => r.kind === "original").map((r) => [r.messageId, r])),
    unavailable: translated.unavailable,
  };
}
