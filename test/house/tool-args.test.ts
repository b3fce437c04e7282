// Tool arguments are typed where the tool declares them (src/tools/define.ts: the input schema in
// TypeBox, the handler's arguments its `Static<>`), so no tool body casts them: no `args.x as`,
// `args["x"] as` or `(args as …)` anywhere in src/.
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const CAST = /\bargs\.[A-Za-z_$][\w$]*\s+as\b|\bargs\[\s*(["'`])[^"'`]*\1\s*\]\s+as\b|\(\s*args\s+as\b/g;

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return files(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Each cast of tool arguments in `text`, as `path:line: the cast`. */
export function argumentCasts(path: string, text: string): string[] {
  return [...text.matchAll(CAST)].map((m) => `${path}:${text.slice(0, m.index).split("\n").length}: ${m[0]}`);
}

test("no cast of tool arguments in src/", () => {
  const found = files("src").flatMap((path) => argumentCasts(path, readFileSync(join(ROOT, path), "utf8")));
  expect(found).toEqual([]);
});

test("the check can fail", () => {
  const made = [
    "const a = args.ticket as string;",
    'const b = args["body"] as string | undefined;',
    "const c = (args as unknown as CampaignInput).name;",
    "const d = args.limit ?? 20; // typed: no cast",
    "const e = rest[last] as Callback;",
  ].join("\n");
  expect(argumentCasts("x.ts", made)).toEqual(["x.ts:1: args.ticket as", 'x.ts:2: args["body"] as', "x.ts:3: (args as"]);
});
