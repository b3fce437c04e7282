// The help centre inside the widget (src/helpcentre/widget-api.ts): a "Help articles" view in the
// panel with a search field, articles suggested for the page the customer is on (its title and
// path), an article opened in the panel, and "Still need help?", which goes back to the chat and
// asks with the article named (and every article read in the panel sent as the conversation's
// context, so the ticket a person opens lists them). Shown only when the org has a help centre.
// An article arrives as markup the service made safe; it is rebuilt here element by element from
// a short list of tags and attributes (never innerHTML), as the rest of the widget is.
import { h } from "./dom.ts";
import type { Widget } from "./context.ts";
import type { Json } from "./store.ts";

export interface HelpHit {
  id: string;
  title: string;
  snippet: string;
  url: string;
}

const HELP_STYLES =
  `
.help { display: flex; flex-direction: column; gap: 10px; padding: 12px 16px; overflow-y: auto; flex: 1; border-bottom: 1px solid var(--sa-border); }
.help[hidden] { display: none; }
.help form { display: flex; gap: 8px; }
.help input { flex: 1; min-width: 0; font: inherit; color: inherit; background: var(--sa-bg); ` +
  `border: 1px solid var(--sa-muted); border-radius: 10px; padding: 8px 10px; }
.help input:focus-visible { outline: 3px solid var(--sa-ink); outline-offset: 2px; }
.help h3 { margin: 4px 0 0; font-size: 14px; color: var(--sa-muted); }
.help ul.hits { list-style: none; margin: 0; padding: 0; display: grid; gap: 6px; }
.help ul.hits button { width: 100%; text-align: start; background: var(--sa-soft); color: var(--sa-fg); border-color: var(--sa-border); font-weight: 600; }
.help ul.hits small { display: block; font-weight: 400; color: var(--sa-muted); }
.help .article { font-size: 14px; line-height: 1.5; }
.help .article img { max-width: 100%; height: auto; }
.help .article pre { overflow-x: auto; background: var(--sa-soft); padding: 8px; border-radius: 8px; }
.help .article .table { overflow-x: auto; }
.help .article table { border-collapse: collapse; }
.help .article th, .help .article td { border: 1px solid var(--sa-border); padding: 4px 6px; }
.help .article a { color: var(--sa-ink); }
.help .row { display: flex; gap: 8px; flex-wrap: wrap; }
`;

const TAGS = new Set([
  "P",
  "H2",
  "H3",
  "H4",
  "H5",
  "H6",
  "UL",
  "OL",
  "LI",
  "STRONG",
  "EM",
  "DEL",
  "CODE",
  "PRE",
  "BLOCKQUOTE",
  "HR",
  "BR",
  "TABLE",
  "THEAD",
  "TBODY",
  "TR",
  "TH",
  "TD",
  "A",
  "IMG",
  "DIV",
  "SPAN",
]);

