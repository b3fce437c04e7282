// The embeddable chat widget, served as /widget.js. Runs on the customer's site, so:
//   * everything renders in a shadow root on a custom element: the page's CSS reaches only the
//     host element, whose `:host` rules are `!important` (a shadow tree's important declarations
//     win over the page's, CSS Cascade 4 docs/interface.md 6.1), and our CSS cannot leak out;
//   * styles go through a constructed stylesheet (`adoptedStyleSheets`), which a page's strict
//     `style-src` CSP does not block, and sizes are in px (the page may set the root font size);
//   * nothing is built with innerHTML: text from the model and the page is only ever textContent,
//     and links are made only from http(s) URLs;
//   * it talks to the service with the publishable key (Authorization header, no cookies).
// Contract with the service: README "Widget SDK" and "Chat" (stream framing docs/interface.md 4.5).
// The parts, each in its own file: the panel (./panel.ts), the thread (./thread.ts), the composer
// (./composer.ts), one answer (./answer.ts) and the live connection (./live.ts).
import { applyConfig, buildShell } from "./dom.ts";
import { type Identity, openStore } from "./store.ts";
import { installApi, loadConfig, queuedLocale } from "./api.ts";
import { liveConversation } from "./live.ts";
import { typingLine } from "./typing.ts";
import { createWidget, liveHelpLabel, post, type Widget, who } from "./context.ts";
import { createThread, type Thread } from "./thread.ts";
import { createPanel } from "./panel.ts";
import { createAsk } from "./answer.ts";
import { type Composer, createComposer } from "./composer.ts";
import { createVoice } from "./voice.ts";
import { createCall } from "./video.ts";
import { VOICE_DEFAULTS, type VoiceConfig } from "../../kit/voice-config.ts";
import { feedbackPrompts } from "./feedback.ts";
import { createHelp } from "./help.ts";
import { CATALOGUED, createTexts, requestedLocale } from "./texts.ts";
import { en } from "../../i18n/en.ts";
import { speechLanguage } from "./speech.ts";

type Config = Awaited<ReturnType<typeof loadConfig>>;

/**
 * The agent's configuration applied: its name, look and live-help label, and voice — the agent's
 * voice_config, or data-voice="on" on the script tag (the demo's toggle), spoken and heard in the
 * widget's language (./speech.ts speechLanguage) — with video, the same conversation with the
 * agent's face in the agent's display mode (./video.ts).
 */
function configureAgent(w: Widget, script: HTMLScriptElement, config: Config, thread: Thread, composer: Composer): void {
  const { texts } = w;
  const applied = config ? applyConfig(w.shell, config, texts, en["widget.live_help"]) : null;
  if (!config) texts.bind(() => (w.shell.title.textContent = texts.t("widget.title")));
  w.liveHelpLabel = applied?.liveHelpLabel ?? null;
  w.greeting = applied?.greeting ?? null;
  texts.bind(() => (w.shell.person.textContent = liveHelpLabel(w)));
  const configured = ((config?.agent as Record<string, unknown> | undefined)?.voice_config ?? {}) as Partial<VoiceConfig>;
  const voice: VoiceConfig = { ...VOICE_DEFAULTS, ...configured };
  texts.bind(() => (voice.language = speechLanguage(texts.language, configured.language)));
  if (script.dataset.voice === "on") voice.enabled = true;
  const talk = config && voice.enabled ? createVoice(w, thread, composer, voice) : null;
  if (talk) createCall(w, talk, config!.agent as Record<string, unknown>);
}

/** identify(): another person on this browser starts afresh; a locale of theirs becomes the widget's language. */
function identify(w: Widget, user: Identity, ctx: { orgId: string; live: { stop(): void }; thread: Thread }): void {
  const { state } = w;
  // Another person on this browser: their conversation is not this one.
  if (state.userId !== null && state.userId !== user.user_id) {
    ctx.live.stop();
    Object.assign(state, { sessionId: null, live: false, lastEventId: null, unread: 0, rating: null });
    state.messages = [];
    ctx.thread.render();
  }
  w.identity = user;
  state.userId = user.user_id;
  w.save();
  // identify()'s locale wins over the snippet's and the browser's: the widget speaks it from now on.
  const wanted = typeof user.locale === "string" && user.locale.trim() ? user.locale.trim().slice(0, 35) : null;
  if (wanted && wanted !== w.locale && ctx.orgId) {
    w.locale = wanted;
    void loadConfig(w.base, ctx.orgId, wanted).then((next) => {
      if (next && w.locale === wanted)
        w.texts.set(String(next.language ?? "en"), next.dir === "rtl" ? "rtl" : "ltr", (next.texts ?? {}) as Record<string, unknown>);
      ctx.thread.render();
    });
  }
}

