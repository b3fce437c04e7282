// Two-way translation in the inbox (README "Languages" → "Translation"). Written only by
// src/translation/.
//   * org_translation_settings: which translator an org chose — its configured language model, a
//     LibreTranslate server or DeepL. The key is AES-256-GCM encrypted (crypto/fields.ts, context
//     `org_translation_settings.api_key:<org_id>`) and never returned; the URL is checked by the
//     outbound guard when saved and on every request.
//   * message_translations: one text per message and language, so a page view never asks the
//     translator twice. `kind` says what the row holds: `translation` — a customer message put
//     into a member's language; `original` — what a member wrote before their reply was sent in
//     the customer's language (the message's own body holds what was sent).
import { pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";

export type TranslationProvider = "model" | "libretranslate" | "deepl";

export const orgTranslationSettings = pgTable("org_translation_settings", {
  orgId: uuid("org_id")
    .primaryKey()
    .references(() => orgs.id, { onDelete: "cascade" }),
  provider: text("provider").$type<TranslationProvider>().notNull(),
  baseUrl: text("base_url"),
  /** Ciphertext (context `org_translation_settings.api_key:<org_id>`), or null when none is set. */
  apiKey: text("api_key"),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

export const messageTranslations = pgTable(
  "message_translations",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    /** A ticket message's or a chat message's id (both uuids); the row goes with the org. */
    messageId: uuid("message_id").notNull(),
    /** The language `text` is in (ISO 639-1). */
    language: text("language").notNull(),
    kind: text("kind").$type<"translation" | "original">().notNull(),
    /** The language the other side is in (the source of a translation; the sent language of an original). */
    otherLanguage: text("other_language").notNull(),
    text: text("text").notNull(),
    /** Which translator made it (model, libretranslate, deepl). */
    provider: text("provider").$type<TranslationProvider>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.messageId, t.language] })],
);
