// A help-centre article's markdown as safe markup (src/helpcentre/): the knowledge base preview's
// rules (markdown.ts: raw HTML shown as text, only http(s), mailto, relative and fragment links)
// plus what a public page needs — headings with anchors, and images served from the help
// centre's own origin: the n-th image of the document is written as `imageSrc(n)`, a URL of ours
// that fetches it through the outbound guard, so a page never asks another origin for anything.
// Besides the markup it gives what the page's metadata is made of: the headings, a description
// and, when every section heading is a question, the questions and answers (schema.org FAQPage).
import { Marked, type Token, type Tokens } from "marked";
import { escapeHtml, Html } from "./html.ts";

export interface ArticleHeading {
  id: string;
  text: string;
  depth: number;
}

export interface RenderedArticle {
  html: Html;
  headings: ArticleHeading[];
  /** The first paragraph as plain text, at most 160 characters. */
  description: string;
  /** Question headings and the text under each, when the article is a list of questions (two or more). */
  faq: { question: string; answer: string }[] | null;
}

const IMAGE_URL = /^https?:\/\//i;

/** The image URLs of a document, in the order the renderer numbers them (only http(s) ones are numbered). */
export function articleImages(markdown: string): string[] {
  const urls: string[] = [];
  new Marked({ gfm: true, async: false }).walkTokens(new Marked({ gfm: true }).lexer(markdown), (token) => {
    if (token.type === "image" && IMAGE_URL.test((token as Tokens.Image).href)) urls.push((token as Tokens.Image).href);
  });
  return urls;
}

/** A heading's anchor: lower-case letters and digits joined by hyphens (a number appended when repeated). */
function anchorOf(text: string, seen: Map<string, number>): string {
  const base =
    text
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 80) || "section";
  const n = (seen.get(base) ?? 0) + 1;
  seen.set(base, n);
  return n === 1 ? base : `${base}-${n}`;
}

function plain(tokens: readonly Token[] | undefined, fallback: string): string {
  if (!tokens) return fallback;
  return tokens.map(plainOf).join("");
}

/** A block or inline token as the words a reader sees (a table's cells, a code block's text, an image's alternative text). */
function plainOf(t: Token): string {
  if (t.type === "table") {
    const table = t as Tokens.Table;
    return [table.header, ...table.rows].map((row) => row.map((c) => plain(c.tokens, c.text)).join(", ")).join("; ");
  }
  if (t.type === "list") return (t as Tokens.List).items.map((i) => plain(i.tokens, i.text)).join("; ");
  if ("tokens" in t && t.tokens) return plain(t.tokens, "");
  return "text" in t ? String(t.text) : "";
}

const fold = (s: string) => s.replace(/\s+/g, " ").trim();

export function renderArticle(markdown: string, imageSrc: (n: number) => string): RenderedArticle {
  const headings: ArticleHeading[] = [];
  const seen = new Map<string, number>();
  let image = 0;
  const marked = new Marked({ gfm: true, async: false });
  marked.use({
    renderer: {
      html: (token) => escapeHtml(token.text),
      heading(token) {
        const text = fold(plain(token.tokens, token.text));
        const id = anchorOf(text, seen);
        headings.push({ id, text, depth: token.depth });
        // The page's own h1 is the title: the document's headings start at h2.
        const level = Math.min(6, Math.max(2, token.depth));
        return (
          `<h${level} id="${escapeHtml(id)}">${this.parser.parseInline(token.tokens)} <a class="anchor" href="#${escapeHtml(id)}" aria-label="Link to ` +
          `this section">#</a></h${level}>\n`
        );
      },
      link(token) {
        const href = /^(https?:|mailto:|\/|#)/i.test(token.href) ? token.href : "#";
        return `<a href="${escapeHtml(href)}" rel="nofollow noopener">${this.parser.parseInline(token.tokens)}</a>`;
      },
      image(token) {
        if (!IMAGE_URL.test(token.href)) return escapeHtml(token.text);
        return `<img src="${escapeHtml(imageSrc(image++))}" alt="${escapeHtml(token.text)}" loading="lazy">`;
      },
      table(token) {
        // Wide tables scroll inside their own box instead of widening the page.
        const head = token.header.map((c) => `<th scope="col"${c.align ? ` class="align-${c.align}"` : ""}>${this.parser.parseInline(c.tokens)}</th>`).join("");
        const rows = token.rows
          .map((row) => `<tr>${row.map((c) => `<td${c.align ? ` class="align-${c.align}"` : ""}>${this.parser.parseInline(c.tokens)}</td>`).join("")}</tr>`)
          .join("\n");
        return `<div class="table"><table>\n<thead><tr>${head}</tr></thead>\n<tbody>${rows}</tbody></table></div>\n`;
      },
    },
  });
  const tokens = marked.lexer(markdown);
  const body = marked.parser(tokens);
  const first = tokens.find((t) => t.type === "paragraph") as Tokens.Paragraph | undefined;
  const description = first ? fold(plain(first.tokens, first.text)).slice(0, 160) : "";
  return { html: new Html(body), headings, description, faq: faqOf(tokens) };
}

/** Sections under headings of the shallowest depth used; a list of questions when each such heading ends with "?". */
function faqOf(tokens: readonly Token[]): { question: string; answer: string }[] | null {
  const heads = tokens.filter((t): t is Tokens.Heading => t.type === "heading");
  if (heads.length < 2) return null;
  const depth = Math.min(...heads.map((h) => h.depth));
  const items: { question: string; answer: string[] }[] = [];
  for (const token of tokens) {
    if (token.type === "heading" && (token as Tokens.Heading).depth === depth) {
      items.push({ question: fold(plain((token as Tokens.Heading).tokens, (token as Tokens.Heading).text)), answer: [] });
    } else if (items.length > 0 && token.type !== "space") {
      items.at(-1)!.answer.push(fold(plainOf(token)));
    }
  }
  if (items.length < 2 || !items.every((i) => i.question.endsWith("?") && i.answer.length > 0)) return null;
  return items.map((i) => ({ question: i.question, answer: i.answer.join(" ").slice(0, 2000) }));
}

/**
 * Structured data for a page (schema.org as JSON-LD): a data block, which no Content-Security-Policy
 * runs; `<`, `>` and `&` are written as JSON escapes so no value can close the element.
 */
export function jsonLd(value: unknown): Html {
  const json = JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return new Html(`<script type="application/ld+json">${json}</script>`);
}
