// A ticket in the member's language (README "Languages" → "Translation"): each customer message in
// another language shown translated with the original one click away, each reply that was sent
// translated shown as the member wrote it with what the customer received beside it, a plain line
// when no translator is configured, and the reply form's "send in the customer's language" option
// (on by default when the customer's language is not the member's). Through src/translation/.
import { type Html, html } from "../html/html.ts";
import type { Ticket } from "../inbox/tickets.ts";
import { languageName } from "../translation/model.ts";
import { ticketLanguages } from "../translation/reply.ts";
import { translationView } from "../translation/settings.ts";
import { type Shown, type StoredText, storedTexts, translateForMember } from "../translation/store.ts";
import { checkbox, type DashboardContext, type FormValues } from "./kit/index.ts";

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

/** The text of one turn in the member's language, or undefined to show it as it is. */
export function translatedBody(t: TicketTranslation, turn: { id: string; text: string }): Html | undefined {
  const shown = t.shown.get(turn.id);
  if (shown) {
    const name = languageName(shown.from);
    const original = html`<details class="original"><summary>Original (${name})</summary><div class="turn-text" lang="${shown.from}">${turn.text}</div></details>`;
    if (shown.state === "translated")
      return html`<p class="muted small">Translated from ${name}</p><div class="turn-text" lang="${t.member}">${shown.text}</div>${original}`;
    if (shown.state === "failed")
      return html`<div class="turn-text" lang="${shown.from}">${turn.text}</div><p class="error small">Not translated from ${name}: ${shown.error}</p>`;
    return html`<div class="turn-text" lang="${shown.from}">${turn.text}</div><p class="muted small">In ${name}; not translated${t.unavailable ? "" : " yet (it is, when the ticket is opened again)"}.</p>`;
  }
  const original = t.originals.get(turn.id);
  if (!original) return undefined;
  const sent = languageName(original.otherLanguage);
  return html`<p class="muted small">Sent to the customer in ${sent}; as you wrote it:</p><div class="turn-text" lang="${original.language}">${original.text}</div><details class="original"><summary>What the customer received (${sent})</summary><div class="turn-text" lang="${original.otherLanguage}">${turn.text}</div></details>`;
}

/** The line above the thread when customer messages could not be translated at all. */
export function translationNotice(t: TicketTranslation): Html | "" {
  return t.unavailable ? html`<p class="flash" role="status">${t.unavailable}</p>` : "";
}

/**
 * The reply form's option: when the customer's language is known and not the member's. Checked by
 * default; after a refused post, as it was posted.
 */
export function translateOption(t: TicketTranslation, values: FormValues): Html | "" {
  if (t.customer === null || t.customer === t.member) return "";
  const name = languageName(t.customer);
  if (!t.configured)
    return html`<p class="muted small">The customer writes in ${name}. No translator is configured (Settings → Translation), so replies go as written.</p>`;
  const posted = values.reply !== undefined;
  return checkbox({
    name: "translate",
    label: `Send in the customer's language (${name})`,
    checked: posted ? values.translate === "on" : true,
    hint: `Translated from ${languageName(t.member)} before it is sent; you and your team keep seeing what you wrote. If the translator fails, nothing is sent.`,
  });
}
