// The widget's DOM: a shadow root on a custom element, built with createElement only (text is only
// ever textContent; links only from http(s) URLs), and the pieces the controller updates.
import type { Source, StoredMessage } from "./store.ts";
import { STYLES } from "./styles.ts";
import { DARK_BACKGROUNDS, inkOn, LIGHT_BACKGROUNDS, readableOn } from "./colour.ts";
import { personName, type Texts } from "./texts.ts";

const URL_RE = /https?:\/\/[^\s<>"'()]+[^\s<>"'().,;:!?]/g;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) el.append(c);
  return el;
}

export function svg(path: string): SVGSVGElement {
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
export const CHAT_ICON = "M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z";
export const CLOSE_ICON = "M6.4 5 12 10.6 17.6 5 19 6.4 13.4 12 19 17.6 17.6 19 12 13.4 6.4 19 5 17.6 10.6 12 5 6.4z";

/** Text with its http(s) URLs as links (the answer cites its sources as URLs). */
export function richText(text: string): DocumentFragment {
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

/** "Sources": each document as a link when it has an http(s) URL, else its title. */
export function sourceList(sources: Source[], texts: Texts): HTMLElement {
  const list = h("ul", { class: "sources", "aria-label": texts.t("widget.sources") });
  for (const source of sources) {
    const safe = source.url && /^https?:\/\//i.test(source.url) ? source.url : null;
    list.append(h("li", {}, safe ? h("a", { href: safe, target: "_blank", rel: "noopener noreferrer" }, source.title) : source.title));
  }
  return list;
}

/**
 * Builds the launcher and the panel inside a new shadow root; the host is not yet in the page. Its
 * words are bound to `texts` (./texts.ts); the host carries `lang` and `dir` (the shadow tree
 * inherits both from its host, HTML "The dir attribute"), so a right-to-left language mirrors the
 * panel through the stylesheet's logical properties (./styles.ts).
 */
export function buildShell(texts: Texts) {
  const host = document.createElement("svc-agents-widget");
  const root = host.attachShadow({ mode: "open" });
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLES);
    root.adoptedStyleSheets = [sheet];
  } catch {
    root.append(h("style", {}, STYLES));
  }
  // The unread count: decorative, the launcher's accessible name says it.
  const badge = h("span", { class: "badge", "aria-hidden": "true", hidden: "" });
  const launcher = h(
    "button",
    { type: "button", class: "launcher", "aria-expanded": "false", "aria-controls": "svc-panel", "aria-haspopup": "dialog" },
    svg(CHAT_ICON),
    badge,
  );
  const title = h("h2", { id: "svc-title" });
  const subtitle = h("p", { class: "subtitle" });
  // The agent's picture (avatar_config.image_url, https only): decorative, the title names the agent.
  const avatar = h("img", { class: "avatar", alt: "", hidden: "" });
  avatar.addEventListener("error", () => (avatar.hidden = true));
  const closeButton = h("button", { type: "button", class: "icon" }, svg(CLOSE_ICON));
  const log = h("div", { class: "log", role: "log", "aria-live": "polite", "aria-relevant": "additions text", tabindex: "0" });
  const status = h("p", { class: "status", role: "status" });
  const person = h("button", { type: "button", class: "secondary person" });
  const input = h("textarea", { id: "svc-input", rows: "2", maxlength: "10000", autocomplete: "off", dir: "auto" });
  const label = h("label", { for: "svc-input", class: "sr-only" });
  const send = h("button", { type: "submit", class: "send" });
  texts.bind(() => {
    host.lang = texts.language;
    host.dir = texts.dir;
    closeButton.setAttribute("aria-label", texts.t("widget.close_chat"));
    log.setAttribute("aria-label", texts.t("widget.conversation"));
    input.placeholder = texts.t("widget.placeholder");
    label.textContent = texts.t("widget.your_message");
    send.textContent = texts.t("widget.send");
  });
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
  return { host, root, launcher, badge, title, subtitle, avatar, closeButton, log, status, person, input, send, form, panel };
}

/** A person's initials: the first letters of their name's first two words. */
export function initials(name: string): string {
  return (
    name
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 2)
      .map((word) => [...word][0]!.toUpperCase())
      .join("") || "?"
  );
}

/**
 * A person's picture beside their name: decorative (the name is written next to it). The URL is
 * the member's own (a tenant's), so only https, and the image is fetched without a Referer (the
 * customer's page address is not the picture host's business); on any error, the initials.
 */
