// Tests await a promise before expecting on it, never `expect(promise).rejects` / `.resolves`:
// under Bun those wait without delivering worker messages, so a promise the embedded database's
// thread settles hangs the test (test/support/settle.ts, which also shows the way round it).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { rejectionOf } from "../support/settle.ts";

const ROOT = join(import.meta.dir, "../..");
const FORBIDDEN = /\)\s*\.\s*(rejects|resolves)\s*\./;

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return files(path);
    return /\.(ts|tsx)$/.test(entry.name) ? [path] : [];
  });
}

/** Lines of `text` that expect on a promise's settling through Bun's matchers. */
export function promiseMatchers(path: string, text: string): string[] {
  return text.split("\n").flatMap((line, i) => (FORBIDDEN.test(line) && !line.includes("const FORBIDDEN") ? [`${path}:${i + 1}: ${line.trim()}`] : []));
}

describe("promises are awaited before they are expected on", () => {
  test("no .rejects or .resolves matcher in test/ or bench/", () => {
    const found = [...files("test"), ...files("bench")].flatMap((path) => promiseMatchers(path, readFileSync(join(ROOT, path), "utf8")));
    expect(found).toEqual([]);
  });

  test("the check can fail", () => {
    const made = ["ok\nawait expect(p)", ".rejects.toThrow('x');\nawait expect(q) ", ".resolves .toBe(1);"].join("");
    expect(promiseMatchers("x.ts", made).map((l) => l.slice(0, 6))).toEqual(["x.ts:2", "x.ts:3"]);
  });

  test("rejectionOf gives the error, and fails on a promise that resolves", async () => {
    const error = new Error("no");
    expect(await rejectionOf(Promise.reject(error))).toBe(error);
    expect((await rejectionOf(rejectionOf(Promise.resolve(1)))).message).toContain("resolved");
  });
});
