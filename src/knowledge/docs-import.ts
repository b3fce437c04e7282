// Importing knowledge-base documents (issue #14): from a URL, or from an uploaded markdown file's
// text. The `setup_import_doc_from_url` tool and the dashboard's knowledge-base page both call these
// functions, so both apply the same rules (docs/decisions.md "Doc import"):
//   * A URL is fetched through the outbound guard (src/net/guard.ts, interface §8.2): https only
//     (plain http only to loopback in development, as the guard allows), no private or internal
//     address, no redirect followed (a 3xx is refused naming its Location, so the admin can import
//     the final address itself), the response capped at IMPORT_LIMITS.responseBytes and the whole
//     request at IMPORT_LIMITS.timeoutMs.
//   * Content types: text/html and application/xhtml+xml are turned into readable markdown-ish text
//     (headings, paragraphs, lists, links, code) titled by the page's <title> (else its first <h1>);
//     text/markdown, text/x-markdown and text/plain are kept as they are, titled by their first
//     heading. Anything else is refused: a PDF or an image read as text would be noise.
//   * A result longer than a document may be (DOC_LIMITS.body) is refused, not truncated: a doc
//     silently missing its second half would answer customers wrongly.
// Refusals are 4xx with the field's path: 400 validation_failed for a URL or file the guard or the
// rules refuse outright, 422 import_failed for a page that could not be imported (upstream status,
// redirect, type, size, timeout). Every import is recorded in the activity log.
import type { Actor } from "../kit/actor.ts";
import { recordActivity } from "../activity/log.ts";
import type { DocStatus } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError, type ErrorDetail } from "../errors.ts";
import { isTimeout } from "../kit/timeouts.ts";
import { BlockedUrlError, guardedFetch, readCapped, RedirectRefusedError, ResponseTooLargeError } from "../net/guard.ts";
import { createDoc, type Doc, DOC_LIMITS } from "./docs.ts";

export const IMPORT_LIMITS = {
  /** The page as sent (HTML is bulky: markup, inline styles). */
  responseBytes: 2 * 1024 * 1024,
  /** Connecting, the response headers and the whole body. */
  timeoutMs: 15_000,
  /**
   * An uploaded file, before decoding: the most UTF-8 a document's text can take (DOC_LIMITS.body
   * UTF-16 units at 3 bytes each), so no file is refused here whose text would have fitted.
   */
  uploadBytes: 3 * DOC_LIMITS.body,
  fileName: 255,
} as const;

/** Served as one of these, a page is imported; anything else is refused (422). */
export const HTML_TYPES = ["text/html", "application/xhtml+xml"] as const;
export const TEXT_TYPES = ["text/markdown", "text/x-markdown", "text/plain"] as const;
/** Names an uploaded markdown file may have. */
export const MARKDOWN_EXTENSIONS = [".md", ".markdown", ".txt"] as const;

export interface ImportOptions {
  /** Overrides the title found in the page or file. */
  title?: string;
  tags?: string[];
  status?: DocStatus;
}

export interface ImportedText {
  title: string;
  body: string;
}

function importFailed(message: string, path = "/url"): AppError {
  return new AppError(422, "import_failed", `The document cannot be imported: ${message}.`, [{ path, message }]);
}

function invalid(path: string, message: string): AppError {
  return AppError.badRequest(`The document cannot be imported: ${message}.`, [{ path, message }]);
}

// --- fetching ----------------------------------------------------------------------------------

