// HTML to markdown, for the worker threads only (src/sources/extract-worker.ts, files-worker.ts):
// linkedom parses the untrusted page, Mozilla's Readability takes its main content (navigation,
// headers, footers, cookie banners dropped) and Turndown writes markdown with the headings kept.
// Nesting is bounded before Readability runs.
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import TurndownService from "turndown";

const MAX_LINKS = 2000;
/** Readability's time grows much faster than the page's nesting; real pages stay far below this. */
export const MAX_DEPTH = 200;

export class TooDeep extends Error {}

/** The element tree's depth, walked without recursion; stops as soon as it passes MAX_DEPTH. */
function checkDepth(root: { children: ArrayLike<unknown> } | null) {
  if (!root) return;
  const stack: [{ children: ArrayLike<unknown> }, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_DEPTH) throw new TooDeep();
    for (let i = 0; i < node.children.length; i++) stack.push([node.children[i] as { children: ArrayLike<unknown> }, depth + 1]);
  }
}

const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" });
turndown.remove(["script", "style", "noscript", "iframe", "form", "button", "select", "template", "svg", "canvas"] as never);

const clean = (text: string | null | undefined) => (text ?? "").replace(/\s+/g, " ").trim();

export function pageMarkdown(html: string, url: string): { title: string; markdown: string; links: string[] } {
  const { document } = parseHTML(html);
  checkDepth(document.documentElement as unknown as { children: ArrayLike<unknown> });
  const links: string[] = [];
  for (const a of document.querySelectorAll("a[href]")) {
    if (links.length >= MAX_LINKS) break;
    try {
      const target = new URL(a.getAttribute("href") ?? "", url);
      target.hash = "";
      links.push(target.href);
    } catch {}
  }
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
  return { title, markdown, links };
}

export function fragmentMarkdown(html: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  checkDepth(document.documentElement as unknown as { children: ArrayLike<unknown> });
  return turndown.turndown(document.body?.innerHTML ?? "").trim();
}
