// Listening (README "Voice and video"): a recording of the microphone (MediaRecorder: WebM/Opus
// where the browser has it), sent to the server's speech to text; or the browser's own speech
// recognition (Web Speech API — some browsers send the audio to their vendor). Both report a level
// (0–1, for the meter) and stop by themselves at the length cap. Recognition listens in the widget's
// language (`lang`, ./speech.ts speechLanguage); what a failure is called is the caller's (the catalogue's words).

type Recognition = {
  lang: string;
  interimResults: boolean;
  continuous: boolean;
  onresult: ((e: { results: ArrayLike<ArrayLike<{ transcript: string }>> }) => void) | null;
  onerror: ((e: { error: string }) => void) | null;
  onend: (() => void) | null;
  start(): void;
  stop(): void;
  abort(): void;
};

export const canRecord = (): boolean => Boolean(navigator.mediaDevices?.getUserMedia) && typeof MediaRecorder !== "undefined";
export const recognitionClass = (): (new () => Recognition) | null =>
  ((window as unknown as Record<string, unknown>).SpeechRecognition ?? (window as unknown as Record<string, unknown>).webkitSpeechRecognition ?? null) as
    | (new () => Recognition)
    | null;

export interface Listening {
  /** Ends listening: the recording (server) or the words heard (browser). */
  stop(): Promise<Blob | string | null>;
  /** Ends without a result. */
  cancel(): void;
}

/** The microphone's level, 0–1, every 50 ms, until `stop` is called. */
function meter(stream: MediaStream, onLevel: (level: number) => void): () => void {
  try {
    const context = new AudioContext();
    const analyser = context.createAnalyser();
    analyser.fftSize = 256;
    context.createMediaStreamSource(stream).connect(analyser);
    const data = new Uint8Array(analyser.fftSize);
    const timer = setInterval(() => {
      analyser.getByteTimeDomainData(data);
      let peak = 0;
      for (const v of data) peak = Math.max(peak, Math.abs(v - 128));
      onLevel(Math.min(1, peak / 64));
    }, 50);
    return () => {
      clearInterval(timer);
      void context.close();
    };
  } catch {
    return () => {};
  }
}

export async function record(maxSeconds: number, onLevel: (level: number) => void, onCap: () => void): Promise<Listening> {
  const stream = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: true } });
  const type = ["audio/webm;codecs=opus", "audio/ogg;codecs=opus", "audio/webm"].find((t) => MediaRecorder.isTypeSupported?.(t));
  const recorder = new MediaRecorder(stream, type ? { mimeType: type } : {});
  const chunks: Blob[] = [];
  recorder.ondataavailable = (e) => e.data.size && chunks.push(e.data);
  const stopMeter = meter(stream, onLevel);
  const cap = setTimeout(onCap, maxSeconds * 1000);
  const end = () => {
    clearTimeout(cap);
    stopMeter();
    for (const track of stream.getTracks()) track.stop();
  };
  recorder.start();
  return {
    stop: () =>
      new Promise((resolve) => {
        recorder.onstop = () => {
          end();
          resolve(chunks.length ? new Blob(chunks, { type: recorder.mimeType || "audio/webm" }) : null);
        };
        recorder.stop();
      }),
    cancel() {
      recorder.onstop = null;
      if (recorder.state !== "inactive") recorder.stop();
      end();
    },
  };
}

/**
 * `onOver` is called at the length cap, and when the recognition ends by itself — after an error
 * (offline, Chromium fires "network" and then `end`) or the browser's own end of listening — so
 * the caller can `stop()` it and recover its controls; not after `stop()` or `cancel()`.
 */
export function recognize(language: string, maxSeconds: number, onOver: () => void, failure: (code: string) => Error): Listening {
  const Class = recognitionClass()!;
  const r = new Class();
  r.lang = language;
  r.interimResults = false;
  r.continuous = true;
  let heard = "";
  let failed: string | null = null;
  let ended = false;
  let asked = false;
  let resolveEnd: () => void = () => {};
  const over = new Promise<void>((resolve) => (resolveEnd = resolve));
  r.onresult = (e) => {
    heard = Array.from(e.results, (result) => result[0]?.transcript ?? "").join(" ");
  };
  r.onerror = (e) => (failed = e.error);
  r.onend = () => {
    ended = true;
    resolveEnd();
    if (!asked) onOver();
  };
  const cap = setTimeout(onOver, maxSeconds * 1000);
  r.start();
  return {
    async stop() {
      asked = true;
      clearTimeout(cap);
      if (!ended) r.stop();
      await over;
      if (failed && failed !== "no-speech" && failed !== "aborted") throw failure(failed);
      return heard.trim();
    },
    cancel() {
      asked = true;
      clearTimeout(cap);
      r.abort();
    },
  };
}
