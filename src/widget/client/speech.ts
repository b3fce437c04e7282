// Speaking the answer (README "Voice and video"): sentence by sentence as the text arrives, with
// the browser's speechSynthesis (the default: works offline with the system's voices) or the
// server's voice (POST /api/sdk/voice/speech, played in an <audio> element, the next sentence
// fetched while one plays). `stop` interrupts at once (barge-in). URLs are never read out.
import type { VoiceConfig } from "../../kit/voice-config.ts";
import { jsonHeaders, type Widget } from "./context.ts";

export interface Speaker {
  /** Queues one sentence. */
  say(sentence: string): void;
  /** Stops speaking and forgets the queue. */
  stop(): void;
  /** Resolves when everything queued has been spoken (or stopped). */
  idle(): Promise<void>;
  speaking(): boolean;
  /** The <audio> element of server speech (for the avatar's level), if any. */
  audio: HTMLAudioElement | null;
  /** Called with true when speech starts, false when it ends. */
  onSpeaking?: (on: boolean) => void;
  /** Called when the server's voice failed: the reason. */
  onError?: (message: string) => void;
}

/**
 * The BCP 47 tag speech is heard and said in (README "Languages"): the widget's language, or the
 * agent's voice_config.language when it is a regional form of it ("es-MX" for a Spanish widget);
 * a configured language the customer does not speak is not used.
 */
export function speechLanguage(widgetLanguage: string, configured: string | undefined): string {
  const primary = (tag: string) => tag.toLowerCase().split(/[-_]/)[0];
  return configured && primary(configured) === primary(widgetLanguage) ? configured : widgetLanguage;
}

/** What is said of a text: no URLs, "#12" as "12" (the sentence around it says "ticket", in its language). */
export function forSpeech(text: string): string {
  return text
    .replace(/https?:\/\/\S+/g, "")
    .replace(/#(\d+)/g, "$1")
    .replace(/[()[\]*_`#]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** Cuts streamed text into whole sentences: `push` returns those now complete, `rest` the remainder. */
export function sentenceSplitter() {
  let buffer = "";
  return {
    push(piece: string): string[] {
      buffer += piece;
      const out: string[] = [];
      for (let m = /^[\s\S]*?[.!?](?=\s)\s+/.exec(buffer); m; m = /^[\s\S]*?[.!?](?=\s)\s+/.exec(buffer)) {
        out.push(m[0].trim());
        buffer = buffer.slice(m[0].length);
      }
      return out;
    },
    rest(): string {
      const r = buffer.trim();
      buffer = "";
      return r;
    },
  };
}

function browserSpeaker(settings: VoiceConfig): Speaker {
  const synth = window.speechSynthesis;
  let pending = 0;
  let waiters: (() => void)[] = [];
  const settle = () => {
    if (pending > 0) return;
    speaker.onSpeaking?.(false);
    for (const w of waiters.splice(0)) w();
  };
  const speaker: Speaker = {
    audio: null,
    say(sentence) {
      const text = forSpeech(sentence);
      if (!text) return;
      const u = new SpeechSynthesisUtterance(text);
      u.lang = settings.language;
      u.rate = settings.rate;
      // The agent's named voice when it speaks the language, else the system's first voice that does.
      const voices = synth.getVoices().filter((v) => speechLanguage(settings.language, v.lang) === v.lang);
      const voice = voices.find((v) => v.name === settings.voice) ?? voices[0];
      if (voice) u.voice = voice;
      pending++;
      const done = () => {
        pending = Math.max(0, pending - 1);
        settle();
      };
      u.onend = done;
      u.onerror = done;
      if (pending === 1) speaker.onSpeaking?.(true);
      synth.speak(u);
    },
    stop() {
      pending = 0;
      synth.cancel();
      settle();
    },
    idle: () => (pending === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve))),
    speaking: () => pending > 0,
  };
  return speaker;
}

function serverSpeaker(w: Widget, settings: VoiceConfig, audio: HTMLAudioElement): Speaker {
  let queue: { text: string; blob: Promise<Blob | null> }[] = [];
  let warned = false;
  let playing = false;
  let generation = 0;
  let waiters: (() => void)[] = [];
  let controller = new AbortController();
  const fetchSpeech = async (text: string, signal: AbortSignal): Promise<Blob | null> => {
    const body = { text, rate: settings.rate, ...(settings.voice ? { voice: settings.voice } : {}) };
    const res = await fetch(`${w.base}/api/sdk/voice/speech`, { method: "POST", headers: jsonHeaders(w), body: JSON.stringify(body), signal });
    if (!res.ok) {
      // The service's message is for the operator: the customer is told the catalogue's sentence (./voice.ts).
      throw new Error(w.texts.t("widget.voice_service"));
    }
    return res.blob();
  };
  const finish = () => {
    playing = false;
    speaker.onSpeaking?.(false);
    for (const x of waiters.splice(0)) x();
  };
  const playNext = async () => {
    const mine = generation;
    const next = queue.shift();
    if (!next) return finish();
    playing = true;
    let blob: Blob | null = null;
    try {
      blob = await next.blob;
    } catch (error) {
      if (mine !== generation) return;
      queue = [];
      speaker.onError?.((error as Error).message);
      return finish();
    }
    if (mine !== generation || !blob) return;
    const url = URL.createObjectURL(blob);
    audio.src = url;
    let refused = false;
    const ended = new Promise<void>((resolve) => {
      audio.onended = () => resolve();
      audio.onerror = () => {
        refused = true;
        resolve();
      };
      audio.onpause = () => (audio.ended || mine !== generation ? resolve() : undefined);
    });
    speaker.onSpeaking?.(true);
    await audio.play().catch(() => {});
    await ended;
    URL.revokeObjectURL(url);
    if (refused && mine === generation) {
      // The page's policy may refuse blob: media (README "Widget": media-src blob:), or the browser
      // the format: the sentence is said with the browser's voice rather than not at all.
      if (!warned)
        console.warn("svc-agents widget: the answer's audio could not be played (a Content-Security-Policy needs media-src blob:); using the browser's voice");
      warned = true;
      sayOnce(next.text, settings.language);
    }
    if (mine === generation) void playNext();
  };
  const speaker: Speaker = {
    audio,
    say(sentence) {
      const text = forSpeech(sentence);
      if (!text) return;
      const blob = fetchSpeech(text, controller.signal);
      blob.catch(() => {});
      queue.push({ text, blob });
      if (!playing) void playNext();
    },
    stop() {
      generation++;
      controller.abort();
      controller = new AbortController();
      queue = [];
      audio.pause();
      audio.removeAttribute("src");
      if (playing) finish();
    },
    idle: () => (!playing && queue.length === 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve))),
    speaking: () => playing,
  };
  return speaker;
}

/** The speaker for the settings, or null when the answer is not spoken (tts off, or no speechSynthesis). */
export function createSpeaker(w: Widget, settings: VoiceConfig, audio: HTMLAudioElement): Speaker | null {
  if (settings.tts === "server") return serverSpeaker(w, settings, audio);
  if (settings.tts === "browser" && "speechSynthesis" in window) return browserSpeaker(settings);
  return null;
}

/** Says one thing with the browser's voice, whatever the settings (the apology when the server's voice failed). */
export function sayOnce(text: string, language: string): void {
  if (!("speechSynthesis" in window)) return;
  const u = new SpeechSynthesisUtterance(forSpeech(text));
  u.lang = language;
  window.speechSynthesis.speak(u);
}
