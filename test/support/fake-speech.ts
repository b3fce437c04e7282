// Fake speech servers on loopback speaking the OpenAI audio wire formats (docs/interface.md J):
//   POST {baseUrl}/audio/transcriptions — multipart (file, model, language, response_format) → {"text": …}
//   POST {baseUrl}/audio/speech         — JSON {model, input, voice, response_format, speed} → audio bytes, streamed
// Each records what it received (the audio file's bytes and type included) and answers after
// `delayMs`; `next` scripts the next answer: a status, a hold until a promise settles, a text.
//
//   const speech = await fakeSpeech({ transcript: "How do I reset my password?" });
//   speech.next = { status: 500 };       // the next request gets a 500
//   speech.next = { until: promise };    // held until the test settles the promise

export interface SpeechRecord {
  path: string;
  headers: Record<string, string>;
  /** transcriptions: the form's fields; speech: the JSON body. */
  fields: Record<string, unknown>;
  /** transcriptions: the uploaded file. */
  file?: { name: string; type: string; bytes: Uint8Array };
}

export interface FakeSpeech {
  baseUrl: string;
  requests: SpeechRecord[];
  transcript: string;
  delayMs: number;
  next: { status?: number; until?: Promise<unknown> } | null;
  /** Called when a request arrives (before it is answered). */
  onRequest?: (record: SpeechRecord) => void;
  close(): void;
}

/** A WAV of `seconds` of a 440 Hz tone at 16 kHz, 16-bit mono: real audio an <audio> element plays. */
export function toneWav(seconds: number, rate = 16_000): Uint8Array {
  const samples = Math.round(seconds * rate);
  const buffer = new ArrayBuffer(44 + samples * 2);
  const v = new DataView(buffer);
  const text = (at: number, s: string) => [...s].forEach((c, i) => v.setUint8(at + i, c.charCodeAt(0)));
  text(0, "RIFF");
  v.setUint32(4, 36 + samples * 2, true);
  text(8, "WAVE");
  text(12, "fmt ");
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, 1, true);
  v.setUint32(24, rate, true);
  v.setUint32(28, rate * 2, true);
  v.setUint16(32, 2, true);
  v.setUint16(34, 16, true);
  text(36, "data");
  v.setUint32(40, samples * 2, true);
  for (let i = 0; i < samples; i++) v.setInt16(44 + i * 2, Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), true);
  return new Uint8Array(buffer);
}

export async function fakeSpeech(options: { transcript?: string; delayMs?: number; speechSeconds?: number } = {}): Promise<FakeSpeech> {
  const audio = toneWav(options.speechSeconds ?? 0.6);
  const fake: FakeSpeech = {
    baseUrl: "",
    requests: [],
    transcript: options.transcript ?? "How do I reset my password?",
    delayMs: options.delayMs ?? 0,
    next: null,
    close: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const headers = Object.fromEntries(req.headers);
      let record: SpeechRecord;
      if (path.endsWith("/audio/transcriptions")) {
        const form = await req.formData();
        const fields: Record<string, unknown> = {};
        let file: SpeechRecord["file"];
        for (const [name, value] of form) {
          if (typeof value === "string") fields[name] = value;
          else file = { name: (value as File).name, type: value.type, bytes: new Uint8Array(await value.arrayBuffer()) };
        }
        record = { path, headers, fields, file };
      } else if (path.endsWith("/audio/speech")) record = { path, headers, fields: (await req.json()) as Record<string, unknown> };
      else return new Response("not found", { status: 404 });
      fake.requests.push(record);
      fake.onRequest?.(record);
      const script = fake.next;
      fake.next = null;
      if (script?.until) await script.until.catch(() => {});
      if (fake.delayMs) await Bun.sleep(fake.delayMs);
      if (script?.status) return Response.json({ error: { message: "scripted failure", type: "server_error" } }, { status: script.status });
      if (record.path.endsWith("/audio/transcriptions")) return Response.json({ text: fake.transcript });
      // Streamed in pieces, as a TTS server writes while it synthesises.
      const pieces = [audio.subarray(0, 4096), audio.subarray(4096)];
      return new Response(
        new ReadableStream({
          pull(c) {
            const p = pieces.shift();
            if (p) c.enqueue(p);
            else c.close();
          },
        }),
        { headers: { "content-type": "audio/wav" } },
      );
    },
  });
  fake.baseUrl = `http://127.0.0.1:${server.port}/v1`;
  return fake;
}
