// Comments and documents cite what a reader of the repository can open (docs/architecture.md
// "Conventions"): an RFC section, a README heading, docs/interface.md (its sections and the lettered
// appendix) or docs/decisions.md — never an issue number, a "must-show", a contract letter or a
// document that lives outside the repository. Source files also keep the section sign out (it
// used to name sections of a document that lives elsewhere); documents may write "RFC 6749 §4.1",
// and every section sign in a document names its document in the same table cell or sentence
// ("RFC 7009 §2.1", "docs/interface.md §2.6", "interface §5"): a bare "§7.1" is refused.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const FORBIDDEN_IN_DOCS = /issues? #\d|must[- ]shows?\b|contract c\d|\binterop\b/i;
const FORBIDDEN_IN_CODE = new RegExp(`${FORBIDDEN_IN_DOCS.source}|\\u00a7`, "i");
/** What names the document a section sign points into. */
const NAMED_DOCUMENT = /\bRFC \d{3,5}\b|\binterface(?:\.md)?\b|\bdocs\/[\w.-]+\.md\b/i;
const SKIP = new Set(["node_modules", ".git", ".cache", "data", "dist", "src/db/migrations"]);

function files(dir: string, pattern: RegExp): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir === "." ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) return SKIP.has(path) || entry.name.startsWith(".") ? [] : files(path, pattern);
    return pattern.test(entry.name) ? [path] : [];
  });
}

/** A line's table cells (split on unescaped bars), each cut into sentences. */
function units(line: string): string[] {
  return line.split(/(?<!\\)\|/).flatMap((cell) => cell.split(/(?<=[.!?;])\s+(?=[A-Z(`"*])/));
}

/** Whether a document's line has a section sign whose cell or sentence does not name the document. */
const bareSection = (line: string) => line.includes("\u00a7") && units(line).some((u) => u.includes("\u00a7") && !NAMED_DOCUMENT.test(u));

/** Lines of `text` that cite something a reader cannot open. */
export function badCitations(path: string, text: string): string[] {
  const doc = /\.md$/.test(path);
  const bad = doc ? (line: string) => FORBIDDEN_IN_DOCS.test(line) || bareSection(line) : (line: string) => FORBIDDEN_IN_CODE.test(line);
  return text.split("\n").flatMap((line, i) => (bad(line) ? [`${path}:${i + 1}: ${line.trim()}`] : []));
}

describe("citations a reader can follow", () => {
  test("no issue numbers, must-shows, section signs or contract letters in src/, test/, bench/ and scripts/", () => {
    const code = ["src", "test", "bench", "scripts"].flatMap((dir) => files(dir, /\.(ts|tsx|mjs|js)$/));
    const found = code.filter((path) => path !== "test/house/citations.test.ts").flatMap((path) => badCitations(path, readFileSync(join(ROOT, path), "utf8")));
    expect(found).toEqual([]);
  });

  test("none in the README and the documents (every .md of the repository)", () => {
    const docs = files(".", /\.md$/);
    expect(docs).toContain("docs/decisions.md");
    const found = docs.flatMap((path) => badCitations(path, readFileSync(join(ROOT, path), "utf8")));
    expect(found).toEqual([]);
  });

  test("the check can fail, whatever the case", () => {
    const made = ["// see ISSUE", " #12", "\n// RFC 6749 section 5.2\n// interface ", "\u00a7", "7.1\n// Must-Show", " 3\n// contract", " c6\n"].join("");
    expect(badCitations("x.ts", made).map((line) => line.slice(0, 6))).toEqual(["x.ts:1", "x.ts:3", "x.ts:4", "x.ts:5"]);
    const doc = ["RFC 6749 ", "\u00a7", "4.1 is fine\nsee Issue", " #9\nper interop", " A.3\n"].join("");
    expect(badCitations("x.md", doc).map((line) => line.slice(0, 6))).toEqual(["x.md:2", "x.md:3"]);
  });

  test("a section sign in a document names its document in the same cell or sentence", () => {
    const S = "\u00a7";
    const doc = [
      `| Tool failures | JSON-RPC errors. | ${S}7.1's mapping. |`, // bare: the cell names nothing
      `| Tool failures | JSON-RPC errors. | docs/interface.md ${S}7.1's mapping. |`,
      `The SDK (interface ${S}2.5, ${S}2.6). Revoked tokens (RFC 7009 ${S}2.2).`,
      `The SDK (interface ${S}2.5). Then ${S}2.6 again.`, // bare: the second sentence names nothing
      `| docs/interface.md | ${S}3 names the last two. |`, // bare: the name is in another cell
    ].join("\n");
    expect(badCitations("x.md", doc).map((line) => line.slice(0, 6))).toEqual(["x.md:1", "x.md:4", "x.md:5"]);
  });
});
