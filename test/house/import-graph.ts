// The import graph of src/, read from the source text: its files, the room (top-level folder or
// file) each stands in, the imports between files, the imports that point up (or across) a floor,
// and the circles of files. layers.test.ts checks it; scripts/house-figures.ts counts it. Every
// function takes the repository's root, so the same reading can measure another checkout.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { FLOORS } from "./floors.ts";

export type Edge = { from: string; to: string };

/** The .ts/.tsx files under `dir` (relative to `root`), without declarations and the generated migrations. */
export function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return path === "src/db/migrations" ? [] : sourceFiles(root, path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The top-level folder of a file of src/, or the file's own name for a file directly in src/. */
export function roomOf(file: string): string {
  const parts = file.split("/");
  return parts.length === 2 ? parts[1]!.replace(/\.tsx?$/, "") : parts[1]!;
}

// `import … from "x"`, `export … from "x"`, `import("x")` and a bare `import "x"` (run for its effects: still an import).
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s*["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)|(?:^|\n)\s*import\s*["'](\.{1,2}\/[^"']+)["']/g;

/** The files of src/ that `text`, the source of `file`, imports. */
export function importsIn(root: string, file: string, text: string): string[] {
  return [...text.matchAll(IMPORT)]
    .map((m) => relative(root, resolve(dirname(join(root, file)), m[1] ?? m[2] ?? m[3]!)))
    .filter((target) => target.startsWith("src/") && /\.tsx?$/.test(target));
}

/** Every import between two files of `files`' sources (a file importing another file of src/). */
export function importEdges(root: string, files: string[]): Edge[] {
  return files.flatMap((from) => importsIn(root, from, readFileSync(join(root, from), "utf8")).map((to) => ({ from, to })));
}

export const floorOf: ReadonlyMap<string, number> = new Map(FLOORS.flatMap((names, floor) => names.map((name) => [name, floor] as const)));

/** Imports into another room on the importer's floor or above (an unplaced room counts as the top). */
export function upward(list: Edge[]): string[] {
  return list
    .filter(({ from, to }) => roomOf(from) !== roomOf(to) && (floorOf.get(roomOf(to)) ?? Infinity) >= (floorOf.get(roomOf(from)) ?? -Infinity))
    .map(({ from, to }) => `${from} -> ${to}`);
}

/** The circles of the graph: its strongly connected components of more than one node, each sorted (Tarjan). */
export function circles(nodes: string[], edges: Edge[]): string[][] {
  const next = new Map<string, string[]>(nodes.map((f) => [f, []]));
  for (const { from, to } of edges) next.get(from)?.push(to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const f of nodes) if (!index.has(f)) visit(f);
  return found;
}
