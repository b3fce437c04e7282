// The "Voice and video" part of an agent's edit form (views/agent-voice.ts draws it): the form's
// values for voice_config, and voice_config read back from the form, checked with the same rules as
// the API (src/agents/voice-config.ts).
import type { Agent } from "../agents/service.ts";
import { checkVoiceConfig, resolveVoiceConfig, VOICE_DEFAULTS } from "../agents/voice-config.ts";
import type { ErrorDetail } from "../errors.ts";
import { type FieldErrors, type FormValues } from "./kit/index.ts";

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
