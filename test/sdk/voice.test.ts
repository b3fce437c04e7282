// POST /api/sdk/voice/transcribe and /api/sdk/voice/speech (README "Voice and video") against
// fake OpenAI-compatible speech servers on loopback: what the STT server receives (the recording
// as it was sent, the model, the language), the audio the TTS server streams back; and every
// refusal at its boundary — type, container, size, duration, provider failure and timeout, burst
// past the voice limit — each a documented 4xx or 503, never another 5xx. Then the metrics.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { audioInfo } from "../../src/sdk/audio.ts";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";
import { fakeSpeech, type FakeSpeech, toneWav } from "../support/fake-speech.ts";

const MAX_BYTES = 200_000;
const MAX_SECONDS = 5;
const PER_MINUTE = 5;
let app: TestApp;
let bare: TestApp;
let speech: FakeSpeech;
let org: Awaited<ReturnType<typeof seedOrg>>;
let bareOrg: Awaited<ReturnType<typeof seedOrg>>;
let ip = 0;

beforeAll(async () => {
  speech = await fakeSpeech({ transcript: "How do I reset my password?" });
  app = await createTestApp({
    STT_BASE_URL: speech.baseUrl,
    STT_API_KEY: "stt-key",
    TTS_BASE_URL: speech.baseUrl,
    TTS_MODEL: "kokoro",
    TTS_VOICE: "af_bella",
    VOICE_MAX_AUDIO_BYTES: String(MAX_BYTES),
    VOICE_MAX_SECONDS: String(MAX_SECONDS),
    VOICE_RATE_LIMIT_PER_KEY_IP_PER_MINUTE: String(PER_MINUTE),
    SPEECH_TIMEOUT_SECONDS: "5",
  });
  org = await seedOrg(app);
  bare = await createTestApp();
  bareOrg = await seedOrg(bare);
}, 60_000);
afterAll(async () => {
  speech.close();
  await app.close();
  await bare.close();
});

/** Each test from its own address: the voice limit counts per key and IP. */
function send(path: string, body: BodyInit, type: string, options: { a?: TestApp; key?: string; from?: string } = {}) {
  const from = options.from ?? `198.51.100.${++ip}`;
  return (options.a ?? app).request(path, {
    method: "POST",
    body,
    headers: { authorization: `Bearer ${options.key ?? org.widget_key}`, "content-type": type, "x-forwarded-for": from },
  });
}
const transcribe = (bytes: Uint8Array, type = "audio/wav", options = {}) =>
  send("/api/sdk/voice/transcribe?language=en-GB", bytes as Uint8Array<ArrayBuffer>, type, options);
const say = (json: unknown, options = {}) => send("/api/sdk/voice/speech", JSON.stringify(json), "application/json", options);
async function errorOf(res: Response) {
  return ((await res.json()) as { error: { code: string; message: string } }).error;
}

