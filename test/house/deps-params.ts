// Where src/ takes all of `Deps` rather than the members it uses (docs/architecture.md "The
// composition root and `Deps`"): read on the source text, comments left out. Shared by
// test/house/deps.test.ts and scripts/deps-census.ts.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "../..");

export function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return path === "src/db/migrations" ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The text without its comments, each block comment leaving its line breaks (so line numbers hold). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, "")).replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/**
 * Parameters and properties typed all of `Deps` (`deps: Deps`, `outer?: Deps`), one line each as
 * `name (line n)`; a local variable's annotation (`const inTx: Deps = …`) and a member type
 * (`Deps["db"]`) are not counted. An alias of the whole (`type XDeps = Deps`) counts as one.
 */
export function wholeDeps(text: string): string[] {
  const code = withoutComments(text);
  const lineOf = (at: number) => code.slice(0, at).split("\n").length;
  const found: string[] = [];
  for (const m of code.matchAll(/(\b(?:const|let|var)\s+)?\b(\w+)\??\s*:\s*Deps\b(?!\s*\[|\.)/g)) if (!m[1]) found.push(`${m[2]} (line ${lineOf(m.index)})`);
  for (const m of code.matchAll(/\btype\s+(\w+)\s*=\s*(?:Readonly<\s*)?Deps\b(?!\s*\[)\s*>?\s*;/g)) found.push(`type ${m[1]} (line ${lineOf(m.index)})`);
  return found;
}

/** `Pick<Deps, …>` written out (a named alias counts once, where it is declared). */
export function pickedDeps(text: string): number {
  return [...withoutComments(text).matchAll(/\bPick<\s*Deps\b/g)].length;
}

/** Every file of src/ but `deps.ts` itself, with its whole-`Deps` parameters and its picks. */
export function census(): { path: string; whole: string[]; picks: number }[] {
  return sourceFiles("src")
    .filter((path) => path !== "src/deps.ts")
    .map((path) => {
      const text = readFileSync(join(ROOT, path), "utf8");
      return { path, whole: wholeDeps(text), picks: pickedDeps(text) };
    });
}
