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
import { applyConfig, buildShell, CHAT_ICON, CLOSE_ICON, h, messageBubble, richText, sourceList, svg, trapFocus } from "./dom.ts";
import { type Identity, type Json, openStore, type StoredMessage } from "./store.ts";
import { eventHub, installApi, loadConfig } from "./api.ts";
import { describeAction, liveConversation } from "./live.ts";
import { readChatStream } from "./stream.ts";
import { waitingForPerson } from "./waiting.ts";
import { feedbackPrompts } from "./feedback.ts";

function start(script: HTMLScriptElement) {
  const key = script.dataset.key ?? "";
  const orgId = script.dataset.org ?? "";
  const base = (script.dataset.base ?? new URL(script.src, location.href).origin).replace(/\/+$/, "");
  const storageKey = `svc-agents:${orgId || key.slice(0, 24)}`;

  // ---- state (persisted per org, so a reload keeps the conversation) ----
  const { state, save } = openStore(storageKey);
  let identity: Identity | null = null;
  let liveHelpLabel = "Talk to a person";
  let greeting = "Ask us anything. Answers come from our help articles; a person is one click away.";
  let busy = false;
  let waitUntil = 0;
  const { listeners, emit } = eventHub();

  // ---- DOM ----
  const shell = buildShell(liveHelpLabel);
  const { host, root, launcher, badge, title, subtitle, closeButton, log, status, person, input, send, form, panel } = shell;

  const waiting = waitingForPerson(state, person);

  // ---- rendering ----
  const bubble = (m: StoredMessage, index: number): HTMLElement => messageBubble(m, () => retryAt(index));
  // The log is a live region: new messages are appended, never the whole history re-inserted
  // (which a screen reader would read out again); only a reset or a retry rebuilds it.
  let shown: StoredMessage[] = [];
  const render = () => {
    const appended = shown.length > 0 && shown.length <= state.messages.length && shown.every((m, i) => state.messages[i] === m);
    if (appended) log.append(...state.messages.slice(shown.length).map((m, i) => bubble(m, shown.length + i)));
    else {
      log.replaceChildren(...state.messages.map(bubble));
      if (state.messages.length === 0) log.append(h("p", { class: "empty" }, greeting));
    }
    shown = [...state.messages];
    log.scrollTop = log.scrollHeight;
    waiting.update();
  };
  const setBusy = (value: boolean) => {
    busy = value;
    log.setAttribute("aria-busy", String(value));
    send.disabled = value;
    person.disabled = value;
  };

  /** The launcher's accessible name says what its badge shows. */
  const showUnread = () => {
    const unread = panel.hidden ? (state.unread ?? 0) : 0;
    badge.textContent = String(unread);
    badge.hidden = unread === 0;
    launcher.setAttribute("aria-label", !panel.hidden ? "Close chat" : unread ? `Open chat, ${unread} unread ${unread === 1 ? "message" : "messages"}` : "Open chat");
  };

  // ---- open / close, focus trap ----
  const open = (focus = true) => {
    if (!panel.hidden) return;
    panel.hidden = false;
    launcher.setAttribute("aria-expanded", "true");
    launcher.replaceChildren(svg(CLOSE_ICON), badge);
    state.open = true;
    state.unread = 0;
    showUnread();
    save();
    render();
    if (focus) input.focus();
    emit("open", {});
  };
  const close = () => {
    if (panel.hidden) return;
    panel.hidden = true;
    launcher.setAttribute("aria-expanded", "false");
    launcher.replaceChildren(svg(CHAT_ICON), badge);
    showUnread();
    state.open = false;
    save();
    launcher.focus();
    emit("close", {});
  };
  launcher.addEventListener("click", () => (panel.hidden ? open() : close()));
  closeButton.addEventListener("click", close);
  trapFocus(panel, root, close);

  // ---- the service ----
  const headers = () => ({ Authorization: `Bearer ${key}`, "Content-Type": "application/json" });
  const who = (): Json => (identity ? { user_id: identity.user_id, ...(identity.user_token ? { user_token: identity.user_token } : {}) } : {});
  const post = async (path: string, body: Json): Promise<Json> => {
    const res = await fetch(`${base}${path}`, { method: "POST", headers: headers(), body: JSON.stringify(body) });
    const json = (await res.json().catch(() => ({}))) as Json;
    if (!res.ok) throw Object.assign(new Error(((json.error as Json | undefined)?.message as string) ?? `HTTP ${res.status}`), { status: res.status, body: json });
    return json;
  };

  // ---- the live conversation: people's replies as they are written (./live.ts) ----
  const live = liveConversation({
    base,
    key,
    state,
    save,
    render,
    identity: () => identity,
    closed: () => panel.hidden !== false,
    showUnread,
    emit: (data) => emit("message", data),
    resolved: (ticket) => void prompts.rate(log, ticket),
  });
  const prompts = feedbackPrompts({ state, post, who, askPerson: () => person.click(), base, key });
  const follow = live.follow;
  const unfollowNow = live.stop;

  /** After a 429, until its Retry-After has passed: says how long to wait, and nothing is sent. */
  const holding = (): boolean => {
    if (Date.now() >= waitUntil) return false;
    status.textContent = `Please wait ${Math.ceil((waitUntil - Date.now()) / 1000)} seconds, then try again.`;
    return true;
  };

  /** Streams one answer into the last message. Resolves when the stream ended, one way or another. */
  const ask = async (message: string, mode: "chat" | "livehelp") => {
    if (busy || holding()) return;
    setBusy(true);
    status.textContent = "";
    const reply: StoredMessage = { role: "agent", text: "" };
    state.messages.push(reply);
    render();
    const replyEl = log.lastElementChild as HTMLElement;
    const textEl = replyEl.querySelector(".text") as HTMLElement;
    replyEl.classList.add("streaming");
    const actions: Json[] = [];
    let ended = "dropped" as "complete" | "error" | "dropped";
    let errorMessage = "The answer was interrupted.";
    try {
      let res = await fetch(`${base}/api/sdk/chat/stream`, { method: "POST", headers: headers(), body: JSON.stringify({ message, mode, ...who(), ...(state.sessionId ? { session_id: state.sessionId } : {}) }) });
      if (res.status === 403 && state.sessionId) {
        // The stored session belongs to someone else now (another user on this browser): start afresh.
        state.sessionId = null;
        Object.assign(state, { live: false, lastEventId: null });
        unfollowNow();
        res = await fetch(`${base}/api/sdk/chat/stream`, { method: "POST", headers: headers(), body: JSON.stringify({ message, mode, ...who() }) });
      }
      if (res.status === 429) {
        const seconds = Math.max(1, Number(res.headers.get("Retry-After")) || 30);
        waitUntil = Date.now() + seconds * 1000;
        ended = "error";
        errorMessage = `We're receiving a lot of messages right now. Please wait ${seconds} seconds, then try again.`;
        return;
      }
      if (!res.ok || !res.body) {
        const json = (await res.json().catch(() => ({}))) as Json;
        ended = "error";
        errorMessage = ((json.error as Json | undefined)?.message as string) ?? "Something went wrong.";
        return;
      }
      state.sessionId = res.headers.get("X-Session-Id") ?? state.sessionId;
      save();
      await readChatStream(res.body, {
        text: (piece) => (reply.text += piece),
        record(record) {
          if (record.startsWith("__ACTION__")) {
            const action = JSON.parse(record.slice(10)) as Json;
            actions.push(action);
            if (action.type === "ticket_created" || action.type === "ticket_updated" || action.type === "handoff") emit("routed", action);
            if (action.type === "sources" && Array.isArray(action.sources)) {
              reply.sources = (action.sources as Json[])
                .filter((x) => typeof x.title === "string")
                .map((x) => ({ title: x.title as string, url: typeof x.url === "string" ? x.url : null }));
              if (reply.sources.length) replyEl.append(sourceList(reply.sources));
            }
          } else if (record.startsWith("__ACTIONS__")) ended = "complete";
          else if (record.startsWith("__ERROR__")) {
            ended = "error";
            errorMessage = ((JSON.parse(record.slice(9)) as Json).message as string) ?? errorMessage;
          }
        },
        chunk() {
          textEl.replaceChildren(richText(reply.text));
          log.scrollTop = log.scrollHeight;
        },
      });
    } catch {
      ended = ended === "complete" ? ended : "dropped";
      errorMessage = "The connection was lost.";
    } finally {
      replyEl.classList.remove("streaming");
      // No text: a cut before the first word, or the AI staying quiet while a person owns the conversation.
      if (!reply.text) {
        if (state.messages.includes(reply)) state.messages.splice(state.messages.indexOf(reply), 1);
        if (shown.includes(reply)) shown.splice(shown.indexOf(reply), 1);
        replyEl.remove();
      }
      if (ended !== "complete") state.messages.push({ role: "note", text: errorMessage, failed: true });
      for (const action of actions) {
        const told = describeAction(action, Boolean(identity?.email));
        if (told.note) state.messages.push({ role: "note", text: told.note });
        if (told.status) status.textContent = told.status;
        if (action.type === "ticket_created" || action.type === "ticket_updated") state.live = true;
        waiting.seen(action);
      }
      follow();
      save();
      setBusy(false);
      render();
      if (ended === "complete") emit("message", { role: "agent", text: reply.text, actions, session_id: state.sessionId });
      if (ended === "complete" && reply.text && !actions.some((a) => String(a.type).startsWith("ticket_"))) prompts.afterAnswer(replyEl);
    }
  };

  /** Retry: resend the customer message the failed reply answered. */
  const retryAt = (index: number) => {
    if (holding()) return;
    const question = [...state.messages.slice(0, index)].reverse().find((m) => m.role === "user");
    state.messages.splice(index, 1);
    if (question) void ask(question.text, question.livehelp ? "livehelp" : "chat").then(() => input.focus());
  };

  /** Sends a customer message; false when it was not sent (empty, an answer under way, or a 429 wait). */
  const submit = (text: string, mode: "chat" | "livehelp"): boolean => {
    const message = text.trim();
    if (!message || busy) return false;
    if (holding()) return false;
    state.messages.push({ role: "user", text: message, ...(mode === "livehelp" ? { livehelp: true } : {}) });
    save();
    emit("message", { role: "user", text: message, session_id: state.sessionId });
    void ask(message, mode);
    return true;
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (submit(input.value, "chat")) input.value = "";
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  person.addEventListener("click", () => submit(liveHelpLabel, "livehelp"));

  // ---- configuration: the agent's name, look and live-help label ----
  if (orgId)
    void loadConfig(base, orgId).then((config) => {
      if (!config) return;
      const applied = applyConfig(shell, config);
      liveHelpLabel = applied.liveHelpLabel ?? liveHelpLabel;
      person.textContent = liveHelpLabel;
      greeting = applied.greeting ?? greeting;
      render();
    });

  // ---- the public API on window (./api.ts) ----
  const runQueued = installApi({
    state,
    listeners,
    post,
    who,
    open: () => open(),
    close,
    identify(user) {
      // Another person on this browser: their conversation is not this one.
      if (state.userId !== null && state.userId !== user.user_id) {
        unfollowNow();
        Object.assign(state, { sessionId: null, live: false, lastEventId: null, unread: 0 });
        state.messages = [];
        render();
      }
      identity = user;
      state.userId = user.user_id;
      save();
    },
  });
  document.body.append(host);
  render();
  if (state.open) open(false);
  runQueued();
  showUnread();
  follow();
}

const script = (document.currentScript ?? document.querySelector("script[data-key][src*='widget.js']")) as HTMLScriptElement | null;
if (script && !script.dataset.key) console.error("svc-agents widget: the script tag needs data-key=\"ab_live_…\" (and data-org)");
else if (script && !(window.SvcAgents as { loaded?: boolean } | undefined)?.loaded) {
  if (document.body) start(script);
  else document.addEventListener("DOMContentLoaded", () => start(script));
}