/** A WebM as MediaRecorder writes it: EBML header (DocType webm), a Segment and Clusters of unknown size, SimpleBlocks. */
function webm(clusters: { timecode: number; blocks: number[] }[]): Uint8Array {
  const el = (id: number[], body: number[]) => [...id, 0x80 | body.length, ...body];
  const unknown = [0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
  const out = [
    ...el(
      [0x1a, 0x45, 0xdf, 0xa3],
      el(
        [0x42, 0x82],
        [..."webm"].map((c) => c.charCodeAt(0)),
      ),
    ),
  ];
  out.push(0x18, 0x53, 0x80, 0x67, ...unknown);
  out.push(...el([0x15, 0x49, 0xa9, 0x66], el([0x2a, 0xd7, 0xb1], [0x0f, 0x42, 0x40])));
  for (const c of clusters) {
    out.push(0x1f, 0x43, 0xb6, 0x75, ...unknown);
    out.push(...el([0xe7], [(c.timecode >> 8) & 0xff, c.timecode & 0xff]));
    for (const b of c.blocks) out.push(...el([0xa3], [0x81, (b >> 8) & 0xff, b & 0xff, 0x80, 1, 2, 3]));
  }
  return new Uint8Array(out);
}

describe("the container and duration, read from the bytes", () => {
  test("WAV from its header; WebM from its clusters and blocks; anything else is none", () => {
    expect(audioInfo(toneWav(1.5))).toEqual({ container: "wav", mediaType: "audio/wav", seconds: 1.5 });
    const info = audioInfo(
      webm([
        { timecode: 0, blocks: [0, 20, 40] },
        { timecode: 2000, blocks: [0, 480] },
      ]),
    );
    expect(info?.container).toBe("webm");
    expect(info?.seconds).toBeCloseTo(2.5, 5);
    expect(audioInfo(new TextEncoder().encode("RIFF....WAVEjunk but long enough to look like a header......"))).toBeNull();
    expect(audioInfo(new Uint8Array([0x1a, 0x45, 0xdf, 0xa3, 0x80]))).toBeNull();
    expect(audioInfo(new Uint8Array(100))).toBeNull();
  });
});

describe("transcribe", () => {
  test("a WAV reaches the STT server as it was recorded, with the model and the language; the words come back", async () => {
    const wav = toneWav(1.2);
    const res = await transcribe(wav);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ text: "How do I reset my password?", seconds: 1.2 });
    const got = speech.requests.at(-1)!;
    expect(got.path).toBe("/v1/audio/transcriptions");
    expect(got.headers.authorization).toBe("Bearer stt-key");
    expect(got.fields).toEqual({ model: "whisper-1", response_format: "json", language: "en" });
    expect(got.file!.type).toMatch(/^audio\/(x-)?wav$/);
    expect(got.file!.name).toBe("speech.wav");
    expect(Buffer.from(got.file!.bytes).equals(Buffer.from(wav))).toBe(true);
  });

  test("a WebM recording is sent as audio/webm", async () => {
    const res = await transcribe(webm([{ timecode: 0, blocks: [0, 20] }]), "audio/webm;codecs=opus");
    expect(res.status).toBe(200);
    const file = speech.requests.at(-1)!.file!;
    expect(file.name).toBe("speech.webm");
    expect([...file.bytes.subarray(0, 4)]).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
  });

  test(`size: exactly ${MAX_BYTES} bytes passes, one more is 413`, async () => {
    const at = toneWav((MAX_BYTES - 44) / 48_000, 24_000);
    expect(at.byteLength).toBe(MAX_BYTES);
    expect((await transcribe(at)).status).toBe(200);
    const over = new Uint8Array(MAX_BYTES + 1);
    over.set(at);
    const res = await transcribe(over);
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe("payload_too_large");
  });

  test(`duration: ${MAX_SECONDS} s passes, a little more is 400 audio_too_long (and nothing is sent on)`, async () => {
    expect((await transcribe(toneWav(MAX_SECONDS, 4000))).status).toBe(200);
    const before = speech.requests.length;
    const res = await transcribe(toneWav(MAX_SECONDS + 0.01, 4000));
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({ code: "audio_too_long" });
    expect(speech.requests.length).toBe(before);
  });

  test("a wrong type is 415; bytes that are no recording are 400 invalid_audio; an empty body is 400", async () => {
    for (const type of ["text/plain", "image/png", "application/json", "audio/mpeg"]) {
      const res = await transcribe(toneWav(0.5), type);
      expect([type, res.status]).toEqual([type, 415]);
      expect((await errorOf(res)).code).toBe("unsupported_media_type");
    }
    const junk = await transcribe(new TextEncoder().encode("<html>not audio</html>"), "audio/webm");
    expect(junk.status).toBe(400);
    expect(await errorOf(junk)).toMatchObject({ code: "invalid_audio" });
    expect((await transcribe(new Uint8Array(0))).status).toBe(400);
  });

  test("the STT server answering 500, or not at all within SPEECH_TIMEOUT_SECONDS, is 503 speech_failed", async () => {
    speech.next = { status: 500 };
    const failed = await transcribe(toneWav(0.5));
    expect(failed.status).toBe(503);
    expect(await errorOf(failed)).toMatchObject({ code: "speech_failed" });
    let release!: () => void;
    speech.next = { until: new Promise<void>((r) => (release = r)) };
    const arrived = new Promise<void>((r) => (speech.onRequest = () => r()));
    const pending = transcribe(toneWav(0.5));
    await arrived;
    app.clock.advance(5_000);
    const timedOut = await pending;
    release();
    expect(timedOut.status).toBe(503);
    expect((await errorOf(timedOut)).message).toContain("within 5 s");
    speech.onRequest = undefined;
  });

  test("a server without STT_BASE_URL answers 503 speech_unavailable", async () => {
    const res = await transcribe(toneWav(0.5), "audio/wav", { a: bare, key: bareOrg.widget_key });
    expect(res.status).toBe(503);
    expect(await errorOf(res)).toMatchObject({ code: "speech_unavailable" });
  });

  test(`a burst: ${PER_MINUTE} requests a minute from one key and address pass, the next is 429 with Retry-After; another address is not held`, async () => {
    const from = "203.0.113.77";
    for (let i = 0; i < PER_MINUTE; i++) expect((await transcribe(toneWav(0.2), "audio/wav", { from })).status).toBe(200);
    const refused = await transcribe(toneWav(0.2), "audio/wav", { from });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await say({ text: "Hello." }, { from })).status).toBe(429);
    expect((await transcribe(toneWav(0.2))).status).toBe(200);
  });

  test("no key is 401", async () => {
    const res = await app.request("/api/sdk/voice/transcribe", {
      method: "POST",
      body: toneWav(0.2) as Uint8Array<ArrayBuffer>,
      headers: { "content-type": "audio/wav" },
    });
    expect(res.status).toBe(401);
  });
});

