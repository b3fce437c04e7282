// `npm test`: the whole suite on embedded PGlite, then again on PostgreSQL when TEST_DATABASE_URL
// is set (CI sets it; see .ci/run). Ends with one summary line: "N passed, N failed".
//
// Each pass runs the test files in parallel shards: separate `bun test` processes, one per core
// by default (TEST_SHARDS overrides). Every file already has its own database, so shards share
// nothing but the CPU. Files are dealt out longest first, using the durations of the previous
// run (.cache/test-times.json) or, for a file never timed, its size.
//
// Arguments: options (`-t name`, `--bail`, ...) go to every shard; other words select the files
// whose path contains one of them (`npm test -- test/connectors`).
import { availableParallelism } from "node:os";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "..");
const TIMES = join(ROOT, ".cache/test-times.json");
const bun = process.execPath;
const args = process.argv.slice(2);

/** Splits argv into bun test options (with their values) and path filters. */
function parseArgs(argv: string[]): { options: string[]; filters: string[] } {
  const options: string[] = [];
  const filters: string[] = [];
  const valued = new Set(["-t", "--test-name-pattern", "--timeout", "--rerun-each", "--preload", "--coverage-dir", "--reporter", "--reporter-outfile"]);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith("-")) {
      options.push(arg);
      if (valued.has(arg) && i + 1 < argv.length) options.push(argv[++i]!);
    } else filters.push(arg);
  }
  return { options, filters };
}

const { options, filters } = parseArgs(args);
const shardCount = Math.max(1, Number(process.env.TEST_SHARDS) || availableParallelism());

function testFiles(): string[] {
  const glob = new Bun.Glob("**/*.{test,spec}.{ts,tsx,js,mjs}");
  return [...glob.scanSync({ cwd: ROOT, onlyFiles: true })]
    .filter((f) => !f.split("/").some((part) => part === "node_modules" || part.startsWith(".")))
    .filter((f) => filters.length === 0 || filters.some((w) => f.includes(w)))
    .sort();
}

function previousTimes(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(TIMES, "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
}

/** Longest processing time first: each file goes to the shard with the least work so far. */
function deal(files: string[], count: number): string[][] {
  const times = previousTimes();
  const weight = (f: string) => times[f] ?? statSync(join(ROOT, f)).size / 2000; // ~2 KB of test per second when never timed
  const shards = Array.from({ length: Math.min(count, files.length) }, () => ({ files: [] as string[], load: 0 }));
  for (const file of [...files].sort((a, b) => weight(b) - weight(a))) {
    const lightest = shards.reduce((a, b) => (b.load < a.load ? b : a));
    lightest.files.push(file);
    lightest.load += weight(file);
  }
  return shards.map((s) => s.files);
}

interface Totals {
  passed: number;
  failed: number;
  skipped: number;
  code: number;
}

/**
 * Seconds spent in each file, read from bun's report: a file's name line, then one line per test
 * ending in its duration. Setup outside tests is not counted; good enough to balance shards.
 */
function fileTimes(report: string): Record<string, number> {
  const times: Record<string, number> = {};
  let current: string | undefined;
  for (const line of report.split("\n")) {
    const file = /^(\S+\.(?:test|spec)\.\w+):$/.exec(line.trim());
    if (file) current = relative(ROOT, join(ROOT, file[1]!));
    const took = /^\((?:pass|fail)\).*\[(\d+(?:\.\d+)?)(ms|s)\]\s*$/.exec(line);
    if (current && took) times[current] = (times[current] ?? 0.3) + Number(took[1]) / (took[2] === "ms" ? 1000 : 1);
  }
  return times;
}

async function shard(files: string[], env: Record<string, string>): Promise<Totals & { report: string }> {
  const proc = Bun.spawn([bun, "test", "--timeout", "60000", ...options, ...files.map((f) => `./${f}`)], {
    cwd: ROOT,
    env,
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  // bun test writes its report to stderr; read the totals from its closing lines.
  const [out, report, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const count = (word: string) => Number(new RegExp(`^\\s*(\\d+) ${word}$`, "m").exec(report)?.[1] ?? 0);
  return { passed: count("pass"), failed: count("fail"), skipped: count("skip"), code, report: out + report };
}

async function run(engine: "pglite" | "postgres"): Promise<Totals & { engine: string }> {
  const env = { ...process.env } as Record<string, string>;
  if (engine === "pglite") delete env.TEST_DATABASE_URL;
  const shards = deal(testFiles(), shardCount);
  const where = engine === "pglite" ? "PGlite (embedded)" : `PostgreSQL (${new URL(env.TEST_DATABASE_URL!).host})`;
  console.log(`\n=== test suite on ${where}: ${shards.flat().length} files in ${shards.length} parallel shards ===`);
  const started = performance.now();
  const results = await Promise.all(
    shards.map(async (files, i) => {
      const result = await shard(files, env);
      // One shard's report at a time, as each finishes, so the lines of different files never interleave.
      process.stderr.write(`\n--- shard ${i + 1}/${shards.length} (${files.length} files) ---\n${result.report}`);
      return result;
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const times = { ...previousTimes(), ...Object.assign({}, ...results.map((r) => fileTimes(r.report))) };
  if (!existsSync(join(ROOT, ".cache"))) mkdirSync(join(ROOT, ".cache"), { recursive: true });
  writeFileSync(TIMES, `${JSON.stringify(times, null, 1)}\n`);
  const sum = (key: "passed" | "failed" | "skipped") => results.reduce((n, r) => n + r[key], 0);
  const code = results.find((r) => r.code !== 0)?.code ?? 0;
  console.log(`${engine}: ${sum("passed")} passed, ${sum("failed")} failed, ${sum("skipped")} skipped in ${seconds.toFixed(1)} s`);
  return { engine, passed: sum("passed"), failed: sum("failed"), skipped: sum("skipped"), code };
}

const passes = [await run("pglite")];
if (process.env.TEST_DATABASE_URL) passes.push(await run("postgres"));
else console.log("\n(TEST_DATABASE_URL is not set: the PostgreSQL pass was skipped)");

for (const p of passes) console.log(`${p.engine}: ${p.passed} passed, ${p.failed} failed, ${p.skipped} skipped (exit ${p.code})`);
const passed = passes.reduce((n, p) => n + p.passed, 0);
const failed = passes.reduce((n, p) => n + p.failed, 0);
const skipped = passes.reduce((n, p) => n + p.skipped, 0);
// A pass that ran nothing is a failure (a broken setup looks like an empty pass), except where a
// file filter chose only files of the other engine (a PostgreSQL-only test on the PGlite pass).
const empty = (p: (typeof passes)[number]) => p.passed === 0 && (filters.length === 0 || passes.every((q) => q.passed === 0));
const bad = passes.some((p) => p.code !== 0 || empty(p));
console.log(`${passed} passed, ${failed + (bad && failed === 0 ? 1 : 0)} failed, ${skipped} skipped`);
process.exit(bad || failed > 0 ? 1 : 0);