export function personFace(name: string, avatar: string | undefined): HTMLElement {
  // Drawn by CSS from the attribute: the message's text (what copy and paste take) stays the name and the reply.
  const letters = h("span", { class: "face-sm", "aria-hidden": "true", "data-initials": initials(name) });
  if (!avatar || !/^https:\/\/[^\s"'<>]+$/i.test(avatar)) return letters;
  const img = h("img", { class: "face-sm", alt: "", referrerpolicy: "no-referrer", src: avatar });
  img.addEventListener("error", () => img.replaceWith(letters));
  return img;
}

/** One message of the log; a failed reply carries a retry button. */
export function messageBubble(m: StoredMessage, texts: Texts, onRetry: () => void): HTMLElement {
  const el = h("div", { class: `msg ${m.role}` });
  const who = m.role === "user" ? texts.t("widget.you") : m.role === "agent" ? texts.t("widget.agent") : "";
  if (who) el.append(h("span", { class: "sr-only" }, `${who}: `));
  if (m.role === "person") {
    const name = personName(texts, m.author);
    el.append(h("div", { class: "byline" }, personFace(name, m.avatar), h("span", { class: "author" }, name)));
  }
  // Each message in its own direction (a customer's Hebrew in an English widget, an English article in an Arabic one).
  const body = h("div", { class: "text", dir: "auto" });
  body.append(richText(m.text));
  el.append(body);
  if (m.sources?.length) el.append(sourceList(m.sources, texts));
  if (m.failed) {
    const retry = h("button", { type: "button", class: "secondary retry" }, texts.t("widget.retry"));
    retry.addEventListener("click", onRetry);
    el.append(retry);
  }
  return el;
}

/** The dialog is modal: Escape closes it, Tab and Shift+Tab cycle through its controls only. */
export function trapFocus(panel: HTMLElement, root: ShadowRoot, close: () => void) {
  panel.addEventListener("keydown", (e) => {
    if (e.key === "Escape") {
      e.preventDefault();
      close();
      return;
    }
    if (e.key !== "Tab") return;
    const focusable = [...panel.querySelectorAll<HTMLElement>("button:not([disabled]), textarea, a[href], [tabindex='0']")].filter(
      (el) => el.offsetParent !== null,
    );
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
}

/**
 * The agent's look (avatar_config, written by setup_configure_widget): title, colours, corner,
 * picture. Returns the greeting it sets, if any.
 */
export function applyAgentLook(shell: Pick<ReturnType<typeof buildShell>, "host" | "title" | "avatar">, look: Record<string, unknown>): string | null {
  const { host, title, avatar } = shell;
  if (typeof look.title === "string" && look.title) title.textContent = look.title;
  const colour = (v: unknown) => (typeof v === "string" && /^#[0-9a-fA-F]{6}$/.test(v) ? v : null);
  // Set through CSSOM, which a page's style-src policy allows. A primary colour alone gets the text
  // colour that reads best on it (black or white, ./colour.ts); a text colour alone has nothing to
  // be on. Where the primary colour is text on the panel (links, secondary buttons, focus rings), a
  // shade of it that reaches AA contrast on the light and on the dark background (--sa-ink).
  const primary = colour(look.primary_color);
  if (primary) {
    host.style.setProperty("--sa-accent", primary);
    host.style.setProperty("--sa-on-accent", colour(look.text_color) ?? readableOn(primary));
    host.style.setProperty("--sa-ink-light", inkOn(primary, LIGHT_BACKGROUNDS));
    host.style.setProperty("--sa-ink-dark", inkOn(primary, DARK_BACKGROUNDS));
  }
  if (look.position === "left") host.classList.add("left");
  if (typeof look.image_url === "string" && /^https:\/\/[^\s"'<>]+$/i.test(look.image_url)) {
    avatar.src = look.image_url;
    avatar.hidden = false;
  }
  return typeof look.greeting === "string" && look.greeting ? look.greeting : null;
}

/**
 * The public configuration: the agent's name, the org's name, the agent's look; returns the
 * live-help label and greeting it sets. The label the service stores by default is the English
 * catalogue's sentence: that one is no label of the org's own, and the widget says its own language's.
 */
export function applyConfig(
  shell: Pick<ReturnType<typeof buildShell>, "host" | "title" | "subtitle" | "avatar">,
  config: Record<string, unknown>,
  texts: Texts,
  englishLiveHelp: string,
): { liveHelpLabel: string | null; greeting: string | null } {
  const agent = config.agent as Record<string, unknown> | undefined;
  const org = config.organization as Record<string, unknown> | undefined;
  const look = (agent?.avatar_config ?? {}) as Record<string, unknown>;
  const name = typeof look.title === "string" && look.title ? look.title : typeof agent?.name === "string" ? agent.name : null;
  texts.bind(() => {
    shell.title.textContent = name ?? texts.t("widget.title");
    shell.subtitle.textContent = typeof org?.name === "string" ? texts.t("widget.subtitle_org", { org: org.name }) : texts.t("widget.subtitle");
  });
  const greeting = applyAgentLook(shell, look);
  const label = agent?.live_help_label;
  return { liveHelpLabel: typeof label === "string" && label && label !== englishLiveHelp ? label : null, greeting };
}