describe("speech", () => {
  test("the text goes to the TTS server with the operator's model and voice (or the one asked for); its audio streams back", async () => {
    const res = await say({ text: "Open the sign-in page.", rate: 1.25 });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("audio/wav");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const audio = new Uint8Array(await res.arrayBuffer());
    expect(audioInfo(audio)?.seconds).toBeCloseTo(0.6, 5);
    expect(speech.requests.at(-1)!.fields).toEqual({
      model: "kokoro",
      input: "Open the sign-in page.",
      voice: "af_bella",
      response_format: "mp3",
      speed: 1.25,
    });
    expect((await say({ text: "Hi.", voice: "alloy" })).status).toBe(200);
    expect(speech.requests.at(-1)!.fields.voice).toBe("alloy");
  });

  test("bad bodies are 400: no text, too long, a voice with odd characters, a rate out of range", async () => {
    for (const body of [{}, { text: "" }, { text: "a".repeat(1001) }, { text: "Hi", voice: "../../etc" }, { text: "Hi", rate: 3 }]) {
      const res = await say(body);
      expect([JSON.stringify(body).slice(0, 40), res.status]).toEqual([JSON.stringify(body).slice(0, 40), 400]);
    }
    expect((await say({ text: "a".repeat(1000) })).status).toBe(200);
  });

  test("the TTS server failing is 503 speech_failed; none configured is 503 speech_unavailable", async () => {
    speech.next = { status: 500 };
    const res = await say({ text: "Hello." });
    expect(res.status).toBe(503);
    expect(await errorOf(res)).toMatchObject({ code: "speech_failed" });
    const none = await say({ text: "Hello." }, { a: bare, key: bareOrg.widget_key });
    expect(none.status).toBe(503);
    expect(await errorOf(none)).toMatchObject({ code: "speech_unavailable" });
  });
});

test("metrics: STT and TTS request durations by outcome in /metrics", async () => {
  const { body } = await app.deps.metrics.exposition();
  expect(body).toMatch(/svc_speech_request_duration_seconds_count\{kind="stt",outcome="ok"\} [1-9]/);
  expect(body).toMatch(/svc_speech_request_duration_seconds_count\{kind="stt",outcome="http_5xx"\} [1-9]/);
  expect(body).toMatch(/svc_speech_request_duration_seconds_count\{kind="stt",outcome="timeout"\} 1/);
  expect(body).toMatch(/svc_speech_request_duration_seconds_count\{kind="tts",outcome="ok"\} [1-9]/);
});
