// The house's shape, checked on the source text: layers point one way (docs/architecture.md
// "Floors"). Each top-level folder (or file) of src/ stands on a floor; a module may import
// modules of its own folder and of folders on lower floors, never one on its floor or above. So
// there is no circle of files across folders, no two folders import each other, and a new folder
// must be given its floor here before it can be imported.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { circles, floorOf, importEdges, importsIn, roomOf, sourceFiles, upward } from "./import-graph.ts";

const ROOT = join(import.meta.dir, "../..");
const files = sourceFiles(ROOT, "src");
const edges = importEdges(ROOT, files);

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
    expect(circles(files, edges)).toEqual([]);
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
    expect(importsIn(ROOT, "src/kit/x.ts", text)).toEqual(["src/agents/turn.ts", "src/dashboard/shell.ts", "src/kit/words.ts", "src/db/keyset.ts"]);
  });
});
