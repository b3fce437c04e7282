// The embeddable chat widget, served as /widget.js (issue #14). Runs on the customer's site, so:
//   * everything renders in a shadow root on a custom element: the page's CSS reaches only the
//     host element, whose `:host` rules are `!important` (a shadow tree's important declarations
//     win over the page's, CSS Cascade 4 §6.1), and our CSS cannot leak out;
//   * styles go through a constructed stylesheet (`adoptedStyleSheets`), which a page's strict
//     `style-src` CSP does not block, and sizes are in px (the page may set the root font size);
//   * nothing is built with innerHTML: text from the model and the page is only ever textContent,
//     and links are made only from http(s) URLs;
//   * it talks to the service with the publishable key (Authorization header, no cookies).
// Contract with the service: README "Widget SDK" and "Chat" (stream framing §4.5).
import { STYLES } from "./styles.ts";

type Json = Record<string, unknown>;
type Role = "user" | "agent" | "note";
interface StoredMessage {
  role: Role;
  text: string;
  /** A customer message sent as a request for a person (mode livehelp), resent as such on retry. */
  livehelp?: boolean;
  /** The reply ended in an error or was cut: shown with a retry button. */
  failed?: boolean;
  /** The documents an agent reply used (the `sources` action of the stream). */
  sources?: Source[];
}
interface Source {
  title: string;
  url: string | null;
}
interface Stored {
  sessionId: string | null;
  userId: string | null;
  visitorId: string;
  open: boolean;
  messages: StoredMessage[];
}
interface Identity {
  user_id: string;
  user_token?: string;
  email?: string;
  name?: string;
  company_id?: string;
  custom_fields?: Json;
}
type EventName = "message" | "routed" | "open" | "close";

const RS = "\x1e";
const MAX_STORED = 60;
const URL_RE = /https?:\/\/[^\s<>"'()]+[^\s<>"'().,;:!?]/g;

declare global {
  interface Window {
    SvcAgents?: unknown;
  }
}

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) el.append(c);
  return el;
}

function svg(path: string): SVGSVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const s = document.createElementNS(ns, "svg");
  s.setAttribute("viewBox", "0 0 24 24");
  s.setAttribute("aria-hidden", "true");
  s.setAttribute("focusable", "false");
  const p = document.createElementNS(ns, "path");
  p.setAttribute("d", path);
  s.append(p);
  return s;
}
const CHAT_ICON = "M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z";
const CLOSE_ICON = "M6.4 5 12 10.6 17.6 5 19 6.4 13.4 12 19 17.6 17.6 19 12 13.4 6.4 19 5 17.6 10.6 12 5 6.4z";

/** Text with its http(s) URLs as links (the answer cites its sources as URLs). */
function richText(text: string): DocumentFragment {
  const out = document.createDocumentFragment();
  let last = 0;
  for (const m of text.matchAll(URL_RE)) {
    out.append(text.slice(last, m.index));
    const a = h("a", { href: m[0], target: "_blank", rel: "noopener noreferrer" }, m[0]);
    out.append(a);
    last = m.index! + m[0].length;
  }
  out.append(text.slice(last));
  return out;
}

