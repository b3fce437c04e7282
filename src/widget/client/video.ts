// Video mode (README "Voice and video"): a voice conversation with a face. "Video call" opens a
// call view — the agent's avatar (avatar_config: image_url, or the agent's initial on its
// colours), animated by the level of the speech while the agent speaks, captions underneath — in
// the agent's video_display_mode: inline (over the conversation, in the panel), pip (a small
// window over the page) or fullscreen (Escape leaves). Answers are asked for in mode "video". No
// camera is used.
import { h } from "./dom.ts";
import type { Widget } from "./context.ts";
import type { Voice } from "./voice.ts";

type Layout = "inline" | "pip" | "fullscreen";

/** The speech's level, 0–1, from the <audio> element of server speech (null where there is none). */
function levelOf(audio: HTMLAudioElement | null): (() => number) | null {
  if (!audio) return null;
  let analyser: AnalyserNode | null = null;
  let data = new Uint8Array(0);
  return () => {
    if (!analyser) {
      try {
        const context = new AudioContext();
        analyser = context.createAnalyser();
        analyser.fftSize = 256;
        const source = context.createMediaElementSource(audio);
        source.connect(analyser);
        analyser.connect(context.destination);
        data = new Uint8Array(analyser.fftSize);
      } catch {
        return 0;
      }
    }
    analyser.getByteTimeDomainData(data);
    let peak = 0;
    for (const v of data) peak = Math.max(peak, Math.abs(v - 128));
    return Math.min(1, peak / 48);
  };
}

/** The agent's face in the call: its avatar image (an https URL only), else its name's initial. */
function agentFace(look: Record<string, unknown>, name: string): HTMLElement {
  const face = h("div", { class: "face", "aria-hidden": "true" });
  if (typeof look.image_url === "string" && /^https:\/\/[^\s"'<>]+$/i.test(look.image_url)) face.append(h("img", { src: look.image_url, alt: "" }));
  else face.append(h("span", {}, name.slice(0, 1).toUpperCase()));
  return face;
}

export function createCall(w: Widget, voice: Voice, agent: Record<string, unknown>) {
  const look = (agent.avatar_config ?? {}) as Record<string, unknown>;
  const layout: Layout = agent.video_display_mode === "pip" || agent.video_display_mode === "fullscreen" ? agent.video_display_mode : "inline";
  const { t } = w.texts;
  const name = typeof agent.name === "string" && agent.name ? agent.name : t("widget.agent");
  const face = agentFace(look, name);
  const captions = h("p", { class: "captions", "aria-live": "polite" });
  const talk = h("button", { type: "button", class: "talk", "aria-pressed": "false" });
  const end = h("button", { type: "button", class: "secondary" });
  const view = h(
    "div",
    { class: `call ${layout}`, role: layout === "inline" ? "region" : "dialog", hidden: "" },
    face,
    captions,
    h("div", { class: "call-tools" }, talk, end),
  );
  const open = h("button", { type: "button", class: "secondary video" });
  w.texts.bind(() => {
    talk.textContent = t("widget.video_talk");
    end.textContent = t("widget.video_end");
    view.setAttribute("aria-label", t("widget.video_with", { name }));
    open.textContent = t("widget.video_call");
  });
  w.shell.person.before(open);
  if (layout === "inline") w.shell.log.before(view);
  else w.shell.root.append(view);

  const level = levelOf(voice.speaker?.audio ?? null);
  let frame = 0;
  let speaking = false;
  const animate = () => {
    // Server speech: the audio's level; the browser's voices give none, so a gentle pulse.
    const v = speaking ? (level ? level() : 0.35 + 0.25 * Math.sin(Date.now() / 120)) : 0;
    view.style.setProperty("--level", v.toFixed(2));
    view.classList.toggle("speaking", speaking);
    frame = speaking ? requestAnimationFrame(animate) : 0;
  };
  const close = () => {
    view.hidden = true;
    voice.mode = "voice";
    voice.speaker?.stop();
    open.focus();
  };
  voice.speaking = (on) => {
    speaking = on;
    if (on && !frame) frame = requestAnimationFrame(animate);
    if (!on) animate();
  };
  voice.listening = (on) => {
    talk.setAttribute("aria-pressed", String(on));
    if (on && !view.hidden) captions.textContent = t("widget.video_listening", { name });
  };
  // Listening failed: the call says so, not "listening"; full screen covers the message box the
  // customer is offered instead, so that call ends.
  voice.failed = (apology) => {
    if (view.hidden) return;
    if (layout === "fullscreen") close();
    else captions.textContent = apology;
  };
  voice.caption = (text) => {
    if (view.hidden) return;
    captions.textContent = text === null ? "" : (captions.textContent + text).slice(-280);
  };
  open.addEventListener("click", () => {
    view.hidden = false;
    voice.mode = "video";
    captions.textContent = t("widget.video_hint", { name });
    talk.focus();
  });
  talk.addEventListener("click", () => voice.tap());
  end.addEventListener("click", close);
  view.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && layout !== "inline") {
      e.preventDefault();
      e.stopPropagation();
      close();
    }
  });
}
