// Voice in the widget (README "Voice and video"): a microphone button in the composer (tap to
// start, tap again to send; aria-pressed; Space and Enter as on any button; a level meter and a
// timer; stops by itself at max_seconds). What was said becomes the customer's message (a
// caption), the answer streams as text and is spoken sentence by sentence as it arrives; tapping
// the microphone or "Stop" interrupts the speech (barge-in). A failure is written and spoken as an
// apology that offers a person; when listening fails (the browser's recognition offline, the
// microphone refused) the controls are idle again and the message box takes focus, to type instead.
import { h, svg } from "./dom.ts";

const MIC_ICON = "M12 14a3 3 0 0 0 3-3V5a3 3 0 0 0-6 0v6a3 3 0 0 0 3 3zm5-3a5 5 0 0 1-10 0H5a7 7 0 0 0 6 6.92V21h2v-3.08A7 7 0 0 0 19 11h-2z";
import type { AnswerListener, Mode } from "./answer.ts";
import type { Composer } from "./composer.ts";
import { liveHelpLabel, type Widget } from "./context.ts";
import { canRecord, type Listening, recognitionClass, recognize, record } from "./listen.ts";
import { createSpeaker, sayOnce, sentenceSplitter, type Speaker } from "./speech.ts";
import type { VoiceConfig } from "../../kit/voice-config.ts";
import type { Thread } from "./thread.ts";

export interface Voice {
  speaker: Speaker | null;
  /** "video" while a call view is open (./video.ts): answers are asked for in that mode. */
  mode: Extract<Mode, "voice" | "video">;
  /** Taps the microphone (the call view's own button). */
  tap(): void;
  /** The answer's text as it arrives (the call view's captions); null when a new answer starts. */
  caption?: (text: string | null) => void;
  /** The agent started (true) or stopped (false) speaking. */
  speaking?: (on: boolean) => void;
  /** The microphone started (true) or stopped (false) listening. */
  listening?: (on: boolean) => void;
  /** Listening failed: what the customer was told (the composer has focus after this). */
  failed?: (apology: string) => void;
}

/** Why listening or speaking failed, as a catalogue sentence (an Error's message is one already). */
export class VoiceFailure extends Error {}

/** How the customer is told something failed: a note in the thread, and the same words spoken; returns them. */
function apologise(w: Widget, thread: Thread, settings: VoiceConfig, reason: string): string {
  const text = w.texts.t("widget.voice_failed", { reason, label: liveHelpLabel(w) });
  w.state.messages.push({ role: "note", text, failed: false });
  w.save();
  thread.render();
  sayOnce(text, settings.language);
  return text;
}

/** Server speech to text in the widget's language (`language`, passed on as the transcription's `language`: src/sdk/speech.ts). */
async function transcribe(w: Widget, blob: Blob, language: string): Promise<string> {
  const res = await fetch(`${w.base}/api/sdk/voice/transcribe?language=${encodeURIComponent(language)}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${w.key}`, "Content-Type": blob.type || "audio/webm" },
    body: blob,
  });
  const json = (await res.json().catch(() => ({}))) as { text?: string };
  if (res.status === 429) throw new VoiceFailure(w.texts.t("widget.voice_busy", { seconds: Math.max(1, Number(res.headers.get("Retry-After")) || 30) }));
  if (!res.ok) throw new VoiceFailure(w.texts.t("widget.voice_service"));
  return json.text ?? "";
}

/** What the customer is told when the browser's recognition failed, by its error code (Web Speech API, SpeechRecognitionErrorEvent). */
function recognitionFailure(w: Widget, code: string): string {
  if (code === "network") return w.texts.t("widget.voice_network");
  if (code === "not-allowed" || code === "service-not-allowed") return w.texts.t("widget.voice_not_allowed");
  if (code === "audio-capture") return w.texts.t("widget.voice_no_microphone");
  return w.texts.t("widget.voice_recognition");
}

/** The voice controls placed in the widget: the microphone, its level meter and timer, and the Stop-speaking button. */
interface VoiceControls {
  mic: HTMLButtonElement;
  stop: HTMLButtonElement;
  /** The level meter's width, 0–1. */
  showLevel(v: number): void;
  /** The microphone pressed or not, the meter and timer shown and running or not. */
  setListening(on: boolean): void;
}

