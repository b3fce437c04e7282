// The "Voice and video" part of an agent's edit form: voice_config as fields (README "Voice and
// video"); ../agent-voice.ts reads them back with the API's rules.
import { type Html, html } from "../../html/html.ts";
import { checkbox, field, type FieldErrors, type FormValues, select } from "../kit/index.ts";
import type { VOICE_LIMITS } from "../../agents/voice-config.ts";

export interface VoiceFieldsProps {
  values: FormValues;
  errors: FieldErrors;
  limits: typeof VOICE_LIMITS;
}

/** The fields, inside the form's "Voice and video" fieldset. */
export function VoiceFields({ values: v, errors: e, limits: L }: VoiceFieldsProps): Html {
  return html`<input type="hidden" name="voice_form" value="1">
${checkbox({ name: "voice_enabled", label: "Offer voice in the widget (a microphone button)", checked: v.voice_enabled === "on" })}
<div class="grid2">
${field({
  name: "voice_language",
  label: "Language",
  value: v.voice_language,
  error: e.voice_language,
  maxLength: L.language,
  hint: "A BCP 47 tag, e.g. en-GB, fr-FR.",
})}
${field({
  name: "voice_voice",
  label: "Voice",
  value: v.voice_voice,
  error: e.voice_voice,
  maxLength: L.voice,
  hint: "The voice's name (e.g. alloy); empty for the default.",
})}
${select({
  name: "voice_stt",
  label: "Speech to text",
  value: v.voice_stt,
  error: e.voice_stt,
  options: [
    { value: "browser", label: "The browser's recognition (some browsers send audio to their vendor)" },
    { value: "server", label: "This server's speech provider (STT_*)" },
  ],
})}
${select({
  name: "voice_tts",
  label: "Text to speech",
  value: v.voice_tts,
  error: e.voice_tts,
  options: [
    { value: "browser", label: "The browser's voices (default)" },
    { value: "server", label: "This server's speech provider (TTS_*)" },
    { value: "off", label: "Off: captions only" },
  ],
})}
${field({
  name: "voice_rate",
  label: "Speaking rate",
  type: "number",
  value: v.voice_rate,
  error: e.voice_rate,
  hint: `${L.minRate} to ${L.maxRate}; 1 is normal.`,
  attrs: { step: "0.1", min: String(L.minRate), max: String(L.maxRate) },
})}
${field({
  name: "voice_max_seconds",
  label: "Longest recording (seconds)",
  type: "number",
  value: v.voice_max_seconds,
  error: e.voice_max_seconds,
  hint: `${L.minSeconds} to ${L.maxSeconds}.`,
  attrs: { min: String(L.minSeconds), max: String(L.maxSeconds) },
})}
</div>
${checkbox({ name: "voice_auto_listen", label: "Listen again after the answer is spoken", checked: v.voice_auto_listen === "on" })}`;
}
