// A ticket in the member's language (README "Languages" → "Translation"): a customer message in
// another language shown translated with the original one click away, a reply sent translated
// shown as the member wrote it with what the customer received beside it, the line saying when
// messages could not be translated, and the reply form's "send in the customer's language" option.
import type { TicketTranslation } from "../inbox-translation.ts";
import { type Html, html } from "../../html/html.ts";
import { languageName } from "../../i18n/catalogue.ts";
import { checkbox, type FormValues } from "../kit/fields.ts";

/** The text of one turn in the member's language, or undefined to show it as it is. */
export function translatedBody(t: TicketTranslation, turn: { id: string; text: string }): Html | undefined {
  const shown = t.shown.get(turn.id);
  if (shown) {
    const name = languageName(shown.from);
    const asReceived = html`<div class="turn-text" lang="${shown.from}">${turn.text}</div>`;
    const original = html`<details class="original"><summary>Original (${name})</summary>${asReceived}</details>`;
    if (shown.state === "translated")
      return html`<p class="muted small">Translated from ${name}</p><div class="turn-text" lang="${t.member}">${shown.text}</div>${original}`;
    if (shown.state === "failed") return html`${asReceived}<p class="error small">Not translated from ${name}: ${shown.error}</p>`;
    const later = t.unavailable ? "" : " yet (it is, when the ticket is opened again)";
    return html`${asReceived}<p class="muted small">In ${name}; not translated${later}.</p>`;
  }
  const original = t.originals.get(turn.id);
  if (!original) return undefined;
  const sent = languageName(original.otherLanguage);
  const written = html`<div class="turn-text" lang="${original.language}">${original.text}</div>`;
  const received = html`<div class="turn-text" lang="${original.otherLanguage}">${turn.text}</div>`;
  const receivedPanel = html`<details class="original"><summary>What the customer received (${sent})</summary>${received}</details>`;
  return html`<p class="muted small">Sent to the customer in ${sent}; as you wrote it:</p>${written}${receivedPanel}`;
}

/** The line above the thread when customer messages could not be translated at all. */
export function translationNotice(t: TicketTranslation): Html | "" {
  return t.unavailable ? html`<p class="flash" role="status">${t.unavailable}</p>` : "";
}

const FAILS = "If the translator fails, nothing is sent.";

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
    hint: `Translated from ${languageName(t.member)} before it is sent; you and your team keep seeing what you wrote. ${FAILS}`,
  });
}