function start(script: HTMLScriptElement) {
  const key = script.dataset.key ?? "";
  const orgId = script.dataset.org ?? "";
  const base = (script.dataset.base ?? new URL(script.src, location.href).origin).replace(/\/+$/, "");
  const storageKey = `svc-agents:${orgId || key.slice(0, 24)}`;

  // ---- state (persisted per org, so a reload keeps the conversation) ----
  const load = (): Stored => {
    try {
      const raw = JSON.parse(localStorage.getItem(storageKey) ?? "null") as Stored | null;
      // A reply still empty was cut by the reload that is now loading us: not worth a bubble.
      if (raw && Array.isArray(raw.messages) && typeof raw.visitorId === "string") return { ...raw, messages: raw.messages.filter((m) => m.text) };
    } catch {}
    return { sessionId: null, userId: null, visitorId: `v_${crypto.randomUUID()}`, open: false, messages: [] };
  };
  const state = load();
  const save = () => {
    state.messages = state.messages.slice(-MAX_STORED);
    try {
      localStorage.setItem(storageKey, JSON.stringify(state));
    } catch {}
  };
  let identity: Identity | null = null;
  let liveHelpLabel = "Talk to a person";
  let greeting = "Ask us anything. Answers come from our help articles; a person is one click away.";
  let busy = false;
  let waitUntil = 0;
  const listeners: Record<EventName, ((data: unknown) => void)[]> = { message: [], routed: [], open: [], close: [] };
  const emit = (name: EventName, data: unknown) => {
    for (const fn of listeners[name]) {
      try {
        fn(data);
      } catch (error) {
        console.error(error);
      }
    }
  };

  // ---- DOM ----
  const host = document.createElement("svc-agents-widget");
  const root = host.attachShadow({ mode: "open" });
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLES);
    root.adoptedStyleSheets = [sheet];
  } catch {
    root.append(h("style", {}, STYLES));
  }
  const launcher = h("button", { type: "button", class: "launcher", "aria-label": "Open chat", "aria-expanded": "false", "aria-controls": "svc-panel", "aria-haspopup": "dialog" }, svg(CHAT_ICON));
  const title = h("h2", { id: "svc-title" }, "Chat with us");
  const subtitle = h("p", { class: "subtitle" }, "We usually answer at once.");
  // The agent's picture (avatar_config.image_url, https only): decorative, the title names the agent.
  const avatar = h("img", { class: "avatar", alt: "", hidden: "" });
  avatar.addEventListener("error", () => (avatar.hidden = true));
  const closeButton = h("button", { type: "button", class: "icon", "aria-label": "Close chat" }, svg(CLOSE_ICON));
  const log = h("div", { class: "log", role: "log", "aria-live": "polite", "aria-relevant": "additions text", "aria-label": "Conversation", tabindex: "0" });
  const status = h("p", { class: "status", role: "status" });
  const person = h("button", { type: "button", class: "secondary person" }, liveHelpLabel);
  const input = h("textarea", { id: "svc-input", rows: "2", maxlength: "10000", placeholder: "Ask a question…", autocomplete: "off" });
  const label = h("label", { for: "svc-input", class: "sr-only" }, "Your message");
  const send = h("button", { type: "submit", class: "send" }, "Send");
  const form = h("form", { class: "composer" }, label, input, send);
  const panel = h(
    "div",
    { id: "svc-panel", class: "panel", role: "dialog", "aria-modal": "true", "aria-labelledby": "svc-title", hidden: "" },
    h("header", {}, h("div", { class: "who" }, avatar, h("div", {}, title, subtitle)), closeButton),
    log,
    h("div", { class: "tools" }, person, status),
    form,
  );
  root.append(launcher, panel);

  // ---- rendering ----
  /** "Sources": each document as a link when it has an http(s) URL, else its title. */
  const sourceList = (sources: Source[]): HTMLElement => {
    const list = h("ul", { class: "sources", "aria-label": "Sources" });
    for (const source of sources) {
      const safe = source.url && /^https?:\/\//i.test(source.url) ? source.url : null;
      list.append(h("li", {}, safe ? h("a", { href: safe, target: "_blank", rel: "noopener noreferrer" }, source.title) : source.title));
    }
    return list;
  };
  const bubble = (m: StoredMessage, index: number): HTMLElement => {
    const el = h("div", { class: `msg ${m.role}` });
    const who = m.role === "user" ? "You" : m.role === "agent" ? "Agent" : "";
    if (who) el.append(h("span", { class: "sr-only" }, `${who}: `));
    const body = h("div", { class: "text" });
    body.append(richText(m.text));
    el.append(body);
    if (m.sources?.length) el.append(sourceList(m.sources));
    if (m.failed) {
      const retry = h("button", { type: "button", class: "secondary retry" }, "Retry");
      retry.addEventListener("click", () => retryAt(index));
      el.append(retry);
    }
    return el;
  };
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
  };
  const setBusy = (value: boolean) => {
    busy = value;
    log.setAttribute("aria-busy", String(value));
    send.disabled = value;
    person.disabled = value;
  };

  // ---- open / close, focus trap ----
  const open = (focus = true) => {
    if (!panel.hidden) return;
    panel.hidden = false;
    launcher.setAttribute("aria-expanded", "true");
    launcher.setAttribute("aria-label", "Close chat");
    launcher.replaceChildren(svg(CLOSE_ICON));
    state.open = true;
    save();
    render();
    if (focus) input.focus();
    emit("open", {});
  };
  const close = () => {
    if (panel.hidden) return;
    panel.hidden = true;
    launcher.setAttribute("aria-expanded", "false");
    launcher.setAttribute("aria-label", "Open chat");
    launcher.replaceChildren(svg(CHAT_ICON));
    state.open = false;
    save();
    launcher.focus();
    emit("close", {});
  };
  launcher.addEventListener("click", () => (panel.hidden ? open() : close()));
  closeButton.addEventListener("click", close);
  panel.addEventListener("keydown", (e) => {
    if (e.key === "Escape") {
      e.preventDefault();
      close();
      return;
    }
    if (e.key !== "Tab") return;
    // The dialog is modal: Tab and Shift+Tab cycle through its controls only.
    const focusable = [...panel.querySelectorAll<HTMLElement>("button:not([disabled]), textarea, a[href], [tabindex='0']")].filter((el) => el.offsetParent !== null);
    if (focusable.length === 0) return;
    const first = focusable[0]!;
    const last = focusable[focusable.length - 1]!;
    const active = root.activeElement;
    if (e.shiftKey && (active === first || !panel.contains(active))) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && (active === last || !panel.contains(active))) {
      e.preventDefault();
      first.focus();
    }
  });

  // ---- the service ----
  const headers = () => ({ Authorization: `Bearer ${key}`, "Content-Type": "application/json" });
  const who = (): Json => (identity ? { user_id: identity.user_id, ...(identity.user_token ? { user_token: identity.user_token } : {}) } : {});
  const post = async (path: string, body: Json): Promise<Json> => {
    const res = await fetch(`${base}${path}`, { method: "POST", headers: headers(), body: JSON.stringify(body) });
    const json = (await res.json().catch(() => ({}))) as Json;
    if (!res.ok) throw Object.assign(new Error(((json.error as Json | undefined)?.message as string) ?? `HTTP ${res.status}`), { status: res.status, body: json });
    return json;
  };

  const describeAction = (action: Json): string | null => {
    if (action.type === "ticket_created") {
      const team = typeof action.team === "string" && action.team ? ` and routed to the ${action.team} team` : "";
      return `Ticket #${action.ticket_number} created${team}. A person from our team will follow up.`;
    }
    if (action.type === "ticket_updated") return `Your message was added to ticket #${action.ticket_number}. A person from our team will follow up.`;
    if (action.type === "handoff") return "You have been handed over to a colleague who knows this topic.";
    return null;
  };

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
    let ended: "complete" | "error" | "dropped" = "dropped";
    let errorMessage = "The answer was interrupted.";
    try {
      let res = await fetch(`${base}/api/sdk/chat/stream`, { method: "POST", headers: headers(), body: JSON.stringify({ message, mode, ...who(), ...(state.sessionId ? { session_id: state.sessionId } : {}) }) });
      if (res.status === 403 && state.sessionId) {
        // The stored session belongs to someone else now (another user on this browser): start afresh.
        state.sessionId = null;
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
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        // Text outside 0x1E…0x1E records is the reply; a record is handled once it is whole.
        for (;;) {
          const at = buffer.indexOf(RS);
          if (at === -1) {
            reply.text += buffer;
            buffer = "";
            break;
          }
          reply.text += buffer.slice(0, at);
          const end = buffer.indexOf(RS, at + 1);
          if (end === -1) {
            buffer = buffer.slice(at);
            break;
          }
          const record = buffer.slice(at + 1, end);
          buffer = buffer.slice(end + 1);
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
        }
        textEl.replaceChildren(richText(reply.text));
        log.scrollTop = log.scrollHeight;
      }
    } catch {
      ended = ended === "complete" ? ended : "dropped";
      errorMessage = "The connection was lost.";
    } finally {
      replyEl.classList.remove("streaming");
      if (ended !== "complete") {
        if (!reply.text) {
          state.messages.pop();
          shown.pop();
          replyEl.remove();
        }
        state.messages.push({ role: "note", text: errorMessage, failed: true });
      }
      for (const action of actions) {
        const note = describeAction(action);
        if (note) state.messages.push({ role: "note", text: note });
      }
      save();
      setBusy(false);
      render();
      if (ended === "complete") emit("message", { role: "agent", text: reply.text, actions, session_id: state.sessionId });
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

  /** The agent's look (avatar_config, written by setup_configure_widget): title, greeting, colours, corner, picture. */
  const applyLook = (look: Json) => {
    if (typeof look.title === "string" && look.title) title.textContent = look.title;
    if (typeof look.greeting === "string" && look.greeting) greeting = look.greeting;
    const colour = (v: unknown) => (typeof v === "string" && /^#[0-9a-fA-F]{6}$/.test(v) ? v : null);
    // Set through CSSOM, which a page's style-src policy allows; both or neither, so text stays legible.
    const primary = colour(look.primary_color);
    const text = colour(look.text_color);
    if (primary && text) {
      host.style.setProperty("--sa-accent", primary);
      host.style.setProperty("--sa-on-accent", text);
    }
    if (look.position === "left") host.classList.add("left");
    if (typeof look.image_url === "string" && /^https:\/\/[^\s"'<>]+$/i.test(look.image_url)) {
      avatar.src = look.image_url;
      avatar.hidden = false;
    }
    render();
  };

  // ---- configuration ----
  if (orgId) {
    fetch(`${base}/api/sdk/config?org_id=${encodeURIComponent(orgId)}`)
      .then((res) => (res.ok ? (res.json() as Promise<Json>) : null))
      .then((config) => {
        const agent = config?.agent as Json | undefined;
        const org = config?.organization as Json | undefined;
        if (typeof agent?.live_help_label === "string" && agent.live_help_label) liveHelpLabel = agent.live_help_label;
        person.textContent = liveHelpLabel;
        if (typeof agent?.name === "string") title.textContent = agent.name;
        if (typeof org?.name === "string") subtitle.textContent = `${org.name} support`;
        applyLook((agent?.avatar_config ?? {}) as Json);
      })
      .catch(() => {});
  }

  // ---- the public API on window ----
  const api = {
    identify(user: Identity) {
      if (!user || typeof user.user_id !== "string") return Promise.reject(new TypeError("identify needs a user_id"));
      // Another person on this browser: their conversation is not this one.
      if (state.userId !== null && state.userId !== user.user_id) {
        state.sessionId = null;
        state.messages = [];
        render();
      }
      identity = user;
      state.userId = user.user_id;
      save();
      return post("/api/sdk/users/identify", { ...user });
    },
    open: () => open(),
    close,
    track(name: string, properties?: Json) {
      const event: Json = { name, ...(properties ? { properties } : {}) };
      return post("/api/sdk/events", { events: [event], ...who(), anonymous_id: state.visitorId, ...(state.sessionId ? { session_id: state.sessionId } : {}) });
    },
    createTicket(ticket: { subject: string; message: string; email?: string; name?: string; priority?: string; custom_fields?: Json }) {
      return post("/api/sdk/tickets/create", { ...ticket, ...who(), ...(state.sessionId ? { session_id: state.sessionId } : {}) });
    },
    on(name: EventName, fn: (data: unknown) => void) {
      listeners[name]?.push(fn);
      return () => {
        listeners[name] = listeners[name].filter((f) => f !== fn);
      };
    },
    /** The current chat session (X-Session-Id), or null before the first message. */
    sessionId: () => state.sessionId,
  };
  // Callable too, as in `SvcAgents("identify", {...})`; calls queued by the snippet's stub run now.
  const callable = Object.assign((method: keyof typeof api, ...args: unknown[]) => (api[method] as (...a: unknown[]) => unknown)(...args), api, { loaded: true });
  const queued = (window.SvcAgents as { q?: IArguments[] } | undefined)?.q ?? [];
  window.SvcAgents = callable;
  document.body.append(host);
  render();
  if (state.open) open(false);
  for (const args of queued) (callable as (...a: unknown[]) => unknown)(...Array.from(args));
}

const script = (document.currentScript ?? document.querySelector("script[data-key][src*='widget.js']")) as HTMLScriptElement | null;
if (script && !script.dataset.key) console.error("svc-agents widget: the script tag needs data-key=\"ab_live_…\" (and data-org)");
else if (script && !(window.SvcAgents as { loaded?: boolean } | undefined)?.loaded) {
  if (document.body) start(script);
  else document.addEventListener("DOMContentLoaded", () => start(script));
}
