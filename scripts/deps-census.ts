// How many parameters, properties and type aliases of src/ take all of `Deps`, and how many
// `Pick<Deps, …>` name what they use, by folder: `bun scripts/deps-census.ts` (add `--files` for
// each file's list). The house test test/house/deps.test.ts holds the whole-`Deps` count at 0
// outside the composition root; scripts/house-figures.ts reads the same rule (`depsIn`).
import { census } from "../test/house/deps-params.ts";

const rows = await census();
const byFolder = new Map<string, { whole: number; picks: number }>();
for (const { path, whole, picks } of rows) {
  const parts = path.split("/");
  const folder = parts.length > 2 ? parts[1]! : parts[1]!.replace(/\.ts$/, "");
  const f = byFolder.get(folder) ?? { whole: 0, picks: 0 };
  f.whole += whole.length;
  f.picks += picks;
  byFolder.set(folder, f);
}
const total = { whole: 0, picks: 0 };
console.log("folder                whole  Pick");
for (const [folder, f] of [...byFolder].sort(([, a], [, b]) => b.whole - a.whole || b.picks - a.picks)) {
  if (!f.whole && !f.picks) continue;
  total.whole += f.whole;
  total.picks += f.picks;
  console.log(`${folder.padEnd(20)} ${String(f.whole).padStart(6)} ${String(f.picks).padStart(5)}`);
}
console.log(`${"total".padEnd(20)} ${String(total.whole).padStart(6)} ${String(total.picks).padStart(5)}`);
if (process.argv.includes("--files")) for (const { path, whole } of rows) if (whole.length) console.log(`${path}: ${whole.join(", ")}`);
