// Importing knowledge-base documents (README "Setup tools and doc import"): from a URL, or from an
// uploaded markdown file's text. The `setup_import_doc_from_url` tool and the dashboard's
// knowledge-base page both call these functions, so both apply the same rules (docs/decisions.md
// "Doc import"):
//   * A URL is fetched through the outbound guard (src/net/guard.ts, docs/interface.md 8.2): https
//     only (plain http only to loopback in development, as the guard allows), no private or
//     internal address, no redirect followed (a 3xx is refused naming its Location, so the admin
//     can import the final address itself), the response capped at IMPORT_LIMITS.responseBytes and
//     the whole request at IMPORT_LIMITS.timeoutMs.
//   * Content types: text/html and application/xhtml+xml are turned into readable markdown-ish text
//     (headings, paragraphs, lists, links, code: src/knowledge/html-to-text.ts) titled by the
//     page's <title> (else its first <h1>); text/markdown, text/x-markdown and text/plain are kept
//     as they are, titled by their first heading. Anything else is refused: a PDF or an image read
//     as text would be noise.
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
import { fallbackTitle, htmlToText, type ImportedText } from "./html-to-text.ts";

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
 * the first 1024 bytes (HTML Standard section 13.2.3.2 prescan, simplified); UTF-8 when none or an unknown one is declared.
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
export async function fetchDocText(deps: Pick<Deps, "guard" | "log" | "timers">, url: string, signal?: AbortSignal): Promise<ImportedText & { url: string }> {
  const deadline = deps.timers.deadline(IMPORT_LIMITS.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
  let response: Response;
  let bytes: Uint8Array;
  try {
    response = await guardedFetch(
      url,
      { headers: { accept: [...HTML_TYPES, ...TEXT_TYPES].join(", "), "user-agent": "svc-agents-doc-import/1.0" }, signal: combined },
      deps.guard,
    );
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
    if (isTimeout(error))
      throw importFailed(signal?.aborted ? "the import was cancelled" : `the page did not arrive within ${IMPORT_LIMITS.timeoutMs / 1000} s`);
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

// --- markdown ----------------------------------------------------------------------------------

/**
 * The text of an ATX heading line (CommonMark section 4.2: up to three spaces, 1–6 `#`, a space, an
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
  const body = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .trim();
  return { title: (firstHeading(body) ?? fallback).replace(/\s+/g, " ").slice(0, DOC_LIMITS.title), body };
}

/** A title from a file name: `getting-started.md` → `Getting started`. */
export function titleFromFileName(fileName: string): string {
  const base = fileName
    .replace(/^.*[\\/]/, "")
    .replace(/\.[^.]*$/, "")
    .replace(/[-_]+/g, " ")
    .trim();
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
  if (options.title !== undefined && (options.title.trim() === "" || options.title.length > DOC_LIMITS.title))
    problems.push({ path: "/title", message: `must be 1 to ${DOC_LIMITS.title} characters` });
  if (options.tags !== undefined) {
    if (options.tags.length > DOC_LIMITS.tags) problems.push({ path: "/tags", message: `at most ${DOC_LIMITS.tags} tags` });
    options.tags.forEach(
      (tag, i) =>
        (tag.length < 1 || tag.length > DOC_LIMITS.tag) && problems.push({ path: `/tags/${i}`, message: `must be 1 to ${DOC_LIMITS.tag} characters` }),
    );
  }
  return problems;
}

async function store(
  deps: Pick<Deps, "db" | "knowledge" | "now">,
  orgId: string,
  actor: Actor,
  imported: ImportedText & { url?: string },
  options: ImportOptions,
  summary: Record<string, unknown>,
  path: string,
): Promise<Doc> {
  if (imported.body.trim() === "") throw importFailed("there is no readable text in it", path);
  if (imported.body.length > DOC_LIMITS.body)
    throw importFailed(`its text is ${imported.body.length} characters; a document holds at most ${DOC_LIMITS.body}`, path);
  const doc = await createDoc(deps, orgId, {
    title: options.title?.trim() || imported.title || "Untitled",
    body: imported.body,
    url: imported.url ?? null,
    tags: options.tags,
    status: options.status,
    language: imported.language ?? null,
  });
  await recordActivity(deps, {
    orgId,
    actor,
    action: "doc.imported",
    objectType: "doc",
    objectId: doc.id,
    summary: { ...summary, status: doc.status, characters: doc.body.length },
  });
  return doc;
}

/** Imports the page at `url` as a new document (its `url` is the page's). */
export async function importDocFromUrl(
  deps: Pick<Deps, "db" | "guard" | "knowledge" | "log" | "now" | "timers">,
  orgId: string,
  actor: Actor,
  input: { url: string } & ImportOptions,
  signal?: AbortSignal,
): Promise<Doc> {
  const problems = checkOptions(input);
  if (input.url.length > DOC_LIMITS.url) problems.push({ path: "/url", message: `must be at most ${DOC_LIMITS.url} characters` });
  if (problems.length > 0) throw AppError.badRequest("The document cannot be imported.", problems);
  const imported = await fetchDocText(deps, input.url, signal);
  // Only the host goes into the log: a query string may carry a token.
  return store(deps, orgId, actor, imported, input, { source: "url", host: new URL(imported.url).host }, "/url");
}

/** Imports an uploaded markdown file as a new document: title from its first heading, else the file name. */
export async function importMarkdownFile(
  deps: Pick<Deps, "db" | "knowledge" | "now">,
  orgId: string,
  actor: Actor,
  input: { file_name: string; content: string | Uint8Array } & ImportOptions,
): Promise<Doc> {
  const problems = checkOptions(input);
  if (problems.length > 0) throw AppError.badRequest("The document cannot be imported.", problems);
  const imported = markdownFileText(input.file_name, input.content);
  return store(deps, orgId, actor, imported, input, { source: "file", file_name: input.file_name }, "/content");
}
