// A feature names the members of `Deps` it uses (`Pick<Deps, "db" | "now">`, docs/architecture.md
// "The composition root and `Deps`"). All of `Deps` is taken only by the composition root, the one
// entry of the list below; anywhere else a whole-`Deps` parameter or property fails the first test
// (`bun scripts/deps-census.ts --files` lists them).
import { beforeAll, describe, expect, test } from "bun:test";
import { census, wholeDeps } from "./deps-params.ts";

/** Where all of `Deps` is allowed, and why. */
const ALLOWED: [RegExp, string][] = [[/^src\/(compose|app|server)\.ts$/, "the composition root: it builds Deps and hands it to every plugin"]];

/** Whole-`Deps` parameters outside ALLOWED, at most: none (a new one names what it uses instead). */
const WHOLE_DEPS_AT_MOST = 0;

describe("features name the Deps they use", () => {
  let rows: Awaited<ReturnType<typeof census>> = [];
  beforeAll(async () => {
    rows = await census();
  }, 60_000); // the parser reads every file of src/: slow on a loaded machine
  const outside = () => rows.filter(({ path }) => !ALLOWED.some(([re]) => re.test(path))).flatMap(({ path, whole }) => whole.map((w) => `${path}: ${w}`));

  test(`at most ${WHOLE_DEPS_AT_MOST} whole-Deps parameters outside the allowed files`, () => {
    const found = outside();
    if (found.length > WHOLE_DEPS_AT_MOST) console.error(`whole Deps outside the allowed files (${found.length}):\n${found.join("\n")}`);
    expect(found.length).toBeLessThanOrEqual(WHOLE_DEPS_AT_MOST);
  });

  test("every allowed pattern still matches a file that takes all of Deps", () => {
    const taking = rows.filter(({ whole }) => whole.length > 0);
    expect(ALLOWED.filter(([re]) => !taking.some(({ path }) => re.test(path))).map(([re]) => String(re))).toEqual([]);
  });

  test("the check can fail: what counts as all of Deps, and what does not", async () => {
    const made = [
      'import type { Deps } from "../deps.ts";',
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
      "const h = ({ db }: Deps) => db;",
      "type Frozen = Readonly<Deps>;",
      'function i(deps: Partial<Deps> | Deps["db"]) {}',
    ].join("\n");
    expect(await wholeDeps(made)).toEqual([
      "deps (line 2)",
      "deps (line 3)",
      "deps (line 5)",
      "deps (line 8)",
      "outer (line 9)",
      "type AllDeps (line 11)",
      "(destructured) (line 17)",
      "type Frozen (line 18)",
    ]);
  });
});