async function start(script: HTMLScriptElement) {
  const key = script.dataset.key ?? "";
  const orgId = script.dataset.org ?? "";
  const base = (script.dataset.base ?? new URL(script.src, location.href).origin).replace(/\/+$/, "");
  // The language (README "Languages"): a queued identify()'s locale, else the snippet's data-locale, else the browser's; the service
  // answers the org's default for none. The config is awaited before anything is shown, so the
  // widget never flashes another language; when it cannot be had, the widget speaks English.
  const texts = createTexts();
  const locale = requestedLocale([queuedLocale(), script.dataset.locale], navigator.languages ?? [navigator.language], CATALOGUED);
  const config = orgId ? await loadConfig(base, orgId, locale) : null;
  if (config) texts.set(String(config.language ?? "en"), config.dir === "rtl" ? "rtl" : "ltr", (config.texts ?? {}) as Record<string, unknown>);
  // State persisted per org, so a reload keeps the conversation.
  const w = createWidget(key, base, openStore(`svc-agents:${orgId || key.slice(0, 24)}`), buildShell(texts), texts, locale);
  const { state } = w;

  let composer: Composer | undefined;
  const thread = createThread(w, (index) => composer?.retryAt(index));
  const panel = createPanel(w, thread.render);
  // The live conversation: people's replies as they are written (./live.ts), and their typing (./typing.ts).
  const identityHeaders = (): Record<string, string> =>
    w.identity ? { "X-User-Id": w.identity.user_id, ...(w.identity.user_token ? { "X-User-Token": w.identity.user_token } : {}) } : {};
  const typing = typingLine(w, identityHeaders);
  const live = liveConversation({
    typing: typing.show,
    base,
    key,
    state,
    texts: w.texts,
    save: w.save,
    render: thread.render,
    identity: () => w.identity,
    closed: () => w.shell.panel.hidden !== false,
    showUnread: panel.showUnread,
    emit: (data) => w.emit("message", data),
    resolved: (ticket) => void prompts.rate(w.shell.log, ticket),
  });
  // "Did that help?" under an answer, and the rating prompt when a ticket is resolved (./feedback.ts).
  const prompts = feedbackPrompts({
    state,
    texts: w.texts,
    save: w.save,
    input: w.shell.input,
    post: (path, body) => post(w, path, body),
    who: () => who(w),
    askPerson: () => w.shell.person.click(),
    liveHelpLabel: () => liveHelpLabel(w),
    base,
    key,
  });
  const ask = createAsk(w, { thread, follow: live.follow, unfollow: live.stop, answered: (el) => prompts.afterAnswer(el) });
  composer = createComposer(w, thread, ask);
  // The org's help centre in the panel (./help.ts): search, suggestions, articles, "Still need help?".
  if (orgId) createHelp(w, orgId, { ask: (message) => composer?.submit(message, "chat") });

  // The agent's name, look and live-help label; voice and video.
  configureAgent(w, script, config, thread, composer);

  // The public API on window (./api.ts).
  const runQueued = installApi({
    state,
    listeners: w.listeners,
    post: (path, body) => post(w, path, body),
    who: () => who(w),
    open: () => panel.open(),
    close: panel.close,
    identify: (user) => identify(w, user, { orgId, live, thread }),
  });
  document.body.append(w.shell.host);
  thread.render();
  // A rating prompt still pending before a reload (./feedback.ts).
  prompts.restore(w.shell.log);
  if (state.open) panel.open(false);
  runQueued();
  panel.showUnread();
  live.follow();
}

const script = (document.currentScript ?? document.querySelector("script[data-key][src*='widget.js']")) as HTMLScriptElement | null;
if (script && !script.dataset.key) console.error('svc-agents widget: the script tag needs data-key="ab_live_…" (and data-org)');
else if (script && !(window.SvcAgents as { loaded?: boolean } | undefined)?.loaded) {
  if (document.body) void start(script);
  else document.addEventListener("DOMContentLoaded", () => void start(script));
}
