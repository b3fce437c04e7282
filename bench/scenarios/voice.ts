// Voice: one spoken question after another, as the widget does it, against loopback speech servers
// that answer after a fixed delay (BENCH_SPEECH_DELAY_MS, default 150): the recording (a 2 s WAV)
// to POST /api/sdk/voice/transcribe, the transcript to /api/sdk/chat/stream in mode voice, read
// until its first whole sentence, that sentence to /api/sdk/voice/speech, timed to the first
// audio byte. Printed: end of speech → first audio byte (p50, p99), the same two provider calls
// made directly (the providers' own time), and the difference — the latency our server adds.
// Printed, never asserted.
import { join } from "node:path";
import { fakeSpeech, toneWav } from "../../test/support/fake-speech.ts";
import { percentile } from "../load.ts";
import { BENCH_PASSWORD, seedDocs } from "../mcp.ts";
import { fixed, printTable } from "../report.ts";
import { type BenchContext, ourServer, startServer } from "../runner.ts";
import { ADMIN, createOrg, HIGH_SDK_LIMITS } from "./chat.ts";

const RUNS = Number(process.env.BENCH_VOICE_RUNS || 30);
const DELAY_MS = Number(process.env.BENCH_SPEECH_DELAY_MS || 150);

async function firstByte(res: Response): Promise<void> {
  const reader = res.body!.getReader();
  await reader.read();
  await reader.cancel();
}

/** The stream's text up to its first whole sentence. */
async function firstSentence(res: Response): Promise<string> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value.replace(/\x1e[^\x1e]*\x1e/g, "");
    const m = /^[\s\S]*?[.!?](?=\s)/.exec(text);
    if (m) {
      await reader.cancel();
      return m[0].trim();
    }
  }
  return text.trim();
}

const stats = (samples: number[]) => {
  const sorted = Float64Array.from(samples).sort();
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
};

export async function voice(context: BenchContext): Promise<void> {
  const speech = await fakeSpeech({ delayMs: DELAY_MS });
  const env = {
    DATA_DIR: join(context.work, "voice-data"),
    LOG_LEVEL: "error",
    LLM_PROVIDER: "builtin",
    STT_BASE_URL: speech.baseUrl,
    TTS_BASE_URL: speech.baseUrl,
    VOICE_RATE_LIMIT_PER_KEY_IP_PER_MINUTE: "100000000",
    ...HIGH_SDK_LIMITS,
  };
  const key = await createOrg(env, "voice");
  const server = await startServer(ourServer("ours, PGlite", env), context.work);
  const wav = toneWav(2);
  const total: number[] = [];
  const providers: number[] = [];
  try {
    await seedDocs(server.url, ADMIN, BENCH_PASSWORD);
    const auth = { authorization: `Bearer ${key}` };
    for (let i = 0; i < RUNS + 3; i++) {
      // Ours: end of speech (the recording sent) → first audio byte.
      const t0 = performance.now();
      const heard = (await (
        await fetch(`${server.url}/api/sdk/voice/transcribe?language=en-US`, {
          method: "POST",
          headers: { ...auth, "content-type": "audio/wav" },
          body: wav as Uint8Array<ArrayBuffer>,
        })
      ).json()) as { text: string };
      const stream = await fetch(`${server.url}/api/sdk/chat/stream`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ message: heard.text, mode: "voice" }),
      });
      const sentence = await firstSentence(stream);
      const spoken = await fetch(`${server.url}/api/sdk/voice/speech`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ text: sentence }),
      });
      if (!spoken.ok) throw new Error(`voice/speech answered ${spoken.status}: ${await spoken.text()}`);
      await firstByte(spoken);
      const t1 = performance.now();
      // The providers alone: the same two calls straight to the speech servers.
      const form = new FormData();
      form.append("file", new Blob([wav as Uint8Array<ArrayBuffer>], { type: "audio/wav" }), "speech.wav");
      form.append("model", "whisper-1");
      await (await fetch(`${speech.baseUrl}/audio/transcriptions`, { method: "POST", body: form })).json();
      await firstByte(
        await fetch(`${speech.baseUrl}/audio/speech`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "tts-1", input: sentence, voice: "alloy" }),
        }),
      );
      const t2 = performance.now();
      if (i < 3) continue; // warm-up
      total.push(t1 - t0);
      providers.push(t2 - t1);
    }
  } finally {
    await server.stop();
    speech.close();
  }
  const ours = stats(total);
  const direct = stats(providers);
  const added = stats(total.map((t, i) => t - providers[i]!));
  printTable(
    `Voice: end of speech → first audio byte, ${RUNS} questions one after another, speech servers answering after ${DELAY_MS} ms (builtin model, PGlite)`,
    ["path", "p50 ms", "p99 ms"],
    [
      ["through our server (transcribe, chat/stream to the first sentence, speech)", fixed(ours.p50, 1), fixed(ours.p99, 1)],
      ["the two speech calls made directly", fixed(direct.p50, 1), fixed(direct.p99, 1)],
      ["added by our server (per question)", fixed(added.p50, 1), fixed(added.p99, 1)],
    ],
  );
}
