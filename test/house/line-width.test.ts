// No line of src/ is wider than the formatter's width (biome.json "lineWidth"). The formatter wraps
// code but cannot wrap a string, a template or a regular expression, so a long line there is left
// for a person to break: pages write their markup over several lines (docs/architecture.md
// "Dashboard pages"), long messages are split into joined parts. src/db/migrations/ is generated
// (scripts/embed-migrations.ts) and skipped, as biome.json skips it.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const GENERATED = "src/db/migrations/";

/** The formatter's width, read from biome.json so the two cannot drift. */
export function lineWidth(): number {
  const config = JSON.parse(readFileSync(join(ROOT, "biome.json"), "utf8")) as { formatter?: { lineWidth?: number } };
  const width = config.formatter?.lineWidth;
  if (typeof width !== "number") throw new Error("biome.json has no formatter.lineWidth");
  return width;
}

type Source = { path: string; text: string };

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return `${path}/` === GENERATED ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const read = (path: string): Source => ({ path, text: readFileSync(join(ROOT, path), "utf8") });

/** Each `file:line (length)` longer than `width` characters (code points, as an editor counts them). */
export function overWidth(files: readonly Source[], width: number): string[] {
  return files.flatMap((f) =>
    f.text.split("\n").flatMap((line, i) => {
      const length = [...line].length;
      return length > width ? [`${f.path}:${i + 1} (${length})`] : [];
    }),
  );
}

describe("no line of src/ wider than the formatter's width", () => {
  const width = lineWidth();
  const files = sourceFiles("src");

  test("every line of src/**/*.ts fits", () => {
    expect(width).toBe(160);
    expect(files.length).toBeGreaterThan(100);
    expect(overWidth(files.map(read), width)).toEqual([]);
  });

  test("the check finds a planted long line, and lets a line of exactly the width pass", () => {
    const fits = "x".repeat(width);
    const planted: Source = { path: "src/made-up.ts", text: `const a = 1;\n${fits}\nconst s = "${"y".repeat(width)}";\n` };
    expect(overWidth([planted], width)).toEqual([`src/made-up.ts:3 (${width + 13})`]);
    expect(overWidth([{ path: "src/fits.ts", text: `${fits}\n\u00e9${"x".repeat(width - 1)}` }], width)).toEqual([]);
  });
});
