// The org-wide language model an org admin chose over the operator's default.
// An agent's own `llm_override` (core.ts) wins over this row. The API key is AES-256-GCM
// encrypted (crypto/fields.ts) and never returned; the base URL is checked by the outbound
// guard when saved and on every request.
import { pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";

export const orgLlmSettings = pgTable("org_llm_settings", {
  orgId: uuid("org_id")
    .primaryKey()
    .references(() => orgs.id, { onDelete: "cascade" }),
  provider: text("provider").$type<"builtin" | "openai" | "anthropic">().notNull(),
  baseUrl: text("base_url"),
  model: text("model"),
  /** Ciphertext (context `org_llm_settings.api_key:<org_id>`), or null when none is set. */
  apiKey: text("api_key"),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
