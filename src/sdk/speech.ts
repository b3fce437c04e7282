// The speech servers (README "Voice and video"): OpenAI-compatible speech to text
// (`POST {STT_BASE_URL}/audio/transcriptions`, multipart: file, model, language,
// response_format json → {text}) and text to speech (`POST {TTS_BASE_URL}/audio/speech`
// {model, input, voice, response_format, speed} → audio bytes, streamed). Both URLs are the
// operator's (trusted like LLM_BASE_URL: fetched directly, redirects refused) or the org's own
// (./speech-settings.ts: through the outbound guard on every request). One deadline
// (SPEECH_TIMEOUT_SECONDS) bounds a transcription whole and a speech until its audio begins. The
// audio is never stored: it passes through memory once. Every failure is a 503 the widget turns
// into an apology with the offer of a person; each request is measured (svc_speech_request_duration_seconds).
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { readBodyCapped } from "../net/capped-body.ts";
import { realTimers } from "../kit/timers.ts";
import type { AudioInfo } from "./audio.ts";
import { BlockedUrlError, guardedFetch } from "../net/guard.ts";
import { type SpeechServer, speechServerFor } from "./speech-settings.ts";

export const SPEECH_LIMITS = {
  /** The transcription answer read at most (a JSON {text}). */
  transcriptBytes: 64 * 1024,
  /** The transcript kept: as long as a chat message may be. */
  transcriptChars: 10_000,
  /** The audio of one speech, at most (about ten minutes of MP3 at 128 kbit/s). */
  speechBytes: 10 * 1024 * 1024,
} as const;

export function speechUnavailable(kind: "stt" | "tts"): AppError {
  return new AppError(
    503,
    "speech_unavailable",
    kind === "stt" ? "This server has no speech-to-text provider (STT_BASE_URL)." : "This server has no text-to-speech provider (TTS_BASE_URL).",
  );
}

function speechFailed(kind: "stt" | "tts", why: string): AppError {
  return new AppError(
    503,
    "speech_failed",
    `The ${kind === "stt" ? "speech-to-text" : "text-to-speech"} service did not answer (${why}). Please type your message, or ask for a person.`,
  );
}

async function call(
  deps: Pick<Deps, "config" | "guard" | "metrics" | "timers">,
  kind: "stt" | "tts",
  server: SpeechServer,
  path: string,
  init: { method: string; headers: Record<string, string>; body: string | FormData },
  signal: AbortSignal,
): Promise<Response> {
  const url = `${server.baseUrl}${path}`;
  const started = performance.now();
  const deadline = AbortSignal.any([signal, (deps.timers ?? realTimers).deadline(deps.config.speech.timeoutSeconds * 1000)]);
  const done = (outcome: string) => deps.metrics.speechRequest(kind, outcome, (performance.now() - started) / 1000);
  let response: Response;
  try {
    response = server.trusted
      ? await fetch(url, { ...init, signal: deadline, redirect: "manual" })
      : await guardedFetch(url, { ...init, signal: deadline }, deps.guard);
  } catch (error) {
    if (error instanceof BlockedUrlError) {
      done("blocked");
      throw speechFailed(kind, `its address is not allowed: ${error.message}`);
    }
    const outcome = signal.aborted ? "aborted" : deadline.aborted ? "timeout" : "network";
    done(outcome);
    throw speechFailed(kind, outcome === "timeout" ? `no answer within ${deps.config.speech.timeoutSeconds} s` : "it could not be reached");
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    done(`http_${Math.floor(response.status / 100)}xx`);
    throw speechFailed(kind, `it answered ${response.status}`);
  }
  done("ok");
  return response;
}

const authorization = (key: string | undefined): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});

/** The words of a recording, from the STT server. */
export async function transcribe(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "metrics" | "timers">,
  orgId: string,
  audio: Uint8Array,
  info: AudioInfo,
  language: string | null,
  signal: AbortSignal,
): Promise<string> {
  const stt = await speechServerFor(deps, orgId, "stt");
  if (!stt) throw speechUnavailable("stt");
  const form = new FormData();
  form.append("file", new Blob([audio as Uint8Array<ArrayBuffer>], { type: info.mediaType }), `speech.${info.container}`);
  form.append("model", stt.model);
  form.append("response_format", "json");
  // Servers take ISO 639-1 (the language of a BCP 47 tag).
  if (language) form.append("language", language.split("-")[0]!.toLowerCase());
  const response = await call(
    deps,
    "stt",
    stt,
    "/audio/transcriptions",
    { method: "POST", headers: { "user-agent": "svc-agents/1.0", ...authorization(stt.apiKey) }, body: form },
    signal,
  );
  const bytes = await readBodyCapped(response, SPEECH_LIMITS.transcriptBytes).catch(() => null);
  let text: unknown;
  try {
    text = bytes && (JSON.parse(new TextDecoder().decode(bytes)) as { text?: unknown }).text;
  } catch {}
  if (typeof text !== "string") {
    deps.metrics.speechRequest("stt", "bad_response", 0);
    throw speechFailed("stt", "its answer had no text");
  }
  return text
    .replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, "")
    .trim()
    .slice(0, SPEECH_LIMITS.transcriptChars);
}

/** The audio of `text` from the TTS server: its media type and a stream capped at SPEECH_LIMITS.speechBytes. */
export async function speak(
  deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "metrics" | "timers">,
  orgId: string,
  text: string,
  voice: string | null,
  speed: number | null,
  signal: AbortSignal,
): Promise<{ type: string; body: ReadableStream<Uint8Array> }> {
  const tts = await speechServerFor(deps, orgId, "tts");
  if (!tts) throw speechUnavailable("tts");
  const body = JSON.stringify({ model: tts.model, input: text, voice: voice ?? tts.voice, response_format: "mp3", ...(speed !== null ? { speed } : {}) });
  const response = await call(
    deps,
    "tts",
    tts,
    "/audio/speech",
    { method: "POST", headers: { "content-type": "application/json", "user-agent": "svc-agents/1.0", ...authorization(tts.apiKey) }, body },
    signal,
  );
  const type = response.headers.get("content-type") ?? "audio/mpeg";
  if (!/^audio\/[\w.+-]+$/i.test(type.split(";")[0]!.trim()) || !response.body) {
    await response.body?.cancel().catch(() => {});
    throw speechFailed("tts", `its answer was ${type.slice(0, 60)}, not audio`);
  }
  let sent = 0;
  const capped = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        sent += chunk.byteLength;
        if (sent > SPEECH_LIMITS.speechBytes) controller.error(new Error("speech longer than the cap"));
        else controller.enqueue(chunk);
      },
    }),
  );
  return { type: type.split(";")[0]!.trim(), body: capped };
}
