// The "Voice and video" part of an agent's edit form: voice_config as fields (README "Voice and
// video"), checked with the same rules as the API (src/agents/voice-config.ts).
import type { Agent } from "../agents/service.ts";
import { checkVoiceConfig, resolveVoiceConfig, VOICE_DEFAULTS, VOICE_LIMITS as L } from "../agents/voice-config.ts";
import type { ErrorDetail } from "../errors.ts";
import { html, type Html } from "../html/html.ts";
import { checkbox, field, type FieldErrors, type FormValues, select } from "./kit/index.ts";

/** The form's values for the agent's voice settings (defaults filled in). */
export function voiceValues(agent: Agent): FormValues {
  const c = resolveVoiceConfig(agent.voiceConfig);
  return {
    voice_form: "1",
    voice_enabled: c.enabled ? "on" : "",
    voice_language: c.language,
    voice_stt: c.stt,
    voice_tts: c.tts,
    voice_voice: c.voice ?? "",
    voice_rate: String(c.rate),
    voice_max_seconds: String(c.max_seconds),
    voice_auto_listen: c.auto_listen ? "on" : "",
  };
}

/** The voice_config a submitted form asks for (undefined when the form had no voice part), with its field errors. */
export function voiceFrom(v: FormValues, errors: FieldErrors): Record<string, unknown> | undefined {
  if (v.voice_form === undefined) return undefined;
  const number = (raw: string | undefined, fallback: number) => ((raw ?? "").trim() === "" ? fallback : Number(raw));
  const voice = (v.voice_voice ?? "").trim();
  const config: Record<string, unknown> = {
    enabled: v.voice_enabled === "on",
    language: (v.voice_language ?? "").trim() || VOICE_DEFAULTS.language,
    stt: v.voice_stt || VOICE_DEFAULTS.stt,
    tts: v.voice_tts || VOICE_DEFAULTS.tts,
    ...(voice ? { voice } : {}),
    rate: number(v.voice_rate, VOICE_DEFAULTS.rate),
    max_seconds: number(v.voice_max_seconds, VOICE_DEFAULTS.max_seconds),
    auto_listen: v.voice_auto_listen === "on",
  };
  const problems: ErrorDetail[] = [];
  checkVoiceConfig(problems, "", config);
  for (const p of problems) errors[`voice_${p.path.slice(1)}`] ??= `${p.message[0]!.toUpperCase()}${p.message.slice(1)}.`;
  return config;
}

/** The fields, inside the form's "Voice and video" fieldset. */
export function voiceFields(v: FormValues, e: FieldErrors): Html {
  return html`<input type="hidden" name="voice_form" value="1">
${checkbox({ name: "voice_enabled", label: "Offer voice in the widget (a microphone button)", checked: v.voice_enabled === "on" })}
<div class="grid2">
${field({ name: "voice_language", label: "Language", value: v.voice_language, error: e.voice_language, maxLength: L.language, hint: "A BCP 47 tag, e.g. en-GB, fr-FR." })}
${field({ name: "voice_voice", label: "Voice", value: v.voice_voice, error: e.voice_voice, maxLength: L.voice, hint: "The voice's name (e.g. alloy); empty for the default." })}
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
${field({ name: "voice_rate", label: "Speaking rate", type: "number", value: v.voice_rate, error: e.voice_rate, hint: `${L.minRate} to ${L.maxRate}; 1 is normal.`, attrs: { step: "0.1", min: String(L.minRate), max: String(L.maxRate) } })}
${field({ name: "voice_max_seconds", label: "Longest recording (seconds)", type: "number", value: v.voice_max_seconds, error: e.voice_max_seconds, hint: `${L.minSeconds} to ${L.maxSeconds}.`, attrs: { min: String(L.minSeconds), max: String(L.maxSeconds) } })}
</div>
${checkbox({ name: "voice_auto_listen", label: "Listen again after the answer is spoken", checked: v.voice_auto_listen === "on" })}`;
}
