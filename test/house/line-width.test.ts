// No line of src/ is wider than the formatter's width (biome.json "lineWidth"). The formatter wraps
// code but cannot wrap a string, a template or a regular expression, so a long line there is left
// for a person to break: pages write their markup over several lines (docs/architecture.md
// "Dashboard pages"), long messages are split into joined parts. src/db/migrations/ is generated
// (scripts/embed-migrations.ts) and skipped, as biome.json skips it.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
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

// Files over the width when the rule came, being fixed by others: the rule skips them. This list
// only shrinks (a file that fits must leave it, the test below says so) and ends empty.
export const NOT_YET: readonly string[] = [
  "src/dashboard/campaign-enrolments.ts",
  "src/dashboard/campaign-page.ts",
  "src/dashboard/campaign-preview.ts",
  "src/dashboard/campaigns-audience.ts",
];

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

  test("every line of src/**/*.ts fits (except the files not yet fixed)", () => {
    expect(width).toBe(160);
    expect(files.length).toBeGreaterThan(100);
    const skipped = new Set(NOT_YET);
    expect(overWidth(files.filter((path) => !skipped.has(path)).map(read), width)).toEqual([]);
  });

  test("the not-yet list only shrinks: each entry exists and still has a long line", () => {
    const stale = NOT_YET.filter((path) => !existsSync(join(ROOT, path)) || overWidth([read(path)], width).length === 0);
    expect(stale).toEqual([]);
  });

  test("the check finds a planted long line, and lets a line of exactly the width pass", () => {
    const fits = "x".repeat(width);
    const planted: Source = { path: "src/made-up.ts", text: `const a = 1;\n${fits}\nconst s = "${"y".repeat(width)}";\n` };
    expect(overWidth([planted], width)).toEqual([`src/made-up.ts:3 (${width + 13})`]);
    expect(overWidth([{ path: "src/fits.ts", text: `${fits}\n\u00e9${"x".repeat(width - 1)}` }], width)).toEqual([]);
  });
});
