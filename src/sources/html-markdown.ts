// HTML to markdown, for the worker threads only (src/sources/extract-worker.ts, files-worker.ts):
// linkedom parses the untrusted page, Mozilla's Readability takes its main content (navigation,
// headers, footers, cookie banners dropped) and Turndown writes markdown with the headings kept.
// Binary content is refused before parsing, the element count and nesting before Readability runs.
import { normalizeLanguage } from "../kit/language.ts";
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";
import { type Alternate, readAlternates } from "./hreflang.ts";

const MAX_LINKS = 2000;
/** Readability's time grows much faster than the page's nesting; real pages stay far below this. */
export const MAX_DEPTH = 200;
/** Elements of a page: a long documentation page has a few thousand; Readability's time grows faster than their count. */
export const MAX_ELEMENTS = 50_000;
/** Share of a text's characters that may be control characters or U+FFFD (bytes that were not text) before it is taken for binary. */
const MAX_NON_TEXT_SHARE = 0.1;

/** A page refused for what it is, with the reason shown to whoever sent or synced it. */
export class PageRefused extends Error {}

/**
 * Binary content (an image, an archive) sent as a page: NUL, or more than MAX_NON_TEXT_SHARE of
 * its characters control characters or replacement characters. Parsed as HTML, its stray `<`
 * bytes open elements that never close, which is why it used to be refused as "nested too deep".
 */
function checkText(html: string) {
  if (html.includes("\0")) throw new PageRefused("the page is binary content (it holds NUL bytes), not text");
  const nonText = html.match(/[\x01-\x08\x0b\x0e-\x1f\x7f\uFFFD]/g)?.length ?? 0;
  if (nonText > html.length * MAX_NON_TEXT_SHARE)
    throw new PageRefused(`the page is binary content, not text (${Math.round((nonText / html.length) * 100)}% of it is not characters)`);
}

/** The element tree's size and depth, walked without recursion: the count first, so a huge flat page is refused for its size. */
export function checkTree(root: { children: ArrayLike<unknown> } | null) {
  if (!root) return;
  let elements = 0;
  let deepest = 0;
  const stack: [{ children: ArrayLike<unknown> }, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (++elements > MAX_ELEMENTS) throw new PageRefused(`the page has more than ${MAX_ELEMENTS} elements`);
    deepest = Math.max(deepest, depth);
    // linkedom builds `children` afresh on every read (a walk of the siblings): read it once.
    const children = node.children;
    for (let i = 0; i < children.length; i++) stack.push([children[i] as { children: ArrayLike<unknown> }, depth + 1]);
  }
  if (deepest > MAX_DEPTH) throw new PageRefused(`the page is nested more than ${MAX_DEPTH} levels deep`);
}

const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
turndown.remove(["script", "style", "noscript", "iframe", "form", "button", "select", "template", "svg", "canvas"] as never);

const clean = (text: string | null | undefined) => (text ?? "").replace(/\s+/g, " ").trim();

export function pageMarkdown(html: string, url: string): { title: string; markdown: string; links: string[]; language?: string; alternates: Alternate[] } {
  checkText(html);
  const { document } = parseHTML(html);
  checkTree(document.documentElement as unknown as { children: ArrayLike<unknown> });
  const links: string[] = [];
  for (const a of document.querySelectorAll("a[href]")) {
    if (links.length >= MAX_LINKS) break;
    try {
      const target = new URL(a.getAttribute("href") ?? "", url);
      target.hash = "";
      links.push(target.href);
    } catch {}
  }
  // Before Readability, which rewrites the document.
  const alternates = readAlternates(document as unknown as Parameters<typeof readAlternates>[0], url);
  const h1 = clean(document.querySelector("main h1, article h1, h1")?.textContent);
  const headTitle = clean(document.querySelector("title")?.textContent);
  const article = new Readability(document as unknown as Document, { charThreshold: 100 }).parse();
  let content = article?.content ?? "";
  if (clean(article?.textContent) === "") {
    // Too little for Readability: the body without its chrome.
    for (const el of document.querySelectorAll("nav, header, footer, aside, script, style")) el.remove();
    content = document.body?.innerHTML ?? "";
  }
  let markdown = turndown.turndown(content).trim();
  const title = (h1 || clean(article?.title) || headTitle || new URL(url).pathname).slice(0, 300);
  // Readability drops the heading it took as the title; the doc keeps it as its first line.
  if (h1 && !markdown.startsWith("#")) markdown = `# ${h1}\n\n${markdown}`;
  // The page's language as it declares it (`<html lang="es">`); the doc's otherwise detected from its text.
  const language = normalizeLanguage(document.documentElement?.getAttribute("lang"));
  return { title, markdown, links, alternates, ...(language ? { language } : {}) };
}

export function fragmentMarkdown(html: string): string {
  checkText(html);
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  checkTree(document.documentElement as unknown as { children: ArrayLike<unknown> });
  return turndown.turndown(document.body?.innerHTML ?? "").trim();
}
