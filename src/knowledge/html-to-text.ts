// HTML to readable, markdown-ish text, for a web page imported as a knowledge-base document
// (src/knowledge/docs-import.ts fetches the page; this only converts it). Streamed through Bun's
// HTMLRewriter, so no DOM is built and the cost stays linear in the page's size; scripts, styles,
// navigation and forms are dropped, structure kept as markdown. Its own module because it is one
// self-contained job — a converter with its own tables and rules — that knows nothing of fetching
// or storing.
import { normalizeLanguage } from "../kit/language.ts";
import { DOC_LIMITS } from "./docs.ts";

/** A document's title and text, as an import finds them. */
export interface ImportedText {
  title: string;
  /** The page's `<html lang>`, as ISO 639-1, when it has a valid one. */
  language?: string;
  body: string;
}

/** A title for a page that has none: its host and path. */
export function fallbackTitle(url: string): string {
  const parsed = new URL(url);
  return (parsed.host + parsed.pathname.replace(/\/$/, "")).slice(0, DOC_LIMITS.title);
}

/** Elements whose content is never reader text. */
// Only elements whose end tag is required: HTMLRewriter reports an end tag only when it is written,
// so an element with an optional one (<head>) would skip the rest of the page when it is left out.
const SKIPPED = new Set(["script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas", "select", "button", "form", "nav"]);
const BLOCKS = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "header",
  "footer",
  "aside",
  "blockquote",
  "ul",
  "ol",
  "table",
  "tr",
  "dl",
  "dt",
  "dd",
  "figure",
  "figcaption",
  "hr",
  "address",
  "details",
  "summary",
]);

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  rsquo: "’",
  lsquo: "‘",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  copy: "©",
  reg: "®",
  trade: "™",
  euro: "€",
  pound: "£",
  deg: "°",
  middot: "·",
  bull: "•",
  times: "×",
  shy: "",
};

/** Character references in text as HTMLRewriter hands it over (undecoded). Unknown names stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      // NUL, surrogates and out-of-range code points are replaced (HTML Standard section 13.2.5.80), never stored.
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : "\uFFFD";
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** A link's target as an absolute http(s) URL, or null (javascript:, mailto:, fragments…). */
function linkTarget(href: string | null, base: string): string | null {
  if (!href || href.startsWith("#")) return null;
  try {
    const url = new URL(decodeEntities(href.trim()), base);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * Readable text of an HTML page, with markdown for its structure: `#` headings, `-` and `1.` list
 * items, `[text](url)` links (relative ones made absolute against the page), fenced `pre` blocks,
 * `**` and `_` emphasis. Scripts, styles, navigation and forms are dropped. Title: <title>, else the
 * first <h1>, else the page's address.
 */
export function htmlToText(html: string, pageUrl: string): ImportedText {
  const out: string[] = [];
  let skip = 0;
  let pre = 0;
  let title = "";
  let language: string | null = null;
  let inTitle = false;
  let inBody = false;
  let firstH1: string | null = null;
  let h1Capture: string[] | null = null;
  const lists: { ordered: boolean; n: number }[] = [];
  const links: { target: string | null; at: number }[] = [];

  const emit = (s: string) => {
    out.push(s);
    if (h1Capture) h1Capture.push(s);
  };
  /** Whether the output ends at the start of a line or after a space: collapsed text drops its leading space there. */
  const afterSpace = () => {
    const last = out.at(-1);
    return last === undefined || /[\s]$/.test(last);
  };
  const block = (s = "") => emit(`\n\n${s}`);

  new HTMLRewriter()
    .on("*", {
      element(el) {
        const tag = el.tagName.toLowerCase();
        if (tag === "body") inBody = true;
        if (tag === "html" && language === null) language = normalizeLanguage(el.getAttribute("lang")) ?? "";
        // The document's <title>, not an <svg>'s in the body.
        if (tag === "title" && !inBody && title === "") {
          inTitle = true;
          el.onEndTag(() => void (inTitle = false));
          return;
        }
        if (SKIPPED.has(tag)) {
          if (el.canHaveContent) {
            skip++;
            el.onEndTag(() => void skip--);
          }
          return;
        }
        if (skip > 0) return;
        const end = (f: () => void) => el.canHaveContent && el.onEndTag(f);
        if (/^h[1-6]$/.test(tag)) {
          block(`${"#".repeat(Number(tag[1]))} `);
          if (tag === "h1" && firstH1 === null) h1Capture = [];
          end(() => {
            if (h1Capture) {
              firstH1 = h1Capture.join("").replace(/\s+/g, " ").trim();
              h1Capture = null;
            }
            block();
          });
        } else if (tag === "br") emit("\n");
        else if (tag === "ul" || tag === "ol") {
          if (lists.length === 0) block();
          lists.push({ ordered: tag === "ol", n: 0 });
          end(() => {
            lists.pop();
            if (lists.length === 0) block();
          });
        } else if (tag === "li") {
          const list = lists.at(-1);
          const marker = list?.ordered ? `${++list.n}. ` : "- ";
          emit(`\n${"  ".repeat(Math.max(0, lists.length - 1))}${marker}`);
        } else if (tag === "pre") {
          pre++;
          block("```\n");
          end(() => {
            pre--;
            emit("\n```");
            block();
          });
        } else if (tag === "code" && pre === 0) {
          emit("`");
          end(() => emit("`"));
        } else if (tag === "strong" || tag === "b") {
          emit("**");
          end(() => emit("**"));
        } else if (tag === "em" || tag === "i") {
          emit("_");
          end(() => emit("_"));
        } else if (tag === "a") {
          const target = linkTarget(el.getAttribute("href"), pageUrl);
          if (target) emit("[");
          links.push({ target, at: out.length });
          end(() => {
            const link = links.pop();
            if (!link?.target) return;
            // A link around nothing readable (an icon): dropped with its bracket.
            if (out.slice(link.at).join("").trim() === "") out.splice(link.at - 1);
            else emit(`](${link.target})`);
          });
        } else if (tag === "img") {
          const alt = el.getAttribute("alt");
          if (alt) emit(decodeEntities(alt));
        } else if (tag === "td" || tag === "th") emit(" | ");
        else if (BLOCKS.has(tag)) {
          block();
          end(() => block());
        }
      },
    })
    .onDocument({
      text(chunk) {
        if (inTitle) {
          title += chunk.text;
          return;
        }
        if (skip > 0 || chunk.text === "") return;
        const text = decodeEntities(chunk.text);
        if (pre > 0) emit(text);
        else {
          const collapsed = text.replace(/\s+/g, " ");
          emit(afterSpace() ? collapsed.trimStart() : collapsed);
        }
      },
    })
    .transform(html);

  // Line by line, not by a regular expression: /[ \t]+\n/ backtracks quadratically over a long run
  // of spaces (a 200 KB <pre> of them took 47 s).
  const body = out
    .join("")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  const found = decodeEntities(title).replace(/\s+/g, " ").trim() || (firstH1 as string | null) || fallbackTitle(pageUrl);
  return { title: found.slice(0, DOC_LIMITS.title), body, ...(language ? { language } : {}) };
}
