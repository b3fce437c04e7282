// One layout rule for the house (docs/decisions.md "Formatting"): Biome, pinned in package.json and
// configured once in biome.json (2-space indent, 160 columns, double quotes), formats src/, test/,
// bench/ and scripts/. `npm run format` writes; this test is the check CI runs with the suite.
// Long string literals stay whole (a message is grepped for as written), so a line may pass 160
// columns only inside a string, a template or a regular expression.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const BIOME = join(ROOT, "node_modules/.bin/biome");

function biome(args: string[], stdin?: string) {
  const run = Bun.spawnSync([BIOME, ...args], {
    cwd: ROOT,
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: run.exitCode, out: `${run.stdout.toString()}${run.stderr.toString()}` };
}

describe("the house is formatted", () => {
  test("every file biome.json covers is as `npm run format` leaves it", () => {
    const run = biome(["format", "--reporter=summary", "."]);
    // On failure the summary names each file that needs `npm run format`.
    expect(run.code === 0 ? "" : run.out).toBe("");
  });

  test("the check can fail: a file laid out otherwise is reformatted", () => {
    const messy = "export const  a ={b:1,\n  c:[1,2]}\n";
    const run = biome(["format", "--stdin-file-path=src/planted.ts"], messy);
    expect(run.code).toBe(0);
    expect(run.out).toBe("export const a = { b: 1, c: [1, 2] };\n");
    expect(run.out).not.toBe(messy);
  });
});