/** The media type of a Content-Type header, lower-case, without parameters. */
function mediaType(header: string | null): string {
  return (header ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * The body as text in its declared charset: the Content-Type's, else for HTML a `<meta charset>` in
 * the first 1024 bytes (HTML §13.2.3.2 prescan, simplified); UTF-8 when none or an unknown one is declared.
 */
function decode(bytes: Uint8Array, header: string | null, html: boolean): string {
  const prescan = () => /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(new TextDecoder("latin1").decode(bytes.subarray(0, 1024)))?.[1];
  const charset = /;\s*charset="?([\w-]+)"?/i.exec(header ?? "")?.[1] ?? (html ? prescan() : undefined);
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

/**
 * Fetches `url` through the guard and returns its title and text, or throws a 4xx AppError saying
 * why not. Stores nothing (the dashboard may show it before saving).
 */
export async function fetchDocText(deps: Deps, url: string, signal?: AbortSignal): Promise<ImportedText & { url: string }> {
  const deadline = deps.timers.deadline(IMPORT_LIMITS.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
  let response: Response;
  let bytes: Uint8Array;
  try {
    response = await guardedFetch(url, { headers: { accept: [...HTML_TYPES, ...TEXT_TYPES].join(", "), "user-agent": "svc-agents-doc-import/1.0" }, signal: combined }, deps.guard);
    if (!response.ok) {
      await response.body?.cancel();
      throw importFailed(`the page answered HTTP ${response.status}`);
    }
    const type = mediaType(response.headers.get("content-type"));
    if (![...HTML_TYPES, ...TEXT_TYPES].includes(type as never)) {
      await response.body?.cancel();
      throw importFailed(`the page is ${type || "of no declared type"}; importable types are ${[...HTML_TYPES, ...TEXT_TYPES].join(", ")}`);
    }
    bytes = await readCapped(response, IMPORT_LIMITS.responseBytes);
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof BlockedUrlError) throw invalid("/url", error.message);
    if (error instanceof RedirectRefusedError) throw importFailed(error.message);
    if (error instanceof ResponseTooLargeError) throw importFailed(`the page is larger than ${IMPORT_LIMITS.responseBytes} bytes`);
    if (isTimeout(error)) throw importFailed(signal?.aborted ? "the import was cancelled" : `the page did not arrive within ${IMPORT_LIMITS.timeoutMs / 1000} s`);
    // Connection refused, TLS failure, reset: the other side's problem, said without its internals.
    deps.log.warn("doc import fetch failed", { host: new URL(url).host, error: (error as Error).message });
    throw importFailed("the page could not be fetched (connection or TLS failure)");
  }
  const type = mediaType(response.headers.get("content-type"));
  const html = (HTML_TYPES as readonly string[]).includes(type);
  const text = decode(bytes, response.headers.get("content-type"), html);
  const imported = html ? htmlToText(text, url) : markdownText(text, fallbackTitle(url));
  return { ...imported, url };
}

/** A title for a page that has none: its host and path. */
function fallbackTitle(url: string): string {
  const parsed = new URL(url);
  return (parsed.host + parsed.pathname.replace(/\/$/, "")).slice(0, DOC_LIMITS.title);
}

// --- HTML to markdown-ish text -----------------------------------------------------------------

/** Elements whose content is never reader text. */
// Only elements whose end tag is required: HTMLRewriter reports an end tag only when it is written,
// so an element with an optional one (<head>) would skip the rest of the page when it is left out.
const SKIPPED = new Set(["script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas", "select", "button", "form", "nav"]);
const BLOCKS = new Set(["p", "div", "section", "article", "main", "header", "footer", "aside", "blockquote", "ul", "ol", "table", "tr", "dl", "dt", "dd", "figure", "figcaption", "hr", "address", "details", "summary"]);

const ENTITIES: Record<string, string> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", mdash: "—", ndash: "–", hellip: "…", rsquo: "’", lsquo: "‘", ldquo: "“", rdquo: "”",
  laquo: "«", raquo: "»", copy: "©", reg: "®", trade: "™", euro: "€", pound: "£", deg: "°", middot: "·", bull: "•", times: "×", shy: "",
};

/** Character references in text as HTMLRewriter hands it over (undecoded). Unknown names stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      // NUL, surrogates and out-of-range code points are replaced (HTML §13.2.5.80), never stored.
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
  return { title: found.slice(0, DOC_LIMITS.title), body };
}

// --- markdown ----------------------------------------------------------------------------------

/**
 * The text of an ATX heading line (CommonMark §4.2: up to three spaces, 1–6 `#`, a space, an
 * optional closing run of `#` after a space), or null. Parsed by hand: a regular expression with a
 * lazy group before the closing run took seconds on a long line of spaces.
 */
function atxHeading(line: string): string | null {
  const open = /^ {0,3}#{1,6}(?=[ \t]|$)/.exec(line);
  if (!open) return null;
  let text = line.slice(open[0].length).trim();
  let end = text.length;
  while (end > 0 && text[end - 1] === "#") end--;
  if (end === 0) text = "";
  else if (end < text.length && (text[end - 1] === " " || text[end - 1] === "\t")) text = text.slice(0, end).trimEnd();
  return text === "" ? null : text;
}

/** The first ATX (`# Title`) or setext (`Title` over `===`/`---`) heading outside code fences, or null. */
export function firstHeading(markdown: string): string | null {
  const lines = markdown.split(/\r?\n/);
  let fenced = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^ {0,3}(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const atx = atxHeading(line);
    if (atx !== null) return atx;
    const next = lines[i + 1];
    if (next !== undefined && line.trim() !== "" && /^ {0,3}(=+|-+)[ \t]*$/.test(next) && !/^ {0,3}([-*_][ \t]*){3,}$/.test(line)) return line.trim();
  }
  return null;
}

/** Markdown or plain text kept as it is (line endings normalised), titled by its first heading. */
function markdownText(text: string, fallback: string): ImportedText {
  const body = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n").trim();
  return { title: (firstHeading(body) ?? fallback).replace(/\s+/g, " ").slice(0, DOC_LIMITS.title), body };
}

/** A title from a file name: `getting-started.md` → `Getting started`. */
export function titleFromFileName(fileName: string): string {
  const base = fileName.replace(/^.*[\\/]/, "").replace(/\.[^.]*$/, "").replace(/[-_]+/g, " ").trim();
  return base === "" ? "Untitled" : base[0]!.toUpperCase() + base.slice(1);
}

/** Checks an uploaded markdown file and returns its title and text. Throws 400 with the field's path. */
export function markdownFileText(fileName: string, content: string | Uint8Array): ImportedText {
  if (fileName.length < 1 || fileName.length > IMPORT_LIMITS.fileName || /[\x00-\x1f\x7f]/.test(fileName))
    throw invalid("/file_name", `must be 1 to ${IMPORT_LIMITS.fileName} characters without control characters`);
  if (!MARKDOWN_EXTENSIONS.some((ext) => fileName.toLowerCase().endsWith(ext))) throw invalid("/file_name", `must end in ${MARKDOWN_EXTENSIONS.join(", ")}`);
  let text: string;
  if (typeof content === "string") text = content;
  else {
    if (content.byteLength > IMPORT_LIMITS.uploadBytes) throw invalid("/content", `must be at most ${IMPORT_LIMITS.uploadBytes} bytes`);
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(content);
    } catch {
      throw invalid("/content", "must be UTF-8 text");
    }
  }
  if (/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(text)) throw invalid("/content", "must be text: it contains control characters");
  return markdownText(text, titleFromFileName(fileName));
}

// --- storing -----------------------------------------------------------------------------------

function checkOptions(options: ImportOptions): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (options.title !== undefined && (options.title.trim() === "" || options.title.length > DOC_LIMITS.title)) problems.push({ path: "/title", message: `must be 1 to ${DOC_LIMITS.title} characters` });
  if (options.tags !== undefined) {
    if (options.tags.length > DOC_LIMITS.tags) problems.push({ path: "/tags", message: `at most ${DOC_LIMITS.tags} tags` });
    options.tags.forEach((tag, i) => (tag.length < 1 || tag.length > DOC_LIMITS.tag) && problems.push({ path: `/tags/${i}`, message: `must be 1 to ${DOC_LIMITS.tag} characters` }));
  }
  return problems;
}