/** The service's article markup rebuilt with createElement: only the listed tags, links and images only from http(s). */
function rebuild(from: Node, into: Node): void {
  for (const node of from.childNodes) {
    if (node.nodeType === Node.TEXT_NODE) into.appendChild(document.createTextNode(node.textContent ?? ""));
    if (node.nodeType !== Node.ELEMENT_NODE) continue;
    const el = node as Element;
    if (!TAGS.has(el.tagName)) {
      rebuild(el, into);
      continue;
    }
    if (el.classList.contains("anchor")) continue;
    const copy = document.createElement(el.tagName.toLowerCase());
    const href = el.getAttribute("href") ?? "";
    const src = el.getAttribute("src") ?? "";
    if (el.tagName === "A" && /^https?:\/\//i.test(href)) Object.assign(copy, { href, target: "_blank", rel: "noopener noreferrer" });
    if (el.tagName === "IMG") {
      if (!/^https?:\/\//i.test(src)) continue;
      copy.setAttribute("src", src);
      copy.setAttribute("alt", el.getAttribute("alt") ?? "");
    }
    // A block that may scroll sideways is reachable by keyboard (WCAG 2.1.1; axe scrollable-region-focusable).
    if (el.tagName === "PRE" || el.classList.contains("table")) {
      copy.setAttribute("tabindex", "0");
      if (el.tagName === "DIV") copy.className = "table";
    }
    rebuild(el, copy);
    into.appendChild(copy);
  }
}

export function createHelp(w: Widget, orgId: string, options: { ask(message: string): void }) {
  const { root, log } = w.shell;
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(HELP_STYLES);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
  } catch {
    root.append(h("style", {}, HELP_STYLES));
  }
  const api = `${w.base}/api/help/${encodeURIComponent(orgId)}`;
  const read: { title: string; url: string }[] = [];
  const input = h("input", { type: "search", id: "svc-help-q", maxlength: "200" });
  const submit = h("button", { type: "submit" });
  const form = h("form", { role: "search" }, input, submit);
  const body = h("div", { "aria-live": "polite" });
  const view = h("section", { class: "help", hidden: "" }, form, body);
  const toggle = h("button", { type: "button", class: "secondary help-toggle", "aria-expanded": "false", hidden: "" });
  log.before(view);
  w.shell.person.before(toggle);

  const toggleLabel = () => (toggle.textContent = w.texts.t(view.hidden ? "widget.help_articles" : "widget.help_back_to_chat"));
  // Written again in the customer's language when it changes (identify() with another locale).
  w.texts.bind(() => {
    input.placeholder = w.texts.t("widget.help_search");
    input.setAttribute("aria-label", w.texts.t("widget.help_search"));
    submit.textContent = w.texts.t("widget.help_search_button");
    view.setAttribute("aria-label", w.texts.t("widget.help_articles"));
    toggleLabel();
  });

  const show = (open: boolean) => {
    view.hidden = !open;
    log.hidden = open;
    toggle.setAttribute("aria-expanded", String(open));
    toggleLabel();
  };
  toggle.addEventListener("click", () => {
    show(view.hidden !== false);
    if (!view.hidden) input.focus();
  });

  const list = (heading: string, hits: HelpHit[], empty: string) => {
    const items = hits.map((hit) => {
      const button = h("button", { type: "button" }, hit.title, ...(hit.snippet ? [h("small", {}, hit.snippet.replaceAll("**", ""))] : []));
      button.addEventListener("click", () => void openArticle(hit.url.split("/articles/")[1] ?? hit.id));
      return h("li", {}, button);
    });
    body.replaceChildren(h("h3", {}, heading), items.length ? h("ul", { class: "hits" }, ...items) : h("p", {}, empty));
  };

  const get = async (path: string): Promise<Json | null> => {
    const res = await fetch(`${api}${path}`).catch(() => null);
    return res?.ok ? ((await res.json()) as Json) : null;
  };

  const openArticle = async (ref: string) => {
    const article = await get(`/articles/${encodeURIComponent(ref)}`);
    if (!article) return;
    const title = String(article.title);
    const url = String(article.url);
    if (!read.some((r) => r.url === url)) read.push({ title, url });
    const content = h("div", { class: "article" });
    rebuild(new DOMParser().parseFromString(String(article.html), "text/html").body, content);
    const back = h("button", { type: "button", class: "secondary" }, w.texts.t("widget.help_back"));
    back.addEventListener("click", () => void suggest());
    const still = h("button", { type: "button" }, w.texts.t("widget.help_still"));
    still.addEventListener("click", () => {
      show(false);
      // not for customers: the label a member reads beside the ticket's context, in the team's English as the other context labels.
      w.chatContext = { help_articles_read: { label: "Help articles read", type: "help_articles", value: read } };
      options.ask(w.texts.t("widget.help_ask", { title }));
    });
    const heading = h("h2", { tabindex: "-1" }, title);
    body.replaceChildren(heading, content, h("div", { class: "row" }, still, back));
    heading.focus();
  };

  const suggest = async () => {
    const q = new URLSearchParams({ title: document.title.slice(0, 200), path: location.pathname.slice(0, 200) });
    const found = await get(`/suggestions?${q}`);
    if (!found || found.available === false) return false;
    list(w.texts.t("widget.help_suggested"), found.results as HelpHit[], w.texts.t("widget.help_suggest_empty"));
    return true;
  };

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const q = input.value.trim();
    if (!q) return void suggest();
    const found = await get(`/search?q=${encodeURIComponent(q)}`);
    if (found) list(w.texts.t("widget.help_results", { query: q }), found.results as HelpHit[], w.texts.t("widget.help_no_match"));
  });

  // Shown only when the org has a public help centre: the suggestions say `available: false` otherwise.
  void suggest().then((available) => {
    toggle.hidden = !available;
  });
}
