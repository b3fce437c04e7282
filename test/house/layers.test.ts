// The house's shape, checked on the source text: layers point one way (docs/architecture.md
// "Floors"). Each top-level folder (or file) of src/ stands on a floor; a module may import
// modules of its own folder and of folders on lower floors, never one on its floor or above. So
// there is no circle of files across folders, no two folders import each other, and a new folder
// must be given its floor here before it can be imported.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { FLOORS } from "./floors.ts";

const ROOT = join(import.meta.dir, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return path === "src/db/migrations" ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The top-level folder of a file of src/, or the file's own name for a file directly in src/. */
function roomOf(file: string): string {
  const parts = file.split("/");
  return parts.length === 2 ? parts[1]!.replace(/\.tsx?$/, "") : parts[1]!;
}

// `import … from "x"`, `export … from "x"`, `import("x")` and a bare `import "x"` (run for its effects: still an import).
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s*["'](\.{1,2}\/[^"']+)["']|import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)|(?:^|\n)\s*import\s*["'](\.{1,2}\/[^"']+)["']/g;

function importsIn(file: string, text: string): string[] {
  return [...text.matchAll(IMPORT)]
    .map((m) => relative(ROOT, resolve(dirname(join(ROOT, file)), m[1] ?? m[2] ?? m[3]!)))
    .filter((target) => target.startsWith("src/") && /\.tsx?$/.test(target));
}

function importsOf(file: string): string[] {
  return importsIn(file, readFileSync(join(ROOT, file), "utf8"));
}

const files = sourceFiles("src");
const edges = files.flatMap((from) => importsOf(from).map((to) => ({ from, to })));
const floorOf = new Map(FLOORS.flatMap((names, floor) => names.map((name) => [name, floor] as const)));

/** Imports into another room on the importer's floor or above (an unplaced room counts as the top). */
function upward(list: { from: string; to: string }[]): string[] {
  return list
    .filter(({ from, to }) => roomOf(from) !== roomOf(to) && (floorOf.get(roomOf(to)) ?? Infinity) >= (floorOf.get(roomOf(from)) ?? -Infinity))
    .map(({ from, to }) => `${from} -> ${to}`);
}

describe("layers point one way", () => {
  test("every folder and file of src/ has a floor, and every floor names something that exists", () => {
    const rooms = new Set(files.map(roomOf));
    expect([...rooms].filter((room) => !floorOf.has(room)).sort()).toEqual([]);
    expect([...floorOf.keys()].filter((name) => !rooms.has(name)).sort()).toEqual([]);
  });

  test("a module imports only its own folder and lower floors", () => {
    expect(upward(edges)).toEqual([]);
  });

  test("no two folders import each other", () => {
    const pairs = new Set(edges.filter(({ from, to }) => roomOf(from) !== roomOf(to)).map(({ from, to }) => `${roomOf(from)} ${roomOf(to)}`));
    const mutual = [...pairs].filter((pair) => pairs.has(pair.split(" ").reverse().join(" ")));
    expect(mutual).toEqual([]);
  });

  test("no circle of files", () => {
    const next = new Map<string, string[]>(files.map((f) => [f, []]));
    for (const { from, to } of edges) next.get(from)?.push(to);
    // Tarjan's strongly connected components: any component of more than one file is a circle.
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const circles: string[][] = [];
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
        if (component.length > 1) circles.push(component.sort());
      }
    };
    for (const f of files) if (!index.has(f)) visit(f);
    expect(circles).toEqual([]);
  });

  test("the check can fail: an import up a floor, or across one floor, is reported; one down is not", () => {
    const made = [
      { from: "src/http/body.ts", to: "src/dashboard/shell.ts" },
      { from: "src/inbox/tickets.ts", to: "src/campaigns/lifecycle.ts" },
      { from: "src/dashboard/shell.ts", to: "src/http/body.ts" },
    ];
    expect(upward(made)).toEqual(["src/http/body.ts -> src/dashboard/shell.ts", "src/inbox/tickets.ts -> src/campaigns/lifecycle.ts"]);
    expect(edges.length).toBeGreaterThan(500); // the import reader found the imports
    const text =
      'import { a } from "../agents/turn.ts";\nimport "../dashboard/shell.ts";\nexport { b } from "./words.ts";\nconst c = import("../db/keyset.ts");\n';
    expect(importsIn("src/kit/x.ts", text)).toEqual(["src/agents/turn.ts", "src/dashboard/shell.ts", "src/kit/words.ts", "src/db/keyset.ts"]);
  });
});
