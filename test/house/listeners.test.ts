// No listener can show Bun's development error page (it lists source paths and lines): every
// Bun.serve in src/ passes `development: false`, whatever NODE_ENV says (README "HTTP conventions").
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return files(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Each `Bun.serve({ … })` call of `text` whose options (up to the call's closing parenthesis) lack `development: false`. */
export function devListeners(path: string, text: string): string[] {
  const found: string[] = [];
  for (let at = text.indexOf("Bun.serve("); at !== -1; at = text.indexOf("Bun.serve(", at + 1)) {
    let depth = 0;
    let end = at + "Bun.serve".length;
    for (; end < text.length; end++) {
      if (text[end] === "(") depth++;
      else if (text[end] === ")" && --depth === 0) break;
    }
    if (!/\bdevelopment:\s*false\b/.test(text.slice(at, end))) found.push(`${path}:${text.slice(0, at).split("\n").length}`);
  }
  return found;
}

test("every Bun.serve in src/ passes development: false", () => {
  const all = files("src").filter((path) => !path.includes("/client/"));
  const texts = all.map((path) => [path, readFileSync(join(ROOT, path), "utf8")] as const);
  const calls = texts.reduce((n, [, text]) => n + text.split("Bun.serve(").length - 1, 0);
  expect(calls).toBeGreaterThanOrEqual(3); // the public port, METRICS_PORT, the admin socket
  expect(texts.flatMap(([path, text]) => devListeners(path, text))).toEqual([]);
});

test("the check can fail", () => {
  const made = "const a = Bun.serve({ port: 1, fetch: (r) => f(r) });\nconst b = Bun.serve({ port: 2, development: false, fetch });\n";
  expect(devListeners("x.ts", made)).toEqual(["x.ts:1"]);
});
