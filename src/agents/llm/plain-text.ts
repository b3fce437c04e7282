// A passage's markdown as the plain text a person would write, for the builtin provider's reply
// (the widget shows a reply as text: src/widget/client/dom.ts). Two well-kept parsers do the
// reading: marked (GitHub-flavoured markdown, as the knowledge base's preview reads it:
// src/html/markdown.ts) turns the passage into HTML, and linkedom reads that HTML — raw HTML of
// the document included — as a browser would, so entities are decoded and tags never reach the text.
// What is kept: the words. Headings become blocks of their own (the builtin uses them to find the
// answer and never opens a reply with one), a link its text (its page is among the reply's
// sources; a paragraph or list item of links alone is navigation and left out), an image nothing,
// emphasis and code their text, a list item a line ("• " or its number), a table row its cells
// labelled by their column's header, a code block its lines. Lines broken inside a paragraph (PDF
// text, hard-wrapped markdown) are joined, a word hyphenated across a break made whole again.
// Markdown written inside a raw HTML block stays text, as CommonMark and a browser show it.
// docs/decisions.md "Answers that read as answers".
import { parseHTML } from "linkedom";
import { Marked } from "marked";

export type BlockKind = "heading" | "paragraph" | "item" | "row" | "code";

/** One block of a passage as plain text (`block` its place); items and rows of one list or table share `group`. */
export interface PlainBlock {
  kind: BlockKind;
  text: string;
  group: number;
  block: number;
}

const markdown = new Marked({ gfm: true, async: false });

/** Elements whose text never reaches a reader. */
const UNSEEN = "script, style, template, noscript, img, picture, svg, iframe, object, embed, video, audio, canvas, input, select, textarea, button, head";
const BLOCK = new Set([
  "ADDRESS",
  "ARTICLE",
  "ASIDE",
  "BLOCKQUOTE",
  "DETAILS",
  "DIV",
  "DL",
  "DD",
  "DT",
  "FIELDSET",
  "FIGCAPTION",
  "FIGURE",
  "FOOTER",
  "FORM",
  "H1",
  "H2",
  "H3",
  "H4",
  "H5",
  "H6",
  "HEADER",
  "HR",
  "LI",
  "MAIN",
  "NAV",
  "OL",
  "P",
  "PRE",
  "SECTION",
  "SUMMARY",
  "TABLE",
  "UL",
]);

/** Whitespace of a paragraph collapsed, a word hyphenated across a line break joined ("infor-\nmation"). */
function flow(text: string): string {
  return text
    .replace(/(\p{Ll})-[ \t]*\n\s*(\p{Ll})/gu, "$1$2")
    .replace(/\s+/g, " ")
    .trim();
}

interface Walk {
  out: PlainBlock[];
  group: number;
}

function push(walk: Walk, kind: BlockKind, text: string, group = walk.group++) {
  const clean = kind === "code" ? text.replace(/^\n+|\s+$/g, "") : flow(text);
  if (clean !== "") walk.out.push({ kind, text: clean, group, block: walk.out.length });
}

/**
 * A paragraph or list item made of links alone ("Back to all articles", a list of related
 * articles) is navigation, not something the page says: it is left out.
 */
function onlyLinks(el: Element): boolean {
  if (el.querySelector("a") === null) return false;
  const clone = el.cloneNode(true) as Element;
  for (const a of Array.from(clone.querySelectorAll("a"))) a.remove();
  return /^[\s\p{P}|·•]*$/u.test(inline(clone));
}

/** Inline text of an element: its text, with a line break (`<br>`) as a space. */
function inline(node: Node): string {
  if (node.nodeType === 3) return node.textContent ?? "";
  if (node.nodeType !== 1) return "";
  if ((node as Element).tagName === "BR") return "\n";
  let text = "";
  for (const child of Array.from(node.childNodes)) text += inline(child);
  return text;
}

