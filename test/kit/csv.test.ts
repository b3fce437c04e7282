// The one CSV writer (src/kit/csv.ts): RFC 4180 quoting, and every text that could start a
// formula defused with a leading apostrophe; numbers stay numbers.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Glob } from "bun";
import { csvCell, csvDocument } from "../../src/kit/csv.ts";
import { formulaCells, HOSTILE_CELLS, parseCsv } from "../support/csv.ts";

describe("csvCell", () => {
  test("RFC 4180 quoting: comma, quote, CR and LF; empty for null", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell('a, "b"')).toBe('"a, ""b"""');
    expect(csvCell("two\r\nlines")).toBe('"two\r\nlines"');
    expect(csvCell(null)).toBe("");
    expect(csvCell(undefined)).toBe("");
    expect(csvCell(true)).toBe("true");
  });

  test("a text starting with = + - @, a tab or CR gets a leading apostrophe, quoted or not", () => {
    expect(csvCell("=1+1")).toBe("'=1+1");
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell("-1")).toBe("'-1");
    expect(csvCell("@SUM(1+1) …")).toBe("'@SUM(1+1) …");
    expect(csvCell("\tx")).toBe("'\tx");
    expect(csvCell("\r=1")).toBe('"\'\r=1"');
    expect(csvCell("  =1")).toBe("'  =1");
    expect(csvCell('=HYPERLINK("x","y")')).toBe('"\'=HYPERLINK(""x"",""y"")"');
    expect(csvCell("a=1")).toBe("a=1");
  });

  test("a number is a value: -1 and 0.5 stay as they are", () => {
    expect(csvCell(-1)).toBe("-1");
    expect(csvCell(0.5)).toBe("0.5");
  });

  test("a document of hostile cells reads back with no formula", () => {
    const text = csvDocument([["question", "count"], ...HOSTILE_CELLS.map((q, i) => [q, -i])]);
    const rows = parseCsv(text);
    expect(rows).toHaveLength(HOSTILE_CELLS.length + 1);
    expect(formulaCells(rows)).toEqual([]);
    expect(rows.slice(1).map((r) => r[0])).toEqual(HOSTILE_CELLS.map((q) => `'${q}`));
  });
});

describe("one writer", () => {
  const root = join(import.meta.dir, "../../src");
  const files = [...new Glob("**/*.ts").scanSync(root)].map((f) => ({ path: f, text: readFileSync(join(root, f), "utf8") }));
  const usesWriter = (path: string, text: string) =>
    /from "[./]*\/?kit\/csv\.ts"|from "\.\/csv\.ts"/.test(text) ||
    [...text.matchAll(/from "(\.[^"]+\.ts)"/g)].some((m) => {
      const target = join(dirname(join(root, path)), m[1]!);
      return /from "(\.\.\/)+kit\/csv\.ts"/.test(readFileSync(target, "utf8"));
    });

  test("every route answering text/csv writes it through src/kit/csv.ts", () => {
    const answering = files.filter((f) => f.text.includes("text/csv"));
    expect(answering.length).toBeGreaterThanOrEqual(3);
    expect(answering.filter((f) => !usesWriter(f.path, f.text)).map((f) => f.path)).toEqual([]);
  });

  test("no other module quotes CSV fields itself", () => {
    expect(files.filter((f) => f.path !== "kit/csv.ts" && f.text.includes(`'""'`)).map((f) => f.path)).toEqual([]);
  });
});
