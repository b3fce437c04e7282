// The house rules that docs/architecture.md states and a test can check on the tree itself: the
// floor table in the document is the one layers.test.ts enforces, test/ mirrors src/, and no file
// of src/ is over 300 lines ("Layout": one job per file).
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { FLOORS } from "./floors.ts";

const ROOT = join(import.meta.dir, "../..");

/** The floor table of docs/architecture.md, floor number → its rooms, as written. */
export function documentedFloors(markdown: string): Map<number, string[]> {
  const floors = new Map<number, string[]>();
  for (const line of markdown.split("\n")) {
    const row = /^\|\s*(\d+)\s*\|([^|]*)\|/.exec(line);
    if (!row) continue;
    const rooms = [...row[2]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\/$/, "").replace(/\.ts$/, ""));
    floors.set(Number(row[1]), rooms.sort());
  }
  return floors;
}

/** Floors as layers.test.ts holds them, in the same form. */
function enforcedFloors(): Map<number, string[]> {
  return new Map(FLOORS.map((rooms, floor) => [floor, [...rooms].sort()]));
}

// Folders of src/ that have no test/<folder>/ of their own, and where they are tested instead.
// A new folder of src/ gets a test folder, or a line here saying where it is covered.
const COVERED_ELSEWHERE: Record<string, string> = {
  activity: "test/house/activity.test.ts (every change leaves its activity row)",
  config: "test/config.test.ts and test/config-faults.test.ts (config.ts and config/ are one room)",
  health: "test/http/http.test.ts (probes) and test/metrics/ (/metrics)",
  i18n: "test/house/catalogue.test.ts (every language holds every key; customer-facing literals stay in the catalogue)",
  html: "test/house/html.test.ts and test/dashboard/kit.test.ts (the page kernel)",
  oauth: "test/e2e/conformance/ (the authorization server, black-box, clause by clause)",
  ports: "nothing to run: type declarations only",
  ratelimit: "test/mcp/limits.test.ts and test/sdk/ (the limiter through the endpoints it guards)",
};
// Folders of test/ that mirror no folder of src/.
const TEST_ONLY = new Set(["support", "e2e", "house", "bench"]);

function folders(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** Folders of src/ with neither a test folder nor a line in COVERED_ELSEWHERE; folders of test/ mirroring nothing. */
export function mirrorGaps(srcFolders: string[], testFolders: string[], covered: Record<string, string>): string[] {
  const tests = new Set(testFolders);
  const sources = new Set(srcFolders);
  return [
    ...srcFolders.filter((f) => !tests.has(f) && !(f in covered)).map((f) => `src/${f}/ has no test/${f}/`),
    ...testFolders.filter((f) => !sources.has(f) && !TEST_ONLY.has(f)).map((f) => `test/${f}/ mirrors no folder of src/`),
    ...Object.keys(covered)
      .filter((f) => tests.has(f))
      .map((f) => `test/${f}/ exists: drop its COVERED_ELSEWHERE line`),
  ];
}

const LINE_LIMIT = 300;
// Files of src/ allowed over the limit, each with its reason (docs/architecture.md "Layout").
const LONG_FILES: Record<string, string> = {};

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return path === "src/db/migrations" ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

export function overLimit(files: { path: string; lines: number }[], allowed: Record<string, string>): string[] {
  return files.filter((f) => f.lines > LINE_LIMIT && !(f.path in allowed)).map((f) => `${f.path}: ${f.lines} lines`);
}

/** A transaction cast to the database type, by either of its names (a Tx is already a PgDatabase: src/db/client.ts). */
const TX_CAST = /as unknown as (?:Db\b|Deps\["db"\])/;

describe("the house as docs/architecture.md states it", () => {
  test("the floor table of docs/architecture.md is the one layers.test.ts enforces", () => {
    const documented = documentedFloors(readFileSync(join(ROOT, "docs/architecture.md"), "utf8"));
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(enforcedFloors()));
  });

  test("test/ mirrors src/: every folder has its test folder or a line saying where it is tested", () => {
    expect(mirrorGaps(folders("src"), folders("test"), COVERED_ELSEWHERE)).toEqual([]);
    for (const where of Object.values(COVERED_ELSEWHERE)) {
      const first = /test\/[\w./-]+/.exec(where)?.[0];
      if (first) expect(existsSync(join(ROOT, first))).toBe(true);
    }
  });

  test(`no file of src/ is over ${LINE_LIMIT} lines`, () => {
    const files = sourceFiles("src").map((path) => ({ path, lines: readFileSync(join(ROOT, path), "utf8").split("\n").length - 1 }));
    expect(overLimit(files, LONG_FILES)).toEqual([]);
  });

  test("no cast of a transaction to the database: store functions take a Conn (src/db/client.ts)", () => {
    const casts = sourceFiles("src").flatMap((path) =>
      readFileSync(join(ROOT, path), "utf8")
        .split("\n")
        .flatMap((line, i) => (TX_CAST.test(line) ? [`${path}:${i + 1}`] : [])),
    );
    expect(casts).toEqual([]);
  });

  test("the checks can fail", () => {
    expect(['const d = { db: tx as unknown as Deps["db"] };', "f(tx as unknown as Db);", "const conn: Conn = tx;"].map((l) => TX_CAST.test(l))).toEqual([
      true,
      true,
      false,
    ]);
    const doc = "| Floor | Rooms |\n|---|---|\n| 1 | `b`, `a/` |\n| 0 | `config.ts` |\n";
    expect(Object.fromEntries(documentedFloors(doc))).toEqual({ 1: ["a", "b"], 0: ["config"] });
    expect(mirrorGaps(["inbox", "live", "oauth"], ["inbox", "support", "stray"], { oauth: "e2e" })).toEqual([
      "src/live/ has no test/live/",
      "test/stray/ mirrors no folder of src/",
    ]);
    expect(
      overLimit(
        [
          { path: "src/a.ts", lines: 301 },
          { path: "src/b.ts", lines: 300 },
        ],
        {},
      ),
    ).toEqual(["src/a.ts: 301 lines"]);
  });
});