/** Builds the controls into the composer (the Stop button before the live-help button); `onListening` hears every change. */
function voiceControls(w: Widget, audio: HTMLAudioElement, onListening: (on: boolean) => void): VoiceControls {
  const { form, send } = w.shell;
  const { t } = w.texts;
  const mic = h("button", { type: "button", class: "secondary mic", "aria-pressed": "false" }, svg(MIC_ICON));
  const level = h("span", { class: "level", "aria-hidden": "true" }, h("span", {}));
  const timer = h("span", { class: "timer", role: "timer" }, "0:00");
  const stop = h("button", { type: "button", class: "secondary stop", hidden: "" });
  w.texts.bind(() => {
    mic.setAttribute("aria-label", mic.getAttribute("aria-pressed") === "true" ? t("widget.stop_and_send") : t("widget.speak"));
    timer.setAttribute("aria-label", t("widget.recording_time"));
    stop.textContent = t("widget.stop");
  });
  const meterBox = h("span", { class: "meter", hidden: "" }, level, timer);
  form.insertBefore(h("span", { class: "voice" }, mic, meterBox, audio), send);
  w.shell.person.before(stop);

  let started = 0;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const showLevel = (v: number) => ((level.firstElementChild as HTMLElement).style.width = `${Math.round(v * 100)}%`);
  const setListening = (on: boolean) => {
    mic.setAttribute("aria-pressed", String(on));
    mic.setAttribute("aria-label", on ? t("widget.stop_and_send") : t("widget.speak"));
    meterBox.hidden = !on;
    clearInterval(ticker);
    onListening(on);
    if (on) {
      started = Date.now();
      ticker = setInterval(() => {
        const s = Math.floor((Date.now() - started) / 1000);
        timer.textContent = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
      }, 250);
    } else timer.textContent = "0:00";
  };
  return { mic, stop, showLevel, setListening };
}

/**
 * What hears a spoken question's answer: each sentence spoken as it completes and captioned, a
 * failure said once, and (auto_listen) `listenAgain` once the answer has been spoken in full.
 */
function spokenAnswer(w: Widget, voice: Voice, settings: VoiceConfig, listenAgain: () => void): AnswerListener {
  const { speaker } = voice;
  const split = sentenceSplitter();
  voice.caption?.(null);
  return {
    text(piece) {
      for (const sentence of split.push(piece)) speaker?.say(sentence);
      voice.caption?.(piece);
    },
    end(complete, failure) {
      const rest = split.rest();
      if (rest) speaker?.say(rest);
      if (failure) sayOnce(w.texts.t("widget.voice_failed_spoken", { reason: failure }), settings.language);
      if (complete && settings.auto_listen) void (speaker?.idle() ?? Promise.resolve()).then(listenAgain);
    },
  };
}

/** The microphone button and what it does; null (and a note) when this browser can neither record nor recognise. */
export function createVoice(w: Widget, thread: Thread, composer: Composer, settings: VoiceConfig): Voice | null {
  const server = settings.stt === "server" && canRecord();
  const browser = !server && recognitionClass() !== null;
  if (!server && !browser) {
    w.shell.status.textContent = w.texts.t("widget.voice_unavailable");
    return null;
  }
  const audio = h("audio", { class: "speech", preload: "auto" });
  const speaker = createSpeaker(w, settings, audio);
  const { t } = w.texts;
  const { mic, stop, showLevel, setListening } = voiceControls(w, audio, (on) => voice.listening?.(on));
  const voice: Voice = { speaker, mode: "voice", tap: () => mic.click() };

  let listening: Listening | null = null;
  if (speaker)
    speaker.onSpeaking = (on) => {
      stop.hidden = !on;
      voice.speaking?.(on);
    };
  // The voice service's own message is English for the operator: the customer hears the catalogue's.
  if (speaker) speaker.onError = () => apologise(w, thread, settings, t("widget.voice_service"));
  /** Listening failed: said, the call view told, and typing offered (the message box takes focus). */
  const failed = (reason: string) => {
    voice.failed?.(apologise(w, thread, settings, reason));
    w.shell.input.focus();
  };
  const listener = () =>
    spokenAnswer(w, voice, settings, () => {
      if (!listening) void start();
    });

  const finish = async () => {
    const current = listening;
    if (!current) return;
    listening = null;
    setListening(false);
    try {
      const result = await current.stop();
      const text = typeof result === "string" ? result : result ? await transcribe(w, result, settings.language) : "";
      if (!text.trim()) return failed(t("widget.voice_recognition"));
      composer.submit(text, voice.mode, listener());
    } catch (error) {
      failed(error instanceof VoiceFailure ? error.message : t("widget.voice_service"));
    }
  };
  async function start() {
    speaker?.stop();
    if (thread.busy()) return;
    try {
      listening = server
        ? await record(settings.max_seconds, showLevel, () => void finish())
        : recognize(
            settings.language,
            settings.max_seconds,
            () => void finish(),
            (code) => new VoiceFailure(recognitionFailure(w, code)),
          );
      setListening(true);
    } catch (error) {
      // getUserMedia: NotAllowedError when refused; NotFoundError, NotReadableError and others when the microphone cannot be used.
      failed((error as Error).name === "NotAllowedError" ? t("widget.voice_not_allowed") : t("widget.voice_microphone"));
    }
  }
  mic.addEventListener("click", () => (listening ? void finish() : void start()));
  stop.addEventListener("click", () => {
    speaker?.stop();
    listening?.cancel();
    listening = null;
    setListening(false);
  });
  return voice;
}
