// A feature names the members of `Deps` it uses (`Pick<Deps, "db" | "now">`, docs/architecture.md
// "The composition root and `Deps`"). All of `Deps` is taken only by the composition root, the one
// entry of the list below; anywhere else a whole-`Deps` parameter or property fails the first test
// (`bun scripts/deps-census.ts --files` lists them).
import { describe, expect, test } from "bun:test";
import { census, wholeDeps } from "./deps-params.ts";

/** Where all of `Deps` is allowed, and why. */
const ALLOWED: [RegExp, string][] = [[/^src\/(compose|app|server)\.ts$/, "the composition root: it builds Deps and hands it to every plugin"]];

/** Whole-`Deps` parameters outside ALLOWED, at most: none (a new one names what it uses instead). */
const WHOLE_DEPS_AT_MOST = 0;

const outside = () =>
  census()
    .filter(({ path }) => !ALLOWED.some(([re]) => re.test(path)))
    .flatMap(({ path, whole }) => whole.map((w) => `${path}: ${w}`));

describe("features name the Deps they use", () => {
  test(`at most ${WHOLE_DEPS_AT_MOST} whole-Deps parameters outside the allowed files`, () => {
    const found = outside();
    if (found.length > WHOLE_DEPS_AT_MOST) console.error(`whole Deps outside the allowed files (${found.length}):\n${found.join("\n")}`);
    expect(found.length).toBeLessThanOrEqual(WHOLE_DEPS_AT_MOST);
  });

  test("every allowed pattern still matches a file that takes all of Deps", () => {
    const rows = census().filter(({ whole }) => whole.length > 0);
    expect(ALLOWED.filter(([re]) => !rows.some(({ path }) => re.test(path))).map(([re]) => String(re))).toEqual([]);
  });

  test("the check can fail: what counts as all of Deps, and what does not", () => {
    const made = [
      "export async function a(deps: Deps, orgId: string) {}",
      "const b = async (deps: Deps) => deps.db;",
      "function c(\n  deps: Deps,\n) {}",
      "interface Ctx {\n  deps: Deps;\n  outer?: Deps;\n}",
      "type AllDeps = Deps;",
      'function d(deps: Pick<Deps, "db" | "now">) {}',
      "const inTx: Deps = { ...deps, db: tx };",
      'function e(db: Deps["db"]) {}',
      "// function f(deps: Deps) {}",
      "/* g(deps: Deps) */",
    ].join("\n");
    expect(wholeDeps(made)).toEqual(["deps (line 1)", "deps (line 2)", "deps (line 4)", "deps (line 7)", "outer (line 8)", "type AllDeps (line 10)"]);
  });
});