async function store(deps: Deps, orgId: string, actor: Actor, imported: ImportedText & { url?: string }, options: ImportOptions, summary: Record<string, unknown>, path: string): Promise<Doc> {
  if (imported.body.trim() === "") throw importFailed("there is no readable text in it", path);
  if (imported.body.length > DOC_LIMITS.body) throw importFailed(`its text is ${imported.body.length} characters; a document holds at most ${DOC_LIMITS.body}`, path);
  const doc = await createDoc(deps, orgId, { title: options.title?.trim() || imported.title || "Untitled", body: imported.body, url: imported.url ?? null, tags: options.tags, status: options.status });
  await recordActivity(deps, { orgId, actor, action: "doc.imported", objectType: "doc", objectId: doc.id, summary: { ...summary, status: doc.status, characters: doc.body.length } });
  return doc;
}

/** Imports the page at `url` as a new document (its `url` is the page's). */
export async function importDocFromUrl(deps: Deps, orgId: string, actor: Actor, input: { url: string } & ImportOptions, signal?: AbortSignal): Promise<Doc> {
  const problems = checkOptions(input);
  if (input.url.length > DOC_LIMITS.url) problems.push({ path: "/url", message: `must be at most ${DOC_LIMITS.url} characters` });
  if (problems.length > 0) throw AppError.badRequest("The document cannot be imported.", problems);
  const imported = await fetchDocText(deps, input.url, signal);
  // Only the host goes into the log: a query string may carry a token.
  return store(deps, orgId, actor, imported, input, { source: "url", host: new URL(imported.url).host }, "/url");
}

/** Imports an uploaded markdown file as a new document: title from its first heading, else the file name. */
export async function importMarkdownFile(deps: Deps, orgId: string, actor: Actor, input: { file_name: string; content: string | Uint8Array } & ImportOptions): Promise<Doc> {
  const problems = checkOptions(input);
  if (problems.length > 0) throw AppError.badRequest("The document cannot be imported.", problems);
  const imported = markdownFileText(input.file_name, input.content);
  return store(deps, orgId, actor, imported, input, { source: "file", file_name: input.file_name }, "/content");
}
