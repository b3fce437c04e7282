// Where src/ takes all of `Deps` rather than the members it uses (docs/architecture.md "The
// composition root and `Deps`"), and where it names them with `Pick<Deps, …>`: read by the
// compiler's parser with the one rule of scripts/house-figures.ts (`depsIn`), which also counts
// the functions taking the whole `Deps` in the house's figures. Shared by test/house/deps.test.ts
// and scripts/deps-census.ts.
import { join } from "node:path";
import { depsIn, parse } from "../../scripts/house-figures.ts";
import { sourceFiles } from "./import-graph.ts";

export const ROOT = join(import.meta.dir, "../..");

const named = ({ name, line }: { name: string; line: number }) => `${name} (line ${line})`;

/**
 * The places of `text`, read as a file of src/kit/ (planted, never written), typed all of `Deps`,
 * one line each as `name (line n)`: parameters (`deps: Deps`, `{ db }: Deps`), properties
 * (`outer?: Deps`) and type aliases (`type XDeps = Deps`).
 */
export async function wholeDeps(text: string): Promise<string[]> {
  const file = "src/kit/deps-planted.ts";
  const [tree] = await parse(ROOT, [file], { [file]: text });
  return depsIn(tree!, file).whole.map(named);
}

/** Every file of src/ but `deps.ts` itself, with its whole-`Deps` places and its picks. */
export async function census(root = ROOT): Promise<{ path: string; whole: string[]; picks: number }[]> {
  const files = sourceFiles(root, "src").filter((path) => path !== "src/deps.ts");
  const trees = await parse(root, files);
  return trees.map((tree, i) => {
    const { whole, picks } = depsIn(tree, files[i]!);
    return { path: files[i]!, whole: whole.map(named), picks };
  });
}
