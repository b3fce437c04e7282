// Comments cite what a reader of the repository can open (docs/architecture.md "Conventions"): an
// RFC section, a README heading, docs/interface.md or docs/decisions.md — never an issue number,
// the section sign of a document that lives elsewhere, or a contract letter.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const FORBIDDEN = /issue #\d|\u00a7|contract C\d|\bINTEROP\b/;

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return path === "src/db/migrations" ? [] : files(path);
    return /\.(ts|tsx|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** Lines of `text` that cite something a reader cannot open (this file's own rule excepted). */
export function badCitations(path: string, text: string): string[] {
  return text.split("\n").flatMap((line, i) => (FORBIDDEN.test(line) && !line.includes("const FORBIDDEN") ? [`${path}:${i + 1}: ${line.trim()}`] : []));
}

describe("citations a reader can follow", () => {
  test("no issue numbers, section signs or contract letters in src/ and test/", () => {
    const found = [...files("src"), ...files("test")].flatMap((path) => badCitations(path, readFileSync(join(ROOT, path), "utf8")));
    expect(found).toEqual([]);
  });

  test("the check can fail", () => {
    const made = ["// see issue", " #12", "\n// RFC 6749 section 5.2\n// interface ", "\u00a7", "7.1\n// contract", " C6\n"].join("");
    expect(badCitations("x.ts", made).map((line) => line.slice(0, 6))).toEqual(["x.ts:1", "x.ts:3", "x.ts:4"]);
  });
});
