// `npm test`: the whole suite on embedded PGlite, then again on PostgreSQL when TEST_DATABASE_URL
export {};
// is set (CI sets it; see .ci/run). Ends with one summary line: "N passed, N failed".
const bun = process.execPath;
const extra = process.argv.slice(2);

interface Pass {
  engine: string;
  passed: number;
  failed: number;
  skipped: number;
  code: number;
}

async function run(engine: "pglite" | "postgres"): Promise<Pass> {
  const env = { ...process.env } as Record<string, string>;
  if (engine === "pglite") delete env.TEST_DATABASE_URL;
  console.log(`\n=== test suite on ${engine === "pglite" ? "PGlite (embedded)" : `PostgreSQL (${new URL(env.TEST_DATABASE_URL!).host})`} ===`);
  const proc = Bun.spawn([bun, "test", "--timeout", "60000", ...extra], { env, stdout: "inherit", stderr: "pipe", stdin: "ignore" });
  // bun test writes its report to stderr; echo it and read the totals from its closing lines.
  let report = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stderr) {
    const text = decoder.decode(chunk, { stream: true });
    report += text;
    process.stderr.write(text);
  }
  const code = await proc.exited;
  const count = (word: string) => Number(new RegExp(`^\\s*(\\d+) ${word}$`, "m").exec(report)?.[1] ?? 0);
  return { engine, passed: count("pass"), failed: count("fail"), skipped: count("skip"), code };
}

const passes = [await run("pglite")];
if (process.env.TEST_DATABASE_URL) passes.push(await run("postgres"));
else console.log("\n(TEST_DATABASE_URL is not set: the PostgreSQL pass was skipped)");

for (const p of passes) console.log(`${p.engine}: ${p.passed} passed, ${p.failed} failed, ${p.skipped} skipped (exit ${p.code})`);
const passed = passes.reduce((n, p) => n + p.passed, 0);
const failed = passes.reduce((n, p) => n + p.failed, 0);
const skipped = passes.reduce((n, p) => n + p.skipped, 0);
const bad = passes.some((p) => p.code !== 0 || p.passed === 0);
console.log(`${passed} passed, ${failed + (bad && failed === 0 ? 1 : 0)} failed, ${skipped} skipped`);
process.exit(bad || failed > 0 ? 1 : 0);
