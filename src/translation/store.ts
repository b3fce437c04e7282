// The texts translation made, one per message and language (message_translations), so a page
// view never asks the translator twice; and the translation of customer messages for a member.
//
// When: while the member opens the ticket (README "Languages" → "Translation"). At most
// TRANSLATION_LIMITS.perView messages are sent to the translator per view, one after another, each
// bounded by the translator's deadline; the first failure stops the rest (an outage would fail them
// all); what is left is translated on the next view. Stored translations are read, never redone.
import { and, eq, inArray } from "drizzle-orm";
import type { Conn } from "../db/client.ts";
import { messageTranslations, type TranslationProvider } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { isUuid } from "../kit/ids.ts";
import { detectLanguage } from "../kit/language.ts";
import { isTranslationError, TRANSLATION_LIMITS } from "./errors.ts";
import { translatorFor } from "./settings.ts";

export interface StoredText {
  messageId: string;
  language: string;
  kind: "translation" | "original";
  otherLanguage: string;
  text: string;
  provider: TranslationProvider;
}

/** Every stored text of these messages (of this org). */
export async function storedTexts(deps: Pick<Deps, "db">, orgId: string, messageIds: string[]): Promise<StoredText[]> {
  const ids = messageIds.filter(isUuid);
  if (ids.length === 0) return [];
  return deps.db
    .select({
      messageId: messageTranslations.messageId,
      language: messageTranslations.language,
      kind: messageTranslations.kind,
      otherLanguage: messageTranslations.otherLanguage,
      text: messageTranslations.text,
      provider: messageTranslations.provider,
    })
    .from(messageTranslations)
    .where(and(eq(messageTranslations.orgId, orgId), inArray(messageTranslations.messageId, ids)));
}

/** Stores one text; a row already there for the message and language wins (two views at once translate once each, store once). */
export async function storeText(db: Conn, orgId: string, row: StoredText): Promise<void> {
  await db
    .insert(messageTranslations)
    .values({ orgId, ...row })
    .onConflictDoNothing();
}

/** What the ticket page shows for one customer message. */
export type Shown = { state: "translated"; from: string; text: string } | { state: "failed"; from: string; error: string } | { state: "later"; from: string };

export interface CustomerTranslations {
  /** By message id; messages already in the member's language (or of unknown language) are absent. */
  shown: Map<string, Shown>;
  /** Why nothing could be translated (no translator configured, …); null when a translator is there or none was needed. */
  unavailable: string | null;
}

/**
 * The customer messages of a ticket in the member's `language`: stored translations, and up to
 * TRANSLATION_LIMITS.perView new ones. A message's language is detected from its text, else the
 * ticket's (`fallback`).
 */
export async function translateForMember(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "log" | "metrics" | "statements" | "timers">,
  orgId: string,
  language: string,
  messages: { id: string; text: string }[],
  fallback: string | null,
): Promise<CustomerTranslations> {
  const shown = new Map<string, Shown>();
  const stored = new Map(
    (
      await storedTexts(
        deps,
        orgId,
        messages.map((m) => m.id),
      )
    )
      .filter((r) => r.kind === "translation" && r.language === language)
      .map((r) => [r.messageId, r]),
  );
  const todo: { id: string; text: string; from: string }[] = [];
  for (const message of messages) {
    const row = stored.get(message.id);
    if (row) {
      shown.set(message.id, { state: "translated", from: row.otherLanguage, text: row.text });
      continue;
    }
    const from = (await detectLanguage(message.text)) ?? fallback;
    if (from === null || from === language || !isUuid(message.id)) continue;
    todo.push({ id: message.id, text: message.text, from });
  }
  if (todo.length === 0) return { shown, unavailable: null };
  let translator: Awaited<ReturnType<typeof translatorFor>>;
  try {
    translator = await translatorFor(deps, orgId);
  } catch (error) {
    if (!isTranslationError(error)) throw error;
    for (const m of todo) shown.set(m.id, { state: "later", from: m.from });
    return { shown, unavailable: error.message };
  }
  if (!translator) {
    for (const m of todo) shown.set(m.id, { state: "later", from: m.from });
    return {
      shown,
      unavailable: "No translator is configured, so these messages are shown as the customer wrote them. An admin can choose one under Settings → Translation.",
    };
  }
  let failure: string | null = null;
  for (const [i, m] of todo.entries()) {
    if (failure !== null || i >= TRANSLATION_LIMITS.perView) {
      shown.set(m.id, failure === null ? { state: "later", from: m.from } : { state: "failed", from: m.from, error: failure });
      continue;
    }
    if (m.text.length > TRANSLATION_LIMITS.text) {
      shown.set(m.id, { state: "failed", from: m.from, error: `The message is longer than ${TRANSLATION_LIMITS.text} characters, too long to translate.` });
      continue;
    }
    try {
      const text = await translator.translate({ text: m.text, from: m.from, to: language });
      await storeText(deps.db, orgId, { messageId: m.id, language, kind: "translation", otherLanguage: m.from, text, provider: translator.provider });
      shown.set(m.id, { state: "translated", from: m.from, text });
    } catch (error) {
      if (!isTranslationError(error)) throw error;
      failure = error.message;
      shown.set(m.id, { state: "failed", from: m.from, error: failure });
    }
  }
  return { shown, unavailable: null };
}
