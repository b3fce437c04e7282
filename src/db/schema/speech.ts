// The speech servers an org admin chose over the operator's (README "Voice and video"): an
// OpenAI-compatible speech-to-text and text-to-speech server each, or neither. The API keys are
// AES-256-GCM encrypted (crypto/fields.ts) and never returned; the base URLs are checked by the
// outbound guard when saved and on every request.
import { pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { orgs } from "./core.ts";

export const orgSpeechSettings = pgTable("org_speech_settings", {
  orgId: uuid("org_id")
    .primaryKey()
    .references(() => orgs.id, { onDelete: "cascade" }),
  sttBaseUrl: text("stt_base_url"),
  sttModel: text("stt_model"),
  /** Ciphertext (context `org_speech_settings.stt_api_key:<org_id>`), or null. */
  sttApiKey: text("stt_api_key"),
  ttsBaseUrl: text("tts_base_url"),
  ttsModel: text("tts_model"),
  ttsVoice: text("tts_voice"),
  /** Ciphertext (context `org_speech_settings.tts_api_key:<org_id>`), or null. */
  ttsApiKey: text("tts_api_key"),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});