function list(walk: Walk, el: Element, depth: number, group = walk.group++) {
  const ordered = el.tagName === "OL";
  let n = Number.parseInt(el.getAttribute("start") ?? "1", 10);
  if (!Number.isFinite(n)) n = 1;
  for (const li of Array.from(el.children)) {
    if (li.tagName !== "LI") continue;
    if (onlyLinks(li)) continue;
    let own = "";
    const nested: Element[] = [];
    for (const child of Array.from(li.childNodes)) {
      const tag = (child as Element).tagName;
      if (tag === "UL" || tag === "OL") nested.push(child as Element);
      else own += child.nodeType === 1 && BLOCK.has(tag) ? ` ${inline(child)} ` : inline(child);
    }
    const text = flow(own);
    if (text !== "") walk.out.push({ kind: "item", text: `${"  ".repeat(depth)}${ordered ? `${n}.` : "•"} ${text}`, group, block: walk.out.length });
    n++;
    for (const sub of nested) list(walk, sub, depth + 1, group);
  }
}

function table(walk: Walk, el: Element) {
  const group = walk.group++;
  const rows = Array.from(el.querySelectorAll("tr"));
  const headers = rows[0] && rows[0].querySelector("th") ? Array.from(rows[0].children).map((c) => flow(inline(c))) : [];
  for (const row of headers.length > 0 ? rows.slice(1) : rows) {
    const cells = Array.from(row.children).map((c, i) => ({ header: headers[i] ?? "", text: flow(inline(c)) }));
    const text = cells
      .filter((c) => c.text !== "")
      .map((c) => (c.header !== "" ? `${c.header}: ${c.text}` : c.text))
      .join("; ");
    if (text !== "") walk.out.push({ kind: "row", text, group, block: walk.out.length });
  }
}

function blocks(walk: Walk, parent: Element) {
  let run = "";
  const flush = () => {
    push(walk, "paragraph", run);
    run = "";
  };
  for (const child of Array.from(parent.childNodes)) {
    const el = child as Element;
    if (child.nodeType !== 1 || !BLOCK.has(el.tagName)) {
      run += inline(child);
      continue;
    }
    flush();
    if (/^H[1-6]$/.test(el.tagName)) push(walk, "heading", inline(el));
    else if (el.tagName === "P" && onlyLinks(el)) continue;
    else if (el.tagName === "P" || el.tagName === "DT" || el.tagName === "SUMMARY" || el.tagName === "FIGCAPTION") push(walk, "paragraph", inline(el));
    else if (el.tagName === "UL" || el.tagName === "OL") list(walk, el, 0);
    else if (el.tagName === "TABLE") table(walk, el);
    else if (el.tagName === "PRE") push(walk, "code", el.textContent ?? "");
    else if (el.tagName !== "HR") blocks(walk, el);
  }
  flush();
}

/** The blocks of a passage (markdown, HTML in it, or plain text) as plain text, in order. */
export function plainBlocks(text: string): PlainBlock[] {
  const html = markdown.parse(text) as string;
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  for (const el of Array.from(document.querySelectorAll(UNSEEN))) el.remove();
  const walk: Walk = { out: [], group: 0 };
  blocks(walk, document.body);
  return walk.out;
}

/** A passage as plain text: blocks separated by a blank line, the items and rows of one list or table by a line break. */
export function plainText(text: string): string {
  return join(plainBlocks(text));
}

type Joined = Pick<PlainBlock, "kind" | "text" | "group" | "block">;

/** Blocks (or pieces of them: sentences of one block join with a space) joined as `plainText` joins them. */
export function join(parts: readonly Joined[]): string {
  let out = "";
  for (let i = 0; i < parts.length; i++) out += (i === 0 ? "" : separator(parts[i - 1]!, parts[i]!)) + parts[i]!.text;
  return out;
}

export function separator(a: Joined, b: Joined): string {
  if (a.block === b.block) return " ";
  if (a.group === b.group) return "\n";
  // A line ending in ":" introduces the list or table under it.
  return a.text.endsWith(":") && (b.kind === "item" || b.kind === "row") ? "\n" : "\n\n";
}
