// Uploaded files to markdown, for the files thread only (src/sources/files-worker.ts): PDF through
// unpdf (pdf.js), DOCX through mammoth then Turndown, HTML as a page (src/sources/html-markdown.ts),
// Markdown and plain text as they are, a zip's entries each by its own type. Every format is
// bounded before its parser runs: a zip's (and a DOCX's) entries by their declared sizes and by
// the bytes they really inflate to, counted as they inflate (src/sources/zip-read.ts), a PDF by
// its page count. Each file ends as markdown with a title, or a reason it could not be read.
import { zipSync } from "fflate";
import mammoth from "mammoth";
import { getDocumentProxy } from "unpdf";
import { firstHeading, titleFromFileName } from "../knowledge/docs-import.ts";
import { fragmentMarkdown, pageMarkdown, PageRefused } from "./html-markdown.ts";
import { readZip, Refused } from "./zip-read.ts";

export const FILE_LIMITS = {
  /** One uploaded file, and one entry of a zip, as sent. */
  fileBytes: 10 * 1024 * 1024,
  /** Files in one upload. */
  files: 20,
  /** A zip's (or a DOCX's) entries, and everything in it uncompressed. */
  zipEntries: 200,
  docxEntries: 1000,
  unzippedBytes: 50 * 1024 * 1024,
  pdfPages: 500,
} as const;

export const FILE_TYPES = [".pdf", ".docx", ".html", ".htm", ".md", ".markdown", ".txt", ".zip"] as const;

export type FileResult = { name: string; ok: true; title: string; markdown: string } | { name: string; ok: false; reason: string };

const extension = (name: string) => /\.[^./\\]+$/.exec(name.toLowerCase())?.[0] ?? "";

/** Lines of a PDF page, each with its font size; headings are the lines set larger than the body. */
async function pdfMarkdown(bytes: Uint8Array): Promise<string> {
  let doc;
  try {
    doc = await getDocumentProxy(bytes);
  } catch (error) {
    const name = (error as Error).name;
    if (name === "PasswordException") throw new Refused("the PDF is encrypted (password-protected)");
    throw new Refused("the file is not a readable PDF");
  }
  if (doc.numPages > FILE_LIMITS.pdfPages) throw new Refused(`the PDF has ${doc.numPages} pages; at most ${FILE_LIMITS.pdfPages}`);
  const lines: { text: string; size: number }[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    let line = { text: "", size: 0 };
    for (const item of content.items as { str?: string; transform?: number[]; hasEOL?: boolean }[]) {
      if (typeof item.str !== "string") continue;
      line.text += item.str;
      // An empty item (a line break) carries the next line's size, not this one's.
      if (item.str.trim() !== "") line.size = Math.max(line.size, Math.abs(item.transform?.[3] ?? item.transform?.[0] ?? 0));
      if (item.hasEOL) {
        lines.push(line);
        line = { text: "", size: 0 };
      }
    }
    lines.push(line, { text: "", size: 0 });
  }
  const kept = lines.map((l) => ({ text: l.text.replace(/\s+/g, " ").trim(), size: l.size }));
  // The body's size is the one most characters are set in.
  const weight = new Map<number, number>();
  for (const l of kept) if (l.text) weight.set(Math.round(l.size), (weight.get(Math.round(l.size)) ?? 0) + l.text.length);
  if (weight.size === 0) throw new Refused("the PDF has no text layer (scanned images?)");
  const body = [...weight.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  const largest = Math.max(...weight.keys());
  const out: string[] = [];
  for (const l of kept) {
    if (!l.text) continue;
    const size = Math.round(l.size);
    if (size >= body * 1.2 && l.text.length <= 200) out.push("", `${size === largest ? "#" : "##"} ${l.text}`, "");
    else out.push(l.text);
  }
  return out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function utf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true })
      .decode(bytes)
      .replace(/^\uFEFF/, "")
      .replace(/\r\n?/g, "\n");
  } catch {
    throw new Refused("the file is not UTF-8 text");
  }
}

async function one(name: string, bytes: Uint8Array): Promise<{ title: string; markdown: string }> {
  if (bytes.byteLength > FILE_LIMITS.fileBytes) throw new Refused(`the file is larger than ${FILE_LIMITS.fileBytes} bytes`);
  const fallback = titleFromFileName(name);
  switch (extension(name)) {
    case ".pdf": {
      const markdown = await pdfMarkdown(bytes);
      return { title: firstHeading(markdown) ?? fallback, markdown };
    }
    case ".docx": {
      // Inflated here under the caps, then handed to mammoth stored (not compressed again): its own
      // unzipping then inflates nothing, so the archive's declared sizes cannot mislead it.
      const { files } = readZip(
        bytes,
        { entries: FILE_LIMITS.docxEntries, entryBytes: FILE_LIMITS.unzippedBytes, totalBytes: FILE_LIMITS.unzippedBytes },
        "DOCX",
      );
      let html: string;
      try {
        const stored = zipSync(Object.fromEntries(files.map((f) => [f.name, f.bytes])), { level: 0 });
        html = (await mammoth.convertToHtml({ buffer: Buffer.from(stored) })).value;
      } catch {
        throw new Refused("the file is not a readable DOCX document");
      }
      const markdown = fragmentMarkdown(html);
      return { title: firstHeading(markdown) ?? fallback, markdown };
    }
    case ".html":
    case ".htm": {
      const page = pageMarkdown(utf8(bytes), `file:///${encodeURIComponent(name)}`);
      return { title: page.title.startsWith("/") ? fallback : page.title, markdown: page.markdown };
    }
    case ".md":
    case ".markdown":
    case ".txt": {
      const markdown = utf8(bytes).trim();
      if (/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(markdown)) throw new Refused("the file contains control characters: it is not text");
      return { title: firstHeading(markdown) ?? fallback, markdown };
    }
    default:
      throw new Refused(`files of this type are not read; send ${FILE_TYPES.join(", ")}`);
  }
}

/** One uploaded file, or each entry of an uploaded zip (nested zips are refused). */
export async function readUpload(name: string, bytes: Uint8Array): Promise<FileResult[]> {
  const fail = (file: string, error: unknown): FileResult => ({
    name: file,
    ok: false,
    reason:
      error instanceof Refused || error instanceof PageRefused
        ? error.message
        : error instanceof RangeError
          ? "the file is too complex to read (its parser ran out of room)"
          : "the file could not be read",
  });
  if (extension(name) !== ".zip") {
    try {
      return [{ name, ok: true, ...(await one(name, bytes)) }];
    } catch (error) {
      return [fail(name, error)];
    }
  }
  let contents: ReturnType<typeof readZip>;
  try {
    if (bytes.byteLength > FILE_LIMITS.fileBytes) throw new Refused(`the zip is larger than ${FILE_LIMITS.fileBytes} bytes`);
    contents = readZip(bytes, { entries: FILE_LIMITS.zipEntries, entryBytes: FILE_LIMITS.fileBytes, totalBytes: FILE_LIMITS.unzippedBytes }, "zip", (entry) =>
      extension(entry) === ".zip" ? "a zip inside a zip is not read" : null,
    );
  } catch (error) {
    return [fail(name, error)];
  }
  const results: FileResult[] = contents.skipped.map((s) => fail(`${name}/${s.name}`, new Refused(s.reason)));
  for (const { name: entry, bytes: content } of contents.files) {
    const label = `${name}/${entry}`;
    try {
      results.push({ name: label, ok: true, ...(await one(entry, content)) });
    } catch (error) {
      results.push(fail(label, error));
    }
  }
  return results;
}
