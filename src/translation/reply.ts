// A member's reply sent in the customer's language (README "Languages" → "Translation"): the text
// is translated first, then stored and sent as any reply is (src/inbox/ticket-writes.ts) — the
// widget's events and the reply email carry the translation — with the member's original kept
// beside it (message_translations, kind `original`) in the same transaction, for members only.
// A translator that refuses or is out throws before anything is stored: the reply is not sent,
// never sent half-translated, and the caller keeps the text.
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { detectLanguage } from "../kit/language.ts";
import { addTicketMessage, type InboxActor, type Ticket, TICKET_LIMITS, type TicketMessageView, ticketThread } from "../inbox/tickets.ts";
import { memberLanguage } from "../tenancy/members.ts";
import { isTranslationError, TRANSLATION_LIMITS, translationUnavailable } from "./errors.ts";
import { languageName } from "./model.ts";
import { translatorFor } from "./settings.ts";
import { storeText } from "./store.ts";

/**
 * The member's reading language, and the customer's: the language of their latest message when it
 * can be told (a customer who opened the chat in English and went on in Spanish is answered in
 * Spanish), else the ticket's; null when neither tells.
 */
export async function ticketLanguages(deps: Pick<Deps, "db">, ticket: Ticket, memberId: string | null): Promise<{ member: string; customer: string | null }> {
  const member = (memberId ? await memberLanguage(deps.db, memberId) : null) ?? "en";
  const last = (await ticketThread(deps, ticket)).filter((m) => m.kind === "customer").at(-1);
  return { member, customer: (last ? await detectLanguage(last.body) : null) ?? ticket.language ?? null };
}

const memberOf = (actor: InboxActor): string | null => (actor.kind === "member" || actor.kind === "token" ? actor.memberId : null);

export type ReplyResult = TicketMessageView & { original?: { language: string; body: string } };

/**
 * Adds a reply to `ticket`; with `translate`, in the customer's language when it differs from the
 * member's. 409 translation_unavailable when it cannot be translated (no translator, the
 * customer's language unknown), 502 translation_failed when the translator refused or failed:
 * in both cases nothing is stored or sent.
 */
export async function sendReply(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "live" | "log" | "metrics" | "now" | "statements" | "timers">,
  input: { orgId: string; actor: InboxActor; ticket: Ticket; body: string; translate: boolean },
): Promise<ReplyResult> {
  const { orgId, actor, ticket, body } = input;
  const plain = () => addTicketMessage(deps, { orgId, actor, ticketId: ticket.id, kind: "reply", body });
  if (!input.translate) return plain();
  const languages = await ticketLanguages(deps, ticket, memberOf(actor));
  if (languages.customer === null)
    throw translationUnavailable(
      "The customer's language is not known yet, so the reply cannot be translated. Nothing was sent: send it without translation, or wait for their message.",
    );
  if (languages.customer === languages.member) return plain(); // nothing to translate
  if (body.length > TRANSLATION_LIMITS.text)
    throw AppError.badRequest("The reply is too long to translate.", [
      { path: "/body", message: `must be at most ${TRANSLATION_LIMITS.text} characters to translate` },
    ]);
  const translator = await translatorFor(deps, orgId);
  if (!translator)
    throw translationUnavailable(
      "No translator is configured (Settings → Translation), so the reply cannot be sent in the customer's language. Nothing was sent.",
    );
  let translated: string;
  try {
    translated = await translator.translate({ text: body, from: languages.member, to: languages.customer });
  } catch (error) {
    if (!isTranslationError(error)) throw error;
    throw new AppError(error.status, error.code, `${error.message} The reply was not sent.`);
  }
  if (translated.length > TICKET_LIMITS.body)
    throw new AppError(
      502,
      "translation_failed",
      `Translation failed: the ${languageName(languages.customer)} text is longer ` +
        `than a reply may be (${TICKET_LIMITS.body} characters). The reply was not sent.`,
    );
  const { member, customer } = languages;
  const sent = await addTicketMessage(deps, {
    orgId,
    actor,
    ticketId: ticket.id,
    kind: "reply",
    body: translated,
    withMessage: (tx, messageId) =>
      storeText(tx, orgId, { messageId, language: member, kind: "original", otherLanguage: customer, text: body, provider: translator.provider }),
  });
  return { ...sent, original: { language: member, body } };
}
