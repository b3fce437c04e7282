// An agent's voice settings (README "Voice and video"): one documented, validated shape instead of
// free JSON. Every field is optional; what is absent takes its default (VOICE_DEFAULTS). A value
// stored before this shape existed (any JSON object) is read tolerantly: unknown keys and values
// out of range fall back to the default, so an old agent keeps working and its page shows the form.
import { Type } from "@sinclair/typebox";
import { t } from "elysia";
import type { ErrorDetail } from "../errors.ts";
import { VOICE_DEFAULTS, type VoiceConfig } from "../kit/voice-config.ts";

export { VOICE_DEFAULTS, type VoiceConfig };

export const VOICE_LIMITS = { voice: 64, language: 35, minRate: 0.5, maxRate: 2, minSeconds: 5, maxSeconds: 120 } as const;

/** BCP 47 in the shape browsers and speech servers take: a primary language, then subtags (RFC 5646 section 2.1). */
export const BCP47 = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;
const VOICE_NAME = /^[\p{L}\p{N} ._()-]{1,64}$/u;

export const VoiceConfigSchema = t.Object(
  {
    enabled: t.Optional(t.Boolean({ description: "The widget offers voice (a microphone button). Default false." })),
    language: t.Optional(
      t.String({ pattern: BCP47.source, maxLength: VOICE_LIMITS.language, description: "BCP 47 tag for recognition and speech, e.g. en-GB. Default en-US." }),
    ),
    stt: t.Optional(
      t.Union([t.Literal("server"), t.Literal("browser")], {
        description: "Speech to text: the server's provider (STT_*) or the browser's own recognition. Default browser.",
      }),
    ),
    tts: t.Optional(
      t.Union([t.Literal("server"), t.Literal("browser"), t.Literal("off")], {
        description: "Text to speech: the server's provider (TTS_*), the browser's speechSynthesis, or off (captions only). Default browser.",
      }),
    ),
    voice: t.Optional(
      t.String({
        minLength: 1,
        maxLength: VOICE_LIMITS.voice,
        description: "The voice's name at the provider (e.g. alloy), or a browser voice's name. Default: the provider's or the browser's.",
      }),
    ),
    rate: t.Optional(t.Number({ minimum: VOICE_LIMITS.minRate, maximum: VOICE_LIMITS.maxRate, description: "Speaking rate, 1 is normal. Default 1." })),
    max_seconds: t.Optional(
      Type.Integer({ minimum: VOICE_LIMITS.minSeconds, maximum: VOICE_LIMITS.maxSeconds, description: "Longest recording, in seconds. Default 30." }),
    ),
    auto_listen: t.Optional(t.Boolean({ description: "Listen again after the answer is spoken. Default false." })),
  },
  { additionalProperties: false, description: 'The agent\'s voice settings (README "Voice and video").' },
);

/** Problems of a voice_config as the API and the form take it (paths under `path`). */
export function checkVoiceConfig(problems: ErrorDetail[], path: string, value: Record<string, unknown> | undefined): void {
  if (value === undefined) return;
  const L = VOICE_LIMITS;
  for (const key of Object.keys(value)) if (!(key in VOICE_DEFAULTS)) problems.push({ path: `${path}/${key}`, message: "is not a voice setting" });
  const v = value as Partial<Record<keyof VoiceConfig, unknown>>;
  const bool = (k: "enabled" | "auto_listen") =>
    v[k] !== undefined && typeof v[k] !== "boolean" && problems.push({ path: `${path}/${k}`, message: "must be true or false" });
  bool("enabled");
  bool("auto_listen");
  if (v.language !== undefined && (typeof v.language !== "string" || v.language.length > L.language || !BCP47.test(v.language)))
    problems.push({ path: `${path}/language`, message: "must be a BCP 47 language tag such as en-GB" });
  if (v.stt !== undefined && v.stt !== "server" && v.stt !== "browser") problems.push({ path: `${path}/stt`, message: "must be server or browser" });
  if (v.tts !== undefined && v.tts !== "server" && v.tts !== "browser" && v.tts !== "off")
    problems.push({ path: `${path}/tts`, message: "must be server, browser or off" });
  if (v.voice !== undefined && (typeof v.voice !== "string" || !VOICE_NAME.test(v.voice)))
    problems.push({ path: `${path}/voice`, message: `must be 1 to ${L.voice} letters, digits, spaces or . _ ( ) -` });
  if (v.rate !== undefined && (typeof v.rate !== "number" || !(v.rate >= L.minRate && v.rate <= L.maxRate)))
    problems.push({ path: `${path}/rate`, message: `must be a number from ${L.minRate} to ${L.maxRate}` });
  if (
    v.max_seconds !== undefined &&
    (typeof v.max_seconds !== "number" || !Number.isInteger(v.max_seconds) || v.max_seconds < L.minSeconds || v.max_seconds > L.maxSeconds)
  )
    problems.push({ path: `${path}/max_seconds`, message: `must be a whole number of seconds from ${L.minSeconds} to ${L.maxSeconds}` });
}

/** The stored value with its defaults filled in; anything invalid (a value stored before the schema) takes the default. */
export function resolveVoiceConfig(stored: Record<string, unknown> | null | undefined): VoiceConfig {
  const out: VoiceConfig = { ...VOICE_DEFAULTS };
  if (!stored) return out;
  for (const key of Object.keys(VOICE_DEFAULTS) as (keyof VoiceConfig)[]) {
    if (stored[key] === undefined) continue;
    const problems: ErrorDetail[] = [];
    checkVoiceConfig(problems, "", { [key]: stored[key] });
    if (problems.length === 0) (out as unknown as Record<string, unknown>)[key] = stored[key];
  }
  return out;
}

/**
 * What GET /api/sdk/config tells the widget: the agent's settings with a server choice falling back
 * to the browser's where this server has no speech provider, and the recording cap the server takes.
 */
export function voiceForWidget(stored: Record<string, unknown> | null | undefined, server: { stt: boolean; tts: boolean; maxSeconds: number }): VoiceConfig {
  const c = resolveVoiceConfig(stored);
  return {
    ...c,
    stt: c.stt === "server" && !server.stt ? "browser" : c.stt,
    tts: c.tts === "server" && !server.tts ? "browser" : c.tts,
    max_seconds: Math.min(c.max_seconds, server.maxSeconds),
  };
}

export const WidgetVoiceConfig = t.Object(
  {
    enabled: t.Boolean(),
    language: t.String(),
    stt: t.Union([t.Literal("server"), t.Literal("browser")]),
    tts: t.Union([t.Literal("server"), t.Literal("browser"), t.Literal("off")]),
    voice: t.Union([t.String(), t.Null()]),
    rate: t.Number(),
    max_seconds: Type.Integer(),
    auto_listen: t.Boolean(),
  },
  {
    description:
      'The agent\'s voice settings with their defaults; stt and tts say browser where this server has no speech provider (README "Voice and video").',
  },
);
