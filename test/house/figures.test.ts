// The function finder of scripts/house-figures.ts, on planted sources: a function's length from its
// first line to its last (81 lines is over the limit, 80 is not), every kind of function, and a
// parameter of the whole `Deps` of src/deps.ts told from a part of it or another type of that name,
// by the rule the census of test/house/deps-params.ts reads too.
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { depsIn, type Fn, functionsIn, LONG_FUNCTION, parse, WIDE_LINE, wideLines } from "../../scripts/house-figures.ts";

const ROOT = join(import.meta.dir, "../..");

/** `head`, then `lines - 2` statements, then `tail`: `lines` lines in all. */
function planted(head: string, lines: number, tail = "}"): string {
  return [head, ...Array.from({ length: lines - 2 }, (_, i) => `  total += ${i};`), tail].join("\n");
}

const LENGTHS = "src/kit/figures-planted-lengths.ts";
const DEPS = "src/kit/figures-planted-deps.ts";
const OTHER = "src/kit/figures-planted-other.ts";

const sources: Record<string, string> = {
  [LENGTHS]: [
    "let total = 0;",
    planted("export function over() {", 81),
    planted("export function fits() {", 80),
    planted("export const arrow = () => {", 81, "};"),
    planted("export const expression = function () {", 81, "};"),
    planted("class Holder {\n  method() {", 80, "  }\n}"), // the class is 82 lines and holds an 80-line method
    "",
  ].join("\n"),
  [DEPS]: [
    'import type { Deps } from "../deps.ts";',
    'import type { Deps as Whole } from "../deps.ts";',
    'import type * as house from "../deps.ts";',
    "export function whole(deps: Deps, id: string) { return [deps, id]; }",
    'export function part(deps: Pick<Deps, "db">) { return deps; }',
    "export const destructured = ({ db }: Deps) => db;",
    "export const aliased = (deps: Whole) => deps;",
    "export const qualified = (deps: house.Deps) => deps;",
    'export const partial = (deps: Partial<Deps> | Deps["db"]) => deps;',
    "export function none(id: string) { return id; }",
    "",
  ].join("\n"),
  [OTHER]: ["type Deps = { db: unknown };", "export function lookalike(deps: Deps) { return deps; }", ""].join("\n"),
};

const byName = (fns: Fn[]) => new Map(fns.map((fn) => [fn.name, fn]));

describe("the house's figures: the function finder", () => {
  const files = [LENGTHS, DEPS, OTHER];
  let trees: Awaited<ReturnType<typeof parse>> = [];
  let found: Fn[][] = [];
  beforeAll(async () => {
    trees = await parse(ROOT, files, sources);
    found = trees.map((tree, i) => functionsIn(tree, files[i]!));
  }, 60_000); // the parser reads every file of src/: slow on a loaded machine

  test("a function's lines run from its first line to its last: 81 is over the limit, 80 is not", () => {
    const fns = byName(found[0]!);
    expect(LONG_FUNCTION).toBe(80);
    expect(fns.get("over")).toMatchObject({ lines: 81, line: 2 });
    expect(fns.get("fits")).toMatchObject({ lines: 80, line: 83 });
    expect(fns.get("Holder.method")?.lines).toBe(80);
    const over = found[0]!.filter((fn) => fn.lines > LONG_FUNCTION).map((fn) => fn.name);
    expect(over.sort()).toEqual(["arrow", "expression", "over"]);
  });

  test("a parameter of the whole Deps is found, under any local name; Pick<Deps>, a part or another Deps is not", () => {
    const whole = [...found[1]!, ...found[2]!].filter((fn) => fn.wholeDeps).map((fn) => fn.name);
    expect(whole.sort()).toEqual(["aliased", "destructured", "qualified", "whole"]);
    expect([...byName(found[1]!).keys()].sort()).toEqual(["aliased", "destructured", "none", "part", "partial", "qualified", "whole"]);
    expect(byName(found[2]!).get("lookalike")?.wholeDeps).toBe(false);
  });

  test("the census of the whole Deps (test/house/deps-params.ts) reads the same rule: the same parameters", () => {
    const flagged = found[1]!.filter((fn) => fn.wholeDeps).map((fn) => fn.line);
    const { whole, picks } = depsIn(trees[1]!, DEPS);
    expect(whole.map((w) => w.line)).toEqual(flagged);
    expect(whole.map((w) => w.name)).toEqual(["deps", "(destructured)", "deps", "deps"]);
    expect(picks).toBe(1);
    expect(depsIn(trees[2]!, OTHER)).toEqual({ whole: [], picks: 0 });
  });

  test("a line wider than the formatter's width is counted; one at the width is not", () => {
    expect(wideLines(["x".repeat(WIDE_LINE), "y".repeat(WIDE_LINE + 1), "é".repeat(WIDE_LINE)].join("\n"))).toBe(1);
  });
});
