// An org's own wording of the catalogue's sentences (README "Languages"): one row per language and
// key, the message in ICU message format, checked against the catalogue on save (src/texts/).
import { pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";

export const orgTexts = pgTable(
  "org_texts",
  {
    orgId: uuid("org_id")
      .notNull()
      .references(() => orgs.id, { onDelete: "cascade" }),
    /** ISO 639-1 (src/kit/language.ts normalizeLanguage). */
    language: text("language").notNull(),
    /** A key of src/i18n/en.ts. */
    key: text("key").notNull(),
    message: text("message").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.language, t.key] })],
);
