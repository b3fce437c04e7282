// The speech part of the configuration (src/config.ts calls it): the operator's OpenAI-compatible
// speech-to-text and text-to-speech servers (README "Voice and video"). Both URLs are the
// operator's, trusted like LLM_BASE_URL. Unset: no server speech; the widget uses the browser's.
import { ConfigError, type Env, integer } from "./read.ts";

export interface SpeechProviderConfig {
  /** STT_BASE_URL / TTS_BASE_URL, e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1. */
  baseUrl: string;
  /** STT_API_KEY / TTS_API_KEY; optional (a local server needs none). */
  apiKey?: string;
  /** STT_MODEL (default whisper-1) / TTS_MODEL (default tts-1). */
  model: string;
}

export interface SpeechConfig {
  stt?: SpeechProviderConfig;
  tts?: SpeechProviderConfig & { /** TTS_VOICE: when the agent names none. Default alloy. */ voice: string };
  /** SPEECH_TIMEOUT_SECONDS: the deadline of one provider request. Default 20. */
  timeoutSeconds: number;
  /** VOICE_MAX_AUDIO_BYTES: the largest recording accepted by /api/sdk/voice/transcribe. Default 2 MiB. */
  maxAudioBytes: number;
  /** VOICE_MAX_SECONDS: the longest recording accepted, whatever the agent allows. Default 120. */
  maxSeconds: number;
  /** VOICE_RATE_LIMIT_PER_KEY_IP_PER_MINUTE: transcriptions and speeches per widget key and client IP. Default 60. */
  perKeyIp: number;
}

function baseUrl(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (!raw) return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {}
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password || url.hash || url.search)
    throw new ConfigError(
      name,
      `must be an absolute http(s) URL with no credentials, query or fragment, e.g. http://127.0.0.1:8000/v1 (got ${JSON.stringify(raw)})`,
    );
  return url.href.replace(/\/+$/, "");
}

function model(env: Env, name: string, fallback: string): string {
  const value = env[name] || fallback;
  if (value.length > 200) throw new ConfigError(name, "must be at most 200 characters");
  return value;
}

export function speechConfig(env: Env): { speech: SpeechConfig } {
  const stt = baseUrl(env, "STT_BASE_URL");
  const tts = baseUrl(env, "TTS_BASE_URL");
  const voice = env.TTS_VOICE || "alloy";
  if (!/^[\p{L}\p{N} ._()-]{1,64}$/u.test(voice)) throw new ConfigError("TTS_VOICE", "must be 1 to 64 letters, digits, spaces or . _ ( ) -");
  return {
    speech: {
      ...(stt ? { stt: { baseUrl: stt, apiKey: env.STT_API_KEY || undefined, model: model(env, "STT_MODEL", "whisper-1") } } : {}),
      ...(tts ? { tts: { baseUrl: tts, apiKey: env.TTS_API_KEY || undefined, model: model(env, "TTS_MODEL", "tts-1"), voice } } : {}),
      timeoutSeconds: integer(env, "SPEECH_TIMEOUT_SECONDS", 20, 1, 300),
      maxAudioBytes: integer(env, "VOICE_MAX_AUDIO_BYTES", 2 * 1024 * 1024, 1024, 25 * 1024 * 1024),
      maxSeconds: integer(env, "VOICE_MAX_SECONDS", 120, 5, 600),
      perKeyIp: integer(env, "VOICE_RATE_LIMIT_PER_KEY_IP_PER_MINUTE", 60, 1, 100_000_000),
    },
  };
}
