// POST /api/sdk/voice/transcribe and /api/sdk/voice/speech (README "Voice and video"): the
// widget's server speech, forwarded to the operator's speech servers (./speech.ts). Keyed like
// every SDK route, counted against the SDK limits and against a voice limit of their own per key
// and client IP (VOICE_RATE_LIMIT_PER_KEY_IP_PER_MINUTE). A recording is checked from its bytes —
// container, size, duration — before anything leaves; it is never stored.
import { Elysia, t } from "elysia";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { BinaryBody } from "../http/body.ts";
import { ErrorBody } from "../http/error-schema.ts";
import { mediaResponse } from "../http/media-response.ts";
import { requestMeta } from "../http/request-meta.ts";
import { BCP47 } from "../agents/voice-config.ts";
import { requireWidgetKey } from "./auth.ts";
import { limitSdkRequest } from "./limits.ts";
import { audioInfo } from "./audio.ts";
import { speak, transcribe } from "./speech.ts";

/** The media types a browser records in (MediaRecorder: WebM or Ogg with Opus; WAV from a worklet). */
export const AUDIO_TYPES = ["audio/webm", "audio/ogg", "audio/wav", "audio/wave", "audio/x-wav", "video/webm"] as const;
export const SPEECH_TEXT_MAX = 1000;

const Transcript = t.Object({
  text: t.String({ description: "What was said; empty when nothing was recognised." }),
  seconds: t.Number({ description: "The recording's duration, read from its container." }),
});
const SpeechBody = t.Object(
  {
    text: t.String({ minLength: 1, maxLength: SPEECH_TEXT_MAX, description: "What to say: one sentence or a few." }),
    voice: t.Optional(
      t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9 ._()-]+$", description: "The voice's name at the provider; default TTS_VOICE." }),
    ),
    rate: t.Optional(t.Number({ minimum: 0.5, maximum: 2, description: "Speaking rate, 1 is normal." })),
  },
  { additionalProperties: false },
);
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 413: ErrorBody, 415: ErrorBody, 429: ErrorBody, 503: ErrorBody };
const tags = ["Widget SDK"];
const security = [{ widgetKey: [] }];

/** The recording in a request, checked: its bytes and what they are. */
function recording(deps: Pick<Deps, "config">, body: unknown) {
  if (!(body instanceof BinaryBody))
    throw new AppError(415, "unsupported_media_type", `Send the recording as the body, with Content-Type one of ${AUDIO_TYPES.join(", ")}.`);
  if (body.error) throw body.error;
  if (!(AUDIO_TYPES as readonly string[]).includes(body.type))
    throw new AppError(415, "unsupported_media_type", `Content-Type ${body.type || "(none)"} is not a recording we take: send ${AUDIO_TYPES.join(", ")}.`);
  const { maxAudioBytes, maxSeconds } = deps.config.speech;
  if (body.bytes.byteLength > maxAudioBytes) throw new AppError(413, "payload_too_large", `The recording is larger than ${maxAudioBytes} bytes.`);
  if (body.bytes.byteLength === 0) throw new AppError(400, "invalid_audio", "The recording is empty.");
  const info = audioInfo(body.bytes);
  if (!info) throw new AppError(400, "invalid_audio", "The body is not a WebM, Ogg or WAV recording.");
  if (info.seconds > maxSeconds) throw new AppError(400, "audio_too_long", `The recording is ${Math.round(info.seconds)} s long; at most ${maxSeconds} s.`);
  return { bytes: body.bytes, info };
}

export function voiceRoutes(deps: Pick<Deps, "cipher" | "config" | "db" | "guard" | "limiter" | "metrics" | "now" | "timers" | "widgetKeys">) {
  return new Elysia({ name: "sdk-voice" })
    .derive(async ({ request, path }) => {
      if (!path.startsWith("/api/sdk/voice/")) return {};
      const auth = await requireWidgetKey(deps, request);
      await limitSdkRequest(deps, auth, request);
      const limit = deps.config.speech.perKeyIp;
      const taken = await deps.limiter.take(`sdk:voice:${auth.keyId}:${requestMeta(request).ip}`, { limit, windowSeconds: 60 }, deps.now());
      if (!taken.allowed)
        throw AppError.tooManyRequests(
          taken.retryAfter,
          `Too many voice requests from this address: at most ${limit} per minute. Try again in ${taken.retryAfter} s.`,
        );
      return { auth };
    })
    .post(
      "/api/sdk/voice/transcribe",
      async ({ body, query, request, auth }) => {
        const { bytes, info } = recording(deps, body);
        const text = await transcribe(deps, auth!.orgId, bytes, info, query.language ?? null, request.signal);
        return { text, seconds: Math.round(info.seconds * 100) / 100 };
      },
      {
        query: t.Object({ language: t.Optional(t.String({ maxLength: 35, pattern: BCP47.source, description: "BCP 47 tag of the language spoken." })) }),
        response: { 200: Transcript, ...errors },
        detail: {
          summary:
            "Speech to text: the recording (WebM, Ogg or WAV, as the browser records it) as the body; its words back. 400 invalid_audio or audio_too_long, 413 over VOICE_MAX_AUDIO_BYTES, 415 another type, 429, 503 speech_unavailable or speech_failed",
          tags,
          security,
          requestBody: { required: true, content: Object.fromEntries(AUDIO_TYPES.map((type) => [type, { schema: { type: "string", format: "binary" } }])) },
        },
      },
    )
    .post(
      "/api/sdk/voice/speech",
      async ({ body, request, auth }) => {
        const audio = await speak(deps, auth!.orgId, body.text, body.voice ?? null, body.rate ?? null, request.signal);
        return new Response(audio.body, { headers: { "content-type": audio.type, "cache-control": "no-store" } });
      },
      {
        body: SpeechBody,
        response: { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody, 503: ErrorBody },
        detail: {
          summary:
            "Text to speech: {text, voice, rate} to audio (audio/mpeg), streamed as the speech server writes it. 429, 503 speech_unavailable or speech_failed",
          tags,
          security,
          responses: mediaResponse(
            "The speech server's audio as it arrives, with its content type (audio/mpeg unless the server names another audio type); Cache-Control: no-store",
            ["audio/*"],
            true,
          ),
        },
      },
    );
}
